// The CLI entry: builds the commander tree from the command table and runs one command.
// Only the command being run is imported; `svc --help` and `svc --version` import no command, no
// context, no keychain, no HTTP client and no React. Errors propagate to bin/svc.js, which maps
// them to exit codes (cli/exit-codes.ts) and is the only place that exits.
import { Argument, Command, CommanderError, Option } from 'commander';
import { type CommandDefinition, repeatable } from './command.js';
import { COMMANDS, type CommandEntry, GROUPS } from './commands/index.js';
import { UsageError } from './errors.js';
import { type IO, processIO } from './io.js';
import { inert } from './terminal-text.js';
import { cliVersion } from './version.js';

export { exitCodeFor, EXIT } from './exit-codes.js';
export { reportError } from './report.js';

/** Global options that take a value: the pre-scan must skip their value. */
const GLOBAL_VALUE_FLAGS = new Set(['--profile', '--url', '--team']);

/** The words of argv that can name a command: operands before `--`, global option values skipped. */
export function commandWords(argv: readonly string[]): string[] {
  return commandWordIndexes(argv).map((i) => argv[i]);
}

/** Where the command words stand in argv (global options and their values may come first). */
function commandWordIndexes(argv: readonly string[]): number[] {
  const at: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (GLOBAL_VALUE_FLAGS.has(arg)) i++;
      continue;
    }
    at.push(i);
  }
  return at;
}

/** The entry whose name is the longest prefix of the command words. */
export function findEntry(argv: readonly string[], entries: readonly CommandEntry[] = COMMANDS): CommandEntry | undefined {
  const words = commandWords(argv);
  let best: CommandEntry | undefined;
  for (const entry of entries) {
    const parts = entry.name.split(' ');
    if (parts.length > words.length || !parts.every((p, i) => p === words[i])) continue;
    if (!best || parts.length > best.name.split(' ').length) best = entry;
  }
  return best;
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function addGlobalOptions(program: Command): void {
  program
    .option('--json', 'print the response data as JSON on stdout, and nothing else')
    .option('--profile <name>', 'use the stored profile NAME (default: "default", or SVC_PROFILE)')
    .option('--url <url>', 'daemon base URL, overriding the profile and SVC_BASE_URL')
    .option('--team <slug>', 'team slug, overriding the profile and SVC_TEAM')
    .option('--no-color', 'no colour in the output (also NO_COLOR=1)')
    .option('--wait', 'when rate limited (429), wait for the window to reset and retry once, instead of exiting 6')
    .option('--no-wait', 'when rate limited, exit 6 at once (the default, except in the interactive screens)');
}

function examplesText(def: CommandDefinition): string {
  if (!def.examples?.length) return '';
  const lines = def.examples.map((e) => `  # ${e.description}\n  $ ${e.command}`);
  return `\nExamples:\n${lines.join('\n\n')}\n`;
}

/**
 * Commander keeps the last of an option given twice, silently: `-m a -m b` sent only "b", and
 * `--env a --env b` ran in b. An option that takes a value (and is not repeatable), or a flag
 * given with its `--no-` form too, is a usage error instead; a flag repeated as it was is harmless.
 */
function repeatRefuser() {
  const first = new Map<string, string>();
  return (cmd: Command, opt: Option) => {
    const takesValue = opt.required || opt.optional;
    cmd.on(`option:${opt.name()}`, () => {
      const attribute = opt.attributeName();
      const earlier = first.get(attribute);
      first.set(attribute, earlier ?? opt.long!);
      if (earlier === undefined || (!takesValue && earlier === opt.long)) return;
      throw new UsageError(earlier === opt.long ? `${opt.long} was given more than once: give it once` : `${opt.long} and ${earlier} were both given: give one of them`);
    });
  };
}

function wire(leaf: Command, def: CommandDefinition, io: IO): void {
  for (const a of def.args ?? []) {
    const spec = `${a.required ? '<' : '['}${a.name}${a.variadic ? '...' : ''}${a.required ? '>' : ']'}`;
    const arg = new Argument(spec, a.description);
    if (a.choices) arg.choices(a.choices);
    leaf.addArgument(arg);
  }
  const refuseRepeats = repeatRefuser();
  for (const o of def.options ?? []) {
    const opt = new Option(o.flags, o.description);
    if (o.default !== undefined) opt.default(o.default);
    if (o.choices) opt.choices(o.choices);
    if (o.parse) opt.argParser(o.parse);
    if (o.required) opt.makeOptionMandatory();
    if (o.conflicts) opt.conflicts([...o.conflicts]);
    if (o.hidden) opt.hideHelp();
    leaf.addOption(opt);
    if (o.parse !== repeatable) refuseRepeats(leaf, opt);
  }
  const examples = examplesText(def);
  if (examples) leaf.addHelpText('after', examples);
  leaf.action(async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const args: Record<string, unknown> = {};
    (def.args ?? []).forEach((a, i) => {
      const value = cmd.processedArgs[i];
      // `svc sessions watch "$(…)"` whose substitution printed nothing: say so here, not after a round trip.
      if (a.required && typeof value === 'string' && value.trim() === '') throw new UsageError(`the ${a.name.toUpperCase()} argument is empty`);
      args[camel(a.name)] = value;
    });
    refuseOrphanedOptions(def, cmd);
    const all = cmd.optsWithGlobals();
    const [{ createContext }, { colorPossible }] = await Promise.all([import('./context.js'), import('./output.js')]);
    const color = all.color !== false;
    const chalk = colorPossible(io, color) ? await import('chalk') : undefined;
    const ctx = createContext(
      io,
      {
        json: Boolean(all.json),
        profile: all.profile as string | undefined,
        color,
        url: all.url as string | undefined,
        team: all.team as string | undefined,
        wait: all.wait as boolean | undefined,
      },
      { chalk },
    );
    await def.run(args, cmd.opts(), ctx);
  });
}

