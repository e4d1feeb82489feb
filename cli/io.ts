// The streams a command run talks to. Commands never touch process.stdout directly, so tests can
// run a command's `run` against memory buffers.
import { Readable } from 'node:stream';

export interface Writer {
  write(text: string): void;
  readonly isTTY: boolean;
  /** terminal width, when a TTY */
  readonly columns?: number;
}

export interface IO {
  stdout: Writer;
  stderr: Writer;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  env: NodeJS.ProcessEnv;
}

export function processIO(): IO {
  const wrap = (stream: NodeJS.WriteStream): Writer => ({
    write: (text) => void stream.write(text),
    get isTTY() {
      return Boolean(stream.isTTY);
    },
    get columns() {
      return stream.isTTY ? stream.columns : undefined;
    },
  });
  return { stdout: wrap(process.stdout), stderr: wrap(process.stderr), stdin: process.stdin, env: process.env };
}

export interface MemoryIO extends IO {
  out(): string;
  err(): string;
}

/** In-memory streams for tests that call a command's run() directly. */
export function memoryIO(options: { isTTY?: boolean; stdin?: string; env?: NodeJS.ProcessEnv } = {}): MemoryIO {
  let out = '';
  let err = '';
  const isTTY = options.isTTY ?? false;
  return {
    stdout: { write: (t) => void (out += t), isTTY, columns: isTTY ? 100 : undefined },
    stderr: { write: (t) => void (err += t), isTTY, columns: isTTY ? 100 : undefined },
    stdin: Object.assign(Readable.from(options.stdin === undefined ? [] : [options.stdin]), { isTTY: false }),
    env: options.env ?? {},
    out: () => out,
    err: () => err,
  };
}
