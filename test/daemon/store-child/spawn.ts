// Runs one of the store-child TypeScript scripts in a real Node child process and reads its
// stdout line by line.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

export interface Child {
  proc: ChildProcessWithoutNullStreams;
  lines: string[];
  /** resolves with the first stdout line matching `re` (rejects if the child exits first) */
  waitFor(re: RegExp): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

export function runChild(script: string, args: string[]): Child {
  const proc = spawn(process.execPath, ['--import', pathToFileURL(`${here}register.mjs`).href, `${here}${script}`, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  let err = '';
  const waiters: { re: RegExp; resolve: (l: string) => void }[] = [];
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const w of waiters.filter((x) => x.re.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  proc.stderr.setEncoding('utf8');
  proc.stderr.on('data', (c: string) => (err += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    proc,
    lines,
    exited,
    stderr: () => err,
    waitFor: (re) => {
      const seen = lines.find((l) => re.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return Promise.race([
        new Promise<string>((resolve) => waiters.push({ re, resolve })),
        exited.then(({ code, signal }) => {
          throw new Error(`child exited (${code ?? signal}) before printing ${re}; stderr: ${err}`);
        }),
      ]);
    },
  };
}
