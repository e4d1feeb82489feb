// The exec runner: one shell command per turn, the turn JSON on stdin, the session environment's
// variables in its environment, stdout as the answer. Turns of one session run one after the
// other; at most `concurrency` commands run at once and the rest wait in arrival order.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redactor } from './redact.js';
import { RunnerRefused, type HandOver, type Runner, type Turn, type TurnReporter } from './runner.js';
import type { TurnGroupLedger } from './turn-groups.js';

export const MAX_OUTPUT_BYTES = 1024 * 1024;
const STDERR_TAIL_BYTES = 4096;
const ERROR_TAIL_CHARS = 1000;
/** how long a command's leftover children may hold its output open after it exited */
const PIPE_GRACE_MS = 1000;

/** The variables a turn runs with; their values never reach a stored answer or error (CONTRACT §7). */
export interface TurnEnvironment {
  vars: Record<string, string>;
}

export interface ExecRunnerOptions {
  command: string;
  timeoutMs: number;
  concurrency: number;
  reporter: TurnReporter;
  environment: (turn: Turn) => Promise<TurnEnvironment>;
  /** where PATH and HOME come from (nothing else of the daemon's environment is passed on) */
  baseEnv?: NodeJS.ProcessEnv;
  /** the shell (default: the platform's /bin/sh) */
  shell?: string;
  /** on stop, how long commands get after SIGTERM before SIGKILL */
  killGraceMs?: number;
  /** where running turns' process groups are noted, so a daemon killed with SIGKILL leaves none behind */
  ledger?: TurnGroupLedger;
  /** settles once what an earlier, killed daemon process left running is ended: no command spawns before */
  leftoversEnded?: Promise<unknown>;
}

interface Job {
  turn: Turn;
  /** set when the job starts inside take(): spawning then answers the hand-over */
  handOver?: { resolve: () => void; reject: (err: RunnerRefused) => void };
  child?: ChildProcess;
  done?: Promise<void>;
}

export const SHUTDOWN_ERROR = 'the daemon shut down during the turn';
export const SHUTDOWN_BEFORE_START_ERROR = 'the daemon shut down before the turn started';

export class ExecRunner implements Runner {
  readonly kind = 'exec' as const;
  readonly reportsOutcomes = true;
  readonly turnsOutliveDaemon = false;
  private readonly waiting: Job[] = [];
  /** running jobs by session id: one per session at a time */
  private readonly active = new Map<string, Job>();
  private stopping = false;
  private readonly leftoversEnded: Promise<unknown>;