/**
 * `--interval` without `--watch` would be dropped without a word, and the command still act: a
 * CI job that meant to wait for its session would pass without waiting. Said before anything runs.
 */
function refuseOrphanedOptions(def: CommandDefinition, cmd: Command): void {
  const given = cmd.opts();
  const long = (attribute: string) => cmd.options.find((opt) => opt.attributeName() === attribute)?.long ?? attribute;
  for (const o of def.options ?? []) {
    if (o.requires === undefined) continue;
    const attribute = cmd.options.find((opt) => opt.flags === o.flags)!.attributeName();
    if (cmd.getOptionValueSource(attribute) !== 'cli') continue;
    if (given[o.requires] === undefined || given[o.requires] === false) throw new UsageError(`${long(attribute)} goes with ${long(o.requires)}`);
  }
}

/** Builds the program; only `target` (the command being run) is fully defined. */
export async function buildProgram(io: IO, target?: CommandEntry): Promise<Command> {
  const program = new Command('svc');
  program
    .description('svc: self-hosted team automations, from the command line')
    .version(cliVersion(), '-v, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .helpCommand(false)
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError('Run `svc --help` for the list of commands.')
    .configureHelp({ showGlobalOptions: true })
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Commander quotes what was typed (`unknown command 'lis\x1b[2J'`): printed inert, like every other error.
      outputError: (s, write) => write(inert(s.replace(/\n$/, '')) + (s.endsWith('\n') ? '\n' : '')),
      getOutHelpWidth: () => io.stdout.columns ?? 100,
      getErrHelpWidth: () => io.stderr.columns ?? 100,
    });
  addGlobalOptions(program);
  const refuseRepeats = repeatRefuser();
  for (const opt of program.options) if (opt.long !== '--version' && opt.long !== '--help') refuseRepeats(program, opt);
  program.addHelpText('after', '\nRun `svc help <command>` for a command\'s options and examples.\n');
  // Listed for `svc --help`; `svc help X` is rewritten to `svc X --help` before parsing.
  program.command('help [command...]').description("show a command's help, with examples");

  const groups = new Map<string, Command>();
  const parentOf = (words: string[]): Command => {
    let parent = program;
    for (let i = 0; i < words.length; i++) {
      const path = words.slice(0, i + 1).join(' ');
      let group = groups.get(path);
      if (!group) {
        group = parent.command(words[i]).description(GROUPS[path] ?? '');
        group.helpCommand(false).showHelpAfterError(`Run \`svc help ${path}\` for its commands.`);
        groups.set(path, group);
      }
      parent = group;
    }
    return parent;
  };

  const definition = target ? await target.load() : undefined;
  for (const entry of COMMANDS) {
    const words = entry.name.split(' ');
    const leaf = parentOf(words.slice(0, -1)).command(words[words.length - 1], { hidden: entry.hidden });
    leaf.description(entry.description);
    leaf.showHelpAfterError(`Run \`svc help ${entry.name}\` for usage and examples.`);
    if (entry === target && definition) wire(leaf, definition, io);
  }
  return program;
}

