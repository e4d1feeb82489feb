// Questions to a person at a terminal. Where there is no person (no TTY, or CI set) a prompt is a
// usage error that names the flag to pass instead, so a script fails at once rather than hanging.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { CancelledError, UsageError } from './errors.js';
import { type IO } from './io.js';

/** A person can answer: stdin and stderr are terminals and CI is not set. */
export function canPrompt(io: IO): boolean {
  return Boolean(io.stdin.isTTY) && io.stderr.isTTY && !io.env.CI;
}

export function requirePrompt(io: IO, insteadFlag: string, what: string): void {
  if (!canPrompt(io)) {
    const why = io.stdin.isTTY && io.stderr.isTTY ? 'with CI set' : 'without a terminal';
    throw new UsageError(`cannot ask for ${what} ${why}: pass ${insteadFlag}`);
  }
}

function ask(io: IO, question: string, hidden: boolean): Promise<string> {
  let muted = false;
  // readline echoes typed characters through `output`; muting it after the question hides them.
  const output = new Writable({
    write(chunk, _enc, done) {
      if (!muted) io.stderr.write(String(chunk));
      done();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: true });
  return new Promise<string>((resolve, reject) => {
    let answered = false;
    rl.on('SIGINT', () => {
      rl.close();
    });
    rl.on('close', () => {
      if (!answered) {
        io.stderr.write('\n');
        reject(new CancelledError());
      }
    });
    rl.question(question, (answer) => {
      answered = true;
      if (hidden) io.stderr.write('\n');
      rl.close();
      resolve(answer);
    });
    muted = hidden;
  });
}

/** Hidden input (a key, a secret value). */
export async function promptSecret(io: IO, question: string, insteadFlag: string): Promise<string> {
  requirePrompt(io, insteadFlag, 'a secret');
  return (await ask(io, question, true)).trim();
}

export async function promptText(io: IO, question: string, insteadFlag: string): Promise<string> {
  requirePrompt(io, insteadFlag, 'input');
  return (await ask(io, question, false)).trim();
}

/** Yes/no, default no. On a non-TTY this is a usage error naming `insteadFlag` (e.g. --yes). */
export async function confirm(io: IO, question: string, insteadFlag: string): Promise<boolean> {
  requirePrompt(io, insteadFlag, 'confirmation');
  const answer = await ask(io, `${question} [y/N] `, false);
  return /^y(es)?$/i.test(answer.trim());
}

/** All of stdin as text (for --key-stdin, --value-stdin, `-` file arguments). */
export async function readStdin(io: IO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}