  constructor(private readonly opts: ExecRunnerOptions) {
    if (!opts.command.trim()) throw new Error('the exec runner needs a command (--runner-command)');
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1) throw new Error('runner concurrency must be an integer >= 1');
    if (!(opts.timeoutMs > 0)) throw new Error('runner timeout must be positive');
    this.leftoversEnded = opts.leftoversEnded ?? Promise.resolve();
  }

  async init(): Promise<void> {
    await this.leftoversEnded;
  }

  /**
   * Answers once the command has spawned, or at once when the turn has to wait for a slot (or for
   * the session's previous turn); a turn that waits is reported like any other when it ends.
   */
  async take(turn: Turn): Promise<HandOver> {
    if (this.stopping) throw new RunnerRefused('the daemon is shutting down');
    const job: Job = { turn };
    const spawned = new Promise<void>((resolve, reject) => (job.handOver = { resolve, reject }));
    this.waiting.push(job);
    this.pump();
    if (this.active.get(turn.session.session_id) === job) await spawned;
    else job.handOver = undefined;
    return { state: 'running' };
  }

  discard(sessionId: string): number {
    return this.takeWaiting((job) => job.turn.session.session_id === sessionId).length;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // Turns waiting for a slot fail now. Those waiting behind their session's running turn fail
    // with it, so the session's error is about the turn that ran; if that one ends well, they
    // fail after it.
    const notStarted = this.takeWaiting((job) => !this.active.has(job.turn.session.session_id));
    for (const job of notStarted) await this.report(job, SHUTDOWN_BEFORE_START_ERROR, undefined, true);
    const running = [...this.active.values()];
    for (const job of running) if (job.child) killGroup(job.child, 'SIGTERM');
    const grace = setTimeout(() => {
      for (const job of running) if (job.child) killGroup(job.child, 'SIGKILL');
    }, this.opts.killGraceMs ?? 5000);
    try {
      await Promise.all(running.map((j) => j.done));
    } finally {
      clearTimeout(grace);
    }
    for (const job of this.waiting.splice(0)) await this.report(job, SHUTDOWN_BEFORE_START_ERROR, undefined, true);
  }

  /** Removes the waiting turns `which` picks, in their order, and returns them. */
  private takeWaiting(which: (job: Job) => boolean): Job[] {
    const taken = this.waiting.filter(which);
    if (taken.length > 0) this.waiting.splice(0, this.waiting.length, ...this.waiting.filter((job) => !which(job)));
    return taken;
  }

  private pump(): void {
    for (let i = 0; i < this.waiting.length && this.active.size < this.opts.concurrency; ) {
      const job = this.waiting[i];
      const sessionId = job.turn.session.session_id;
      if (this.active.has(sessionId)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.active.set(sessionId, job);
      job.done = this.run(job).finally(() => {
        this.active.delete(sessionId);
        if (!this.stopping) this.pump();
      });
    }
  }

  private async run(job: Job): Promise<void> {
    await this.leftoversEnded;
    let env: TurnEnvironment;
    try {
      env = await this.opts.environment(job.turn);
    } catch {
      return this.refuseOrReport(job, "could not read the session environment's variables");
    }
    let child: ChildProcess;
    try {
      child = this.spawnChild(job.turn, env);
    } catch (err) {
      // spawn throws (rather than emitting 'error') for arguments it rejects, e.g. a NUL in a value
      return this.refuseOrReport(job, cannotStart(err as NodeJS.ErrnoException, env));
    }
    const spawnError = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (err) => resolve(err));
    });
    if (spawnError) return this.refuseOrReport(job, cannotStart(spawnError, env));
    child.on('error', () => undefined); // e.g. a failed kill of a process that already ended
    job.child = child;
    const sessionId = job.turn.session.session_id;
    const redactor = new Redactor(Object.values(env.vars));
    const collected = this.collect(child, job.turn, redactor.margin);
    // Recorded before the turn is acknowledged: a daemon killed from then on leaves a record of
    // what the next start must end (turn-groups.ts).
    const recorded = await this.opts.ledger?.record(child.pid!, sessionId).then(
      () => true,
      () => false,
    );
    job.handOver?.resolve();
    job.handOver = undefined;
    if (this.stopping) killGroup(child, 'SIGTERM');
    const result = await collected;
    // The group is gone (collect killed it): nothing is left for a later start to end.
    if (recorded) await this.opts.ledger!.forget(child.pid!, sessionId).catch(() => undefined);
    const output = answerOf(redactor, result.stdout);
    if (this.stopping && result.code !== 0) return this.report(job, SHUTDOWN_ERROR, output, true);
    if (result.timedOut) {
      return this.report(job, `the runner command timed out after ${formatMs(this.opts.timeoutMs)}; its process group was killed`, output);
    }
    if (result.code === 0) {
      await this.opts.reporter.turnCompleted(job.turn.session.session_id, output).catch(() => undefined);
      return;
    }
    const how = result.code !== null ? `exited with code ${result.code}` : `was killed by signal ${result.signal}`;
    const tail = redactor.tail(result.stderrTail, STDERR_TAIL_BYTES).trim().slice(-ERROR_TAIL_CHARS);
    return this.report(job, `the runner command ${how}${tail ? `: ${tail}` : ''}`, output);
  }

  private spawnChild(turn: Turn, env: TurnEnvironment): ChildProcess {
    const base = this.opts.baseEnv ?? process.env;
    // Only PATH and HOME of the daemon's own environment: its admin token and master key stay home.
    const childEnv: Record<string, string> = {};
    for (const name of ['PATH', 'HOME']) if (base[name] !== undefined) childEnv[name] = base[name]!;
    Object.assign(childEnv, env.vars, { SVC_SESSION_ID: turn.session.session_id });
    const child = spawn(this.opts.command, {
      shell: this.opts.shell ?? true,
      env: childEnv,
      // Its own process group, so a timeout or shutdown ends everything the command started.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin?.on('error', () => undefined); // a command that never reads stdin closes it early
    return child;
  }

  /**
   * The command's output, raw: stdout up to MAX_OUTPUT_BYTES and the stderr tail, each with
   * `margin` bytes more, so that a value crossing where they are cut is still whole when masked.
   */
  private collect(child: ChildProcess, turn: Turn, margin: number) {
    return new Promise<{ stdout: string; stderrTail: string; code: number | null; signal: string | null; timedOut: boolean }>((resolve) => {
      const out: Buffer[] = [];
      const outLimit = MAX_OUTPUT_BYTES + margin;
      const errLimit = STDERR_TAIL_BYTES + margin;
      let outBytes = 0;
      let errTail = Buffer.alloc(0);
      let timedOut = false;
      child.stdout!.on('data', (chunk: Buffer) => {
        const room = outLimit - outBytes;
        if (room <= 0) return;
        out.push(chunk.subarray(0, room));
        outBytes += Math.min(room, chunk.length);
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        errTail = Buffer.concat([errTail, chunk]);
        if (errTail.length > errLimit) errTail = errTail.subarray(errTail.length - errLimit);
      });
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child, 'SIGKILL');
      }, this.opts.timeoutMs);

      let exit: { code: number | null; signal: string | null } | undefined;
      let pipeGrace: NodeJS.Timeout | undefined;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearTimeout(pipeGrace);
        // The turn is over: what it started in the background (`cmd &` with its output sent
        // elsewhere) goes with it, or it would run past the timeout, the concurrency limit and
        // the daemon's stop.
        killGroup(child, 'SIGKILL');
        resolve({
          stdout: Buffer.concat(out).toString('utf8'),
          stderrTail: errTail.toString('utf8'),
          code: exit!.code,
          signal: exit!.signal,
          timedOut,
        });
      };
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        // Something the command left running may still hold its output open: give it a moment.
        pipeGrace = setTimeout(() => {
          killGroup(child, 'SIGKILL');
          child.stdout?.destroy();
          child.stderr?.destroy();
          finish();
        }, PIPE_GRACE_MS);
      });
      child.once('close', () => {
        if (exit) finish();
      });
      child.stdin!.end(JSON.stringify(turn));
    });
  }

  private async refuseOrReport(job: Job, reason: string): Promise<void> {
    if (job.handOver) {
      job.handOver.reject(new RunnerRefused(reason));
      job.handOver = undefined;
      return;
    }
    await this.report(job, reason);
  }

  private async report(job: Job, error: string, output?: string, interrupted = false): Promise<void> {
    await this.opts.reporter.turnFailed(job.turn.session.session_id, error, output || undefined, interrupted).catch(() => undefined);
  }
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is already gone
  }
}

function formatMs(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** The stored answer: stdout masked, at most MAX_OUTPUT_BYTES of it, saying when it was cut. */
function answerOf(redactor: Redactor, stdout: string): string {
  const kept = redactor.head(stdout, MAX_OUTPUT_BYTES);
  if (Buffer.byteLength(stdout) <= MAX_OUTPUT_BYTES) return kept.trimEnd();
  return `${kept.trimEnd()}\n[output truncated at ${MAX_OUTPUT_BYTES} bytes]`;
}

/** Why the command did not start; E2BIG is the one a team can mend, so it says how. */
function cannotStart(err: NodeJS.ErrnoException, env: TurnEnvironment): string {
  if (err.code !== 'E2BIG') return `could not start the runner command (${err.code ?? 'spawn error'})`;
  const bytes = Object.entries(env.vars).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value) + 2, 0);
  return `could not start the runner command (E2BIG: the session environment's variables, ${bytes} bytes in all, are more than the system lets a process start with; make them smaller or fewer)`;
}
