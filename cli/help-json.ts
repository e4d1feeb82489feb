// `svc help X --json`: a command's help as one JSON document, for scripts and editors that build
// on the CLI. The shape is documented in docs/cli.md ("Help as JSON") and is kept stable: fields
// may be added, none renamed or removed.
import { type Command, type Option } from 'commander';
import { type CommandDefinition, repeatable } from './command.js';

export interface HelpJson {
  /** the whole command, starting with `svc` */
  name: string;
  description: string;
  /** commander's usage line after the name: `[options] <automation>` */
  usage: string;
  arguments: { name: string; description: string; required: boolean; variadic: boolean; choices: string[] | null }[];
  options: OptionJson[];
  /** the options every command takes (--json, --profile, ...) */
  global_options: OptionJson[];
  /** the commands under a group (`svc help automations`): empty for a command that runs */
  subcommands: { name: string; description: string }[];
  examples: { description: string; command: string }[];
}

export interface OptionJson {
  /** as typed in help: `-f, --file <path>` */
  flags: string;
  /** the long form: `--file` */
  long: string | null;
  short: string | null;
  description: string;
  /** `required`: `--file <path>`; `optional`: `--next [n]`; `none`: a flag */
  value: 'required' | 'optional' | 'none';
  /** must be given */
  required: boolean;
  /** may be given more than once, each time adding a value */
  repeatable: boolean;
  choices: string[] | null;
  default: unknown;
}

function optionJson(o: Option): OptionJson {
  return {
    flags: o.flags,
    long: o.long ?? null,
    short: o.short ?? null,
    description: o.description,
    value: o.required ? 'required' : o.optional ? 'optional' : 'none',
    required: o.mandatory,
    repeatable: o.parseArg === repeatable,
    choices: o.argChoices ? [...o.argChoices] : null,
    // a negatable flag's implied `true` is not a default anyone set
    default: o.negate ? null : (o.defaultValue ?? null),
  };
}

const fullName = (cmd: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/**
 * The help of the command `words` name in `program` (built with that command wired, so its
 * options are known), or undefined when there is none. `definition` gives its examples.
 */
export function helpJson(program: Command, words: readonly string[], definition?: CommandDefinition): HelpJson | undefined {
  let cmd: Command = program;
  for (const word of words) {
    const next = cmd.commands.find((c) => c.name() === word);
    if (!next) return undefined;
    cmd = next;
  }
  const visible = (options: readonly Option[]) => options.filter((o) => !o.hidden).map(optionJson);
  const isRoot = cmd === program;
  return {
    name: fullName(cmd),
    description: cmd.description(),
    usage: cmd.usage(),
    arguments: cmd.registeredArguments.map((a) => ({
      name: a.name(),
      description: a.description,
      required: a.required,
      variadic: a.variadic,
      choices: a.argChoices ? [...a.argChoices] : null,
    })),
    // the root's own option is --version; the others it holds are every command's
    options: visible(isRoot ? cmd.options.filter((o) => o.long === '--version') : cmd.options),
    global_options: visible(program.options.filter((o) => o.long !== '--version')),
    subcommands: cmd.commands
      .filter((c) => !(c as Command & { _hidden?: boolean })._hidden && c.name() !== 'help')
      .map((c) => ({ name: fullName(c), description: c.description() })),
    examples: (definition?.examples ?? []).map((e) => ({ description: e.description, command: e.command })),
  };
}
