// What a command is: one file per command (cli/commands/<noun>/<verb>.ts) exports a definition;
// cli/commands/index.ts lists them; main.ts wires the one being run into commander.
import { InvalidArgumentError } from 'commander';
import { type Context } from './context.js';

export interface ArgDefinition {
  /** shown in usage; the key in run()'s `args` (camelCased) */
  name: string;
  description: string;
  required?: boolean;
  /** collects the rest into an array (last argument only) */
  variadic?: boolean;
  choices?: readonly string[];
}

export interface OptionDefinition {
  /** commander syntax: '-f, --file <path>', '--yes', '--no-secret', '--count <n>' */
  flags: string;
  description: string;
  default?: unknown;
  choices?: readonly string[];
  /** turns the raw text into the value; for repeatable options `previous` is the value so far */
  parse?: (value: string, previous: any) => unknown;
  /** must be given (commander's mandatory option) */
  required?: boolean;
  /** options (attribute names, camelCased) this one cannot be combined with */
  conflicts?: readonly string[];
  /** an option (attribute name, camelCased) this one only goes with: alone it is a usage error */
  requires?: string;
  hidden?: boolean;
}

export interface Example {
  /** the whole command line, starting with `svc` */
  command: string;
  description: string;
}

export interface CommandDefinition<
  A extends object = Record<string, any>,
  O extends object = Record<string, any>,
> {
  /** the words after `svc`: 'login', 'auth status', 'automations list' */
  name: string;
  /** one line, shown in `svc --help` (must equal the entry in cli/commands/index.ts) */
  description: string;
  args?: readonly ArgDefinition[];
  options?: readonly OptionDefinition[];
  examples?: readonly Example[];
  /**
   * Does the work. `args` by (camelCased) name, `options` are the command's own options (global
   * ones are in ctx.globals). Throws UsageError / ApiFailure / ...; never exits the process.
   */
  run(args: A, options: O, ctx: Context): Promise<void>;
}

/** Identity, for type inference at the definition site. */
export function defineCommand<A extends object, O extends object>(
  def: CommandDefinition<A, O>,
): CommandDefinition<A, O> {
  return def;
}

// Parsers for OptionDefinition.parse. Commander reports their InvalidArgumentError as a usage
// error naming the option ("option '--port <n>' argument 'x' is invalid. ...").

export function integer(options: { min?: number; max?: number } = {}) {
  return (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('Not an integer.');
    if (options.min !== undefined && n < options.min) throw new InvalidArgumentError(`Must be at least ${options.min}.`);
    if (options.max !== undefined && n > options.max) throw new InvalidArgumentError(`Must be at most ${options.max}.`);
    return n;
  };
}

/** Repeatable option: `--filter a --filter b` gives ['a', 'b']. */
export function repeatable(value: string, previous: unknown): string[] {
  return Array.isArray(previous) ? [...previous, value] : [value];
}

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** '90s', '15m', '1h', '2d', '500ms'; a bare number is seconds. Returns milliseconds. */
export function parseDuration(value: string): number {
  const m = DURATION.exec(value.trim());
  if (!m) throw new InvalidArgumentError('Expected a duration such as 90s, 15m, 1h or 2d.');
  return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 's']);
}
