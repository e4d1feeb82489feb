// Runs bin/svc.js on a real pseudo-terminal (through util-linux `script`), so tests can see what a
// person at a terminal sees: hidden prompts, confirmations, spinners, tables cut to the width.
// Answers are typed only once their question has appeared, as a person would; typed earlier, the
// terminal itself would echo them before the CLI could hide them.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type CliSandbox, SVC_BIN } from './cli.js';
import { processAlive } from './process-alive.js';

export interface PtyAnswer {
  /** typed once the output matches */
  when: RegExp;
  /** what is typed, Enter included (e.g. 'y\r') */
  send: string;
}

export interface PtyRun {
  code: number | null;
  /** stdout and stderr together, as the terminal showed them (with escape sequences) */
  output: string;
}

/** Whether `script` can give us a terminal on this machine. */
export function ptyAvailable(): boolean {
  const r = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return r.status === 0 && /util-linux/.test(r.stdout);
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** A person's terminal (CI unset: the CLI would prompt for nothing) and the shell line that runs svc at `columns` wide. */
function ptyCommand(sandbox: CliSandbox, args: readonly string[], options: { env?: Record<string, string | undefined>; columns?: number }): { env: NodeJS.ProcessEnv; command: string } {
  const env: NodeJS.ProcessEnv = { ...sandbox.env, TERM: 'xterm-256color', SHELL: '/bin/sh' };
  delete env.CI;
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const command = `stty cols ${options.columns ?? 100} rows 40; exec ${quote(process.execPath)} ${[SVC_BIN, ...args].map(quote).join(' ')}`;
  return { env, command };
}

export function runInPty(
  sandbox: CliSandbox,
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; answers?: PtyAnswer[]; columns?: number; timeoutMs?: number } = {},
): Promise<PtyRun> {
  const { env, command } = ptyCommand(sandbox, args, options);
  const answers = [...(options.answers ?? [])];
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: sandbox.home, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    // Each question is looked for only in what came after the previous answer.
    let from = 0;
    const onData = (d: Buffer) => {
      output += d.toString('utf8');
      while (answers.length > 0 && answers[0].when.test(output.slice(from))) {
        child.stdin.write(answers.shift()!.send);
        from = output.length;
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The output without colour, cursor movement and carriage returns. */
export function plainText(output: string): string {
  // eslint-disable-next-line no-control-regex
  return output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
}

/** A long-running `svc` (dev) on a pseudo-terminal: read what it showed, type into it, wait for it. */
export interface PtyProcess {
  /** stdout and stderr together so far, as the terminal showed them */
  output(): string;
  /** resolves with the output once `pattern` matches its plain text; rejects on exit or timeout */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** typed at the terminal: '\u0003' is Ctrl-C, which the terminal turns into SIGINT */
  type(text: string): void;
  exited: Promise<PtyRun>;
  /**
   * SIGKILL to `script` if still running: the terminal closes and hangs up on svc, which winds
   * down on its own. Resolves once svc is gone, so its last writes cannot race a test's removal
   * of its folders; rejects if it still runs after `timeoutMs`.
   */
  closeTerminal(timeoutMs?: number): Promise<void>;
}

export function spawnInPty(sandbox: CliSandbox, args: readonly string[], options: { env?: Record<string, string | undefined>; columns?: number } = {}): PtyProcess {
  const { env, command } = ptyCommand(sandbox, args, options);
  const child = spawn('script', ['-qefc', command, '/dev/null'], { cwd: sandbox.home, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let done = false;
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    output += d.toString('utf8');
    listeners.forEach((l) => l());
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<PtyRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      done = true;
      listeners.forEach((l) => l());
      resolve({ code, output });
    });
  });
  return {
    output: () => output,
    waitFor: (pattern, timeoutMs = 20_000) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (pattern.test(plainText(output))) finish(() => resolve(output));
          else if (done) finish(() => reject(new Error(`svc exited before showing ${pattern}\n--- terminal ---\n${plainText(output)}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`timed out waiting for ${pattern}\n--- terminal ---\n${plainText(output)}`))), timeoutMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      }),
    type: (text) => void child.stdin.write(text),
    exited,
    closeTerminal: async (timeoutMs = 15_000) => {
      if (done) return;
      const svc = childrenOf(child.pid!);
      child.kill('SIGKILL');
      await exited;
      const deadline = Date.now() + timeoutMs;
      while (svc.some(processAlive)) {
        if (Date.now() > deadline) throw new Error(`svc (pid ${svc.join(', ')}) still runs ${timeoutMs} ms after its terminal closed`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** The pids `pid` started: for `script`, svc itself once the shell has exec'd it. */
function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
  } catch {
    return []; // already gone
  }
}
