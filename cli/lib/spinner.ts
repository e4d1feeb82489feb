// A spinner on stderr while a slow request runs. Like gh's progress indicator it shows only when
// both stdout and stderr are terminals and CI is unset: piped or scripted runs see nothing.
import { type IO } from '../io.js';

export interface Spinner {
  /** replaces the text beside the spinner */
  update(text: string): void;
  /** clears the spinner's line; safe to call more than once */
  stop(): void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const INTERVAL_MS = 80;
const CLEAR_LINE = '\r\u001b[K';

export function spinnerEnabled(io: IO): boolean {
  return io.stderr.isTTY && io.stdout.isTTY && !io.env.CI;
}

export function startSpinner(io: IO, text: string): Spinner {
  if (!spinnerEnabled(io)) return { update() {}, stop() {} };
  let frame = 0;
  let current = text;
  let stopped = false;
  const draw = () => io.stderr.write(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${current}`);
  draw();
  const timer = setInterval(draw, INTERVAL_MS);
  // A spinner must never be what keeps the process alive.
  timer.unref();
  return {
    update(next) {
      current = next;
      if (!stopped) draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      io.stderr.write(CLEAR_LINE);
    },
  };
}

/** Runs `work` with a spinner showing `text`, clearing it whatever happens. */
export async function withSpinner<T>(io: IO, text: string, work: () => Promise<T>): Promise<T> {
  const spinner = startSpinner(io, text);
  try {
    return await work();
  } finally {
    spinner.stop();
  }
}
