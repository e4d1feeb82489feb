// Text that may come inline, from a file, or from stdin (`-`): prompts, follow-up messages.
import { readFile } from 'node:fs/promises';
import { type Context } from '../context.js';
import { InvalidInputError, UsageError } from '../errors.js';

export interface TextSources {
  /** given inline, e.g. --prompt TEXT */
  inline?: string;
  /** a file path, or `-` for stdin, e.g. --prompt-file PATH */
  file?: string;
}

/**
 * The text from exactly one of the sources. `flags` names them for the usage errors, e.g.
 * { inline: '--prompt', file: '--prompt-file' }. Blank text is refused: a daemon would refuse it
 * too, but only after a round trip, and a blank file is usually a wrong path in a script.
 */
export async function readTextInput(
  ctx: Context,
  sources: TextSources,
  flags: { inline: string; file: string; /** the usage error when no source is given */ missing?: string },
): Promise<string> {
  const given = [sources.inline, sources.file].filter((s) => s !== undefined).length;
  if (given === 0) throw new UsageError(flags.missing ?? `pass ${flags.inline} TEXT or ${flags.file} PATH (- reads stdin)`);
  if (given > 1) throw new UsageError(`pass either ${flags.inline} or ${flags.file}, not both`);
  let text: string;
  let from: string;
  if (sources.inline !== undefined) {
    text = sources.inline;
    from = flags.inline;
  } else if (sources.file === '-') {
    text = await ctx.readStdin();
    from = 'stdin';
  } else {
    try {
      text = await readFile(sources.file!, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (code ?? 'unreadable');
      throw new UsageError(`cannot read ${flags.file} '${sources.file}': ${why}`);
    }
    from = `'${sources.file}'`;
  }
  if (!text.trim()) throw new InvalidInputError(`the text from ${from} is empty`);
  // A file or a pipe ends with a newline that is not part of the text; the rest is (a prompt's
  // indentation and blank lines are the author's), as `env set --value-stdin` keeps it.
  return sources.inline !== undefined ? text : text.replace(/\r?\n$/, '');
}