/**
 * `svc` with no command (global options allowed) on a terminal opens the screens, as `svc ui`;
 * never with --json, --help or --version, or with CI set (CONTRACT §10). Elsewhere it prints help.
 */
export function opensScreens(argv: readonly string[], io: IO): boolean {
  if (commandWords(argv).length > 0) return false;
  if (argv.some((a) => ['--json', '-h', '--help', '-v', '--version'].includes(a))) return false;
  return Boolean(io.stdin.isTTY) && io.stdout.isTTY && !io.env.CI;
}

/** `svc help X --json`: the help of X as JSON on stdout (cli/help-json.ts has the shape). */
async function printHelpJson(io: IO, words: string[]): Promise<number> {
  const entry = words.length > 0 ? COMMANDS.find((e) => e.name === words.join(' ')) : undefined;
  const [program, definition, { helpJson }] = await Promise.all([buildProgram(io, entry), entry?.load(), import('./help-json.js')]);
  const help = helpJson(program, words, definition);
  // (the words were checked against the table above; a group is in the tree too)
  if (!help) throw new UsageError(`unknown command '${words.join(' ')}': run \`svc --help\` for the list`);
  io.stdout.write(`${JSON.stringify(help, null, 2)}\n`);
  return 0;
}

/** Runs the CLI; resolves 0, or throws an error for bin/svc.js to report and map to an exit code. */
export async function main(argv: readonly string[], io: IO = processIO()): Promise<number> {
  let args = [...argv];
  const helpAt = commandWordIndexes(args)[0];
  if (args[helpAt] === 'help') {
    // Global options may come before or after the words, as with every command
    // (`svc help events --json`, `svc --profile dev help events`).
    args = [...args.slice(0, helpAt), ...args.slice(helpAt + 1)];
    const words = commandWords(args);
    const known = COMMANDS.some((e) => words.every((w, i) => e.name.split(' ')[i] === w));
    if (!known) throw new UsageError(`unknown command '${words.join(' ')}': run \`svc --help\` for the list`);
    if (args.includes('--json')) return printHelpJson(io, words);
    args.push('--help');
  }
  // --json promises one JSON document on stdout, for the version too.
  if (args.includes('--json') && args.some((a) => a === '-v' || a === '--version') && commandWords(args).length === 0) {
    io.stdout.write(`${JSON.stringify({ version: cliVersion() })}\n`);
    return 0;
  }
  if (opensScreens(args, io)) args = ['ui', ...args];
  const program = await buildProgram(io, findEntry(args));
  if (args.length === 0) {
    program.outputHelp();
    return 0;
  }
  if (commandWords(args).length === 0 && !args.some((a) => ['-h', '--help', '-v', '--version'].includes(a))) {
    throw new UsageError('no command given: options such as --json go with one (`svc automations list --json`); run `svc --help` for the list');
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0;
      throw new UsageError(err.message, true);
    }
    throw err;
  }
  return 0;
}
