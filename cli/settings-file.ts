// What the CLI's own JSON files (config.json, credentials.json) share: read as they are, with why
// one could not be, and never rewritten then, or one command would drop everything else it holds.
import { readFileSync } from 'node:fs';
import { UsageError } from './errors.js';

/** The file's parsed JSON (undefined when there is no file), or why it could not be read. */
export function readSettingsFile(path: string): { value?: unknown; problem?: string } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { problem: `${path} could not be read (${code ?? 'error'})` };
  }
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { problem: `${path} is not valid JSON (${(err as Error).message})` };
  }
}

/** Before a change: a file that could not be read is left as it is, and the command stops. */
export function refuseChangeOver(problem: string | undefined): void {
  if (problem) throw new UsageError(`${problem}: fix or remove it; nothing was changed`);
}
