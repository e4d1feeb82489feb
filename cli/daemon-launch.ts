// What `svc daemon start` and `svc dev` share: their flags, turning flags into DaemonOptions
// (flags over SVC_* environment over defaults), and running until SIGINT/SIGTERM.
import { type DaemonOptions, optionsFromEnv, type RunningDaemon, type RunnerKind } from '../daemon/config.js';
import { integer, type OptionDefinition, parseDuration } from './command.js';
import { isPostgresUrl, redactUrl } from '../daemon/store/store-url.js';
import { type Context } from './context.js';
import { createDevLogStream, type DevLogStream, LOG_FORMATS, type LogFormat } from './dev-log.js';
import { UsageError } from './errors.js';

export interface DaemonFlags extends Record<string, unknown> {
  data?: string;
  store?: string;
  /** milliseconds (parsed from a duration) */
  leaseTtl?: number;
  poolSize?: number;
  host?: string;
  port?: number;
  rateLimit?: number;
  adminRateLimit?: number;
  authFailureLimit?: number;
  deliveryRateLimit?: number;
  runner?: RunnerKind;
  runnerCommand?: string;
  runnerUrl?: string;
  /** seconds */
  runnerTimeout?: number;
  runnerConcurrency?: number;
  runnerSecret?: string;
  /** milliseconds (parsed from a duration) */
  catchUpWindow?: number;
  retentionDays?: number;
  logLevel?: string;
  logFormat?: LogFormat;
}

export const RUNNER_OPTIONS: readonly OptionDefinition[] = [
  { flags: '--runner <kind>', description: 'what executes a session: record (default), exec or webhook', choices: ['record', 'exec', 'webhook'] },
  { flags: '--runner-command <cmd>', description: 'shell command run once per turn (with --runner exec)' },
  { flags: '--runner-url <url>', description: 'URL each turn is POSTed to (with --runner webhook)' },
  { flags: '--runner-timeout <seconds>', description: 'time limit per turn (default 600)', parse: integer({ min: 1 }) },
  { flags: '--runner-concurrency <n>', description: 'commands run at once with --runner exec (default 4)', parse: integer({ min: 1, max: 1024 }) },
  {
    flags: '--runner-secret <secret>',
    description: 'HMAC key of the webhook signature (default: SVC_RUNNER_SECRET, else one generated into DATA/runner-secret)',
  },
];

export const DAEMON_OPTIONS: readonly OptionDefinition[] = [
  { flags: '--data <dir>', description: 'data folder (default: SVC_DATA_DIR, else the user data folder for svc)' },
  {
    flags: '--store <url|dir>',
    description: 'where state lives: a postgres:// URL (PostgreSQL 15+, shared by any number of daemons), or a folder for the JSON-file store (default: SVC_STORE, else --data)',
  },
  { flags: '--host <host>', description: 'address to listen on (default 127.0.0.1, or SVC_HOST)' },
  { flags: '--port <port>', description: 'port (default 8787, or SVC_PORT); 0 picks a free one', parse: integer({ min: 0, max: 65535 }) },
  { flags: '--rate-limit <n>', description: 'requests per minute per team or project key (default 60)', parse: integer({ min: 1 }) },
  { flags: '--admin-rate-limit <n>', description: 'requests per minute for the admin token (default 600)', parse: integer({ min: 1 }) },
  { flags: '--auth-failure-limit <n>', description: 'failed authentications per minute per client address (default 30)', parse: integer({ min: 1 }) },
  { flags: '--delivery-rate-limit <n>', description: 'provider deliveries per minute per connection (default 600)', parse: integer({ min: 1 }) },
  ...RUNNER_OPTIONS,
  { flags: '--catch-up-window <duration>', description: 'a missed schedule slot this recent still runs once after a restart: 90s, 15m, 1h, 2d, or seconds (default 1h)', parse: parseDuration },
  { flags: '--lease-ttl <duration>', description: 'how long a schedule lease, or a daemon\'s claim on its sessions, lasts before another daemon may take it over: 30s, 2m, or seconds (default 30s)', parse: parseDuration },
  { flags: '--pool-size <n>', description: 'connections to a PostgreSQL store at most (default 10)', parse: integer({ min: 1, max: 1000 }) },
  { flags: '--retention-days <n>', description: 'drop events and finished sessions older than this (default 30)', parse: integer({ min: 1 }) },
  { flags: '--log-level <level>', description: 'log level on stderr (default info)', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
  { flags: '--log-format <format>', description: 'log lines on stderr: json (default), or pretty: one readable line per request', choices: LOG_FORMATS },
];

/**
 * The stream the daemon's log lines go to for `format`: none (pino's JSON on stderr) for json,
 * else readable lines on stderr, coloured as the CLI's other stderr output is.
 */
export function logStreamFor(format: LogFormat, ctx: Context): DevLogStream | undefined {
  if (format === 'json') return undefined;
  return createDevLogStream({ write: (text) => ctx.io.stderr.write(text), chalk: ctx.out.chalkErr });
}

export function buildDaemonOptions(flags: DaemonFlags, env: NodeJS.ProcessEnv, defaultDataDir: string): DaemonOptions {
  const fromEnv = optionsFromEnv(env);
  if (fromEnv.port !== undefined && !(Number.isInteger(fromEnv.port) && fromEnv.port >= 0 && fromEnv.port <= 65535)) {
    throw new UsageError(`SVC_PORT must be a port number (0-65535)`);
  }
  const fromFlags: Partial<DaemonOptions> = {};
  if (flags.data !== undefined) fromFlags.dataDir = flags.data;
  if (flags.store !== undefined) fromFlags.store = flags.store;
  if (flags.leaseTtl !== undefined) fromFlags.leaseTtlMs = flags.leaseTtl;
  if (flags.poolSize !== undefined) fromFlags.poolSize = flags.poolSize;
  if (flags.host !== undefined) fromFlags.host = flags.host;
  if (flags.port !== undefined) fromFlags.port = flags.port;
  if (flags.rateLimit !== undefined) fromFlags.rateLimit = flags.rateLimit;
  if (flags.adminRateLimit !== undefined) fromFlags.adminRateLimit = flags.adminRateLimit;
  if (flags.authFailureLimit !== undefined) fromFlags.authFailureLimit = flags.authFailureLimit;
  if (flags.deliveryRateLimit !== undefined) fromFlags.deliveryRateLimit = flags.deliveryRateLimit;
  if (flags.runner !== undefined) fromFlags.runner = flags.runner;
  if (flags.runnerCommand !== undefined) fromFlags.runnerCommand = flags.runnerCommand;
  if (flags.runnerUrl !== undefined) fromFlags.runnerUrl = flags.runnerUrl;
  if (flags.runnerTimeout !== undefined) fromFlags.runnerTimeoutMs = flags.runnerTimeout * 1000;
  if (flags.runnerConcurrency !== undefined) fromFlags.runnerConcurrency = flags.runnerConcurrency;
  if (flags.runnerSecret !== undefined) fromFlags.runnerSecret = flags.runnerSecret;
  if (flags.catchUpWindow !== undefined) fromFlags.catchUpWindowMs = flags.catchUpWindow;
  if (flags.retentionDays !== undefined) fromFlags.retentionDays = flags.retentionDays;
  if (flags.logLevel !== undefined) fromFlags.logLevel = flags.logLevel;

  const options: DaemonOptions = { ...fromEnv, ...fromFlags, dataDir: fromFlags.dataDir ?? fromEnv.dataDir ?? defaultDataDir };
  // A flag of another runner would be ignored without a word: the user meant that runner.
  if (flags.runnerCommand !== undefined && options.runner !== 'exec') throw new UsageError('--runner-command is for --runner exec: add --runner exec');
  if (flags.runnerUrl !== undefined && options.runner !== 'webhook') throw new UsageError('--runner-url is for --runner webhook: add --runner webhook');
  if (options.runner === 'exec' && !options.runnerCommand?.trim()) throw new UsageError('--runner exec needs --runner-command CMD');
  if (options.runner === 'webhook' && !options.runnerUrl) throw new UsageError('--runner webhook needs --runner-url URL');
  if (options.runnerSecret !== undefined && !options.runnerSecret.trim()) throw new UsageError('--runner-secret (or SVC_RUNNER_SECRET) must not be empty');
  if (options.runnerUrl) {
    let url: URL;
    try {
      url = new URL(options.runnerUrl);
    } catch {
      throw new UsageError(`--runner-url is not a URL: ${options.runnerUrl}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--runner-url must be an http(s) URL: ${options.runnerUrl}`);
  }
  return options;
}

export interface SignalWatch {
  /** the next signal received (or one received already and not yet taken) */
  next(): Promise<NodeJS.Signals>;
  dispose(): void;
}

/**
 * Listens for `signals` from now until dispose(). The listeners stay installed throughout:
 * removing the last one restores the default action (die at once), and re-adding it was seen to
 * see the same signal twice.
 */
export function watchSignals(signals: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM']): SignalWatch {
  // Past a file-size limit (ulimit -f) the kernel sends SIGXFSZ, whose default kills the process
  // without a word; ignored, the write fails with EFBIG and the store's failure path answers.
  if (process.platform !== 'win32' && process.listenerCount('SIGXFSZ') === 0) process.on('SIGXFSZ', () => undefined);
  const pending: NodeJS.Signals[] = [];
  const waiters: ((s: NodeJS.Signals) => void)[] = [];
  const handler = (signal: NodeJS.Signals) => {
    const waiter = waiters.shift();
    if (waiter) waiter(signal);
    else pending.push(signal);
  };
  for (const s of signals) process.on(s, handler);
  return {
    next: () => {
      const already = pending.shift();
      return already ? Promise.resolve(already) : new Promise((resolve) => waiters.push(resolve));
    },
    dispose: () => {
      for (const s of signals) process.off(s, handler);
    },
  };
}

/**
 * Keeps the daemon running until SIGINT/SIGTERM, then closes it: in-flight requests and store
 * writes finish. Further signals while closing are ignored rather than taken as "force": conf's
 * atomic-write dependency (when-exit) re-raises every signal it sees once, so a single Ctrl-C
 * arrives twice once the config has been written, and a forced exit could cut a store write.
 * `kill -9` still forces, and a killed daemon's lock does not block the next start.
 */
export async function serveUntilSignal(daemon: RunningDaemon, ctx: Context, signals: SignalWatch): Promise<void> {
  const signal = await signals.next();
  ctx.out.status(`Received ${signal}: stopping the daemon…`);
  const slow = setTimeout(() => ctx.out.status('Still stopping: waiting for in-flight requests and store writes (kill -9 forces).'), 5000);
  slow.unref();
  try {
    await daemon.close();
  } finally {
    clearTimeout(slow);
  }
  // The listeners stay installed until the process exits: a duplicate arriving after them would
  // otherwise get the default action and kill the process with a non-zero status.
  ctx.out.status('Daemon stopped.');
}

/**
 * Starts the daemon and prints the one stdout line scripts wait for: text, or under --json
 * nothing yet (the command prints its JSON line once ready, see announceJson).
 */
export async function startAndAnnounce(options: DaemonOptions, ctx: Context): Promise<RunningDaemon> {
  const { startDaemon } = await import('../daemon/server.js');
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon(options);
  } catch (err) {
    // Node's own "listen EADDRINUSE: ..." says what, not what to do about it.
    const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
    if (e?.code === 'EADDRINUSE') {
      const where = e.port !== undefined ? `port ${e.port}${e.address ? ` on ${e.address}` : ''}` : 'the port';
      throw new Error(`${where} is already in use: stop what holds it, or pick another with --port (0 picks a free one)`, { cause: err });
    }
    throw err;
  }
  if (!ctx.globals.json) ctx.io.stdout.write(`svc daemon listening on ${daemon.url}\n`);
  return daemon;
}

/** Under --json, the one stdout line: what a script needs to reach the daemon, as JSON. */
export function announceJson(ctx: Context, daemon: RunningDaemon, options: DaemonOptions, extra: Record<string, unknown> = {}): void {
  if (!ctx.globals.json) return;
  const store = options.store !== undefined && isPostgresUrl(options.store) ? redactUrl(options.store) : (options.store ?? options.dataDir);
  const ready = { url: daemon.url, data_dir: options.dataDir, store, runner: options.runner ?? 'record', pid: process.pid, ...extra };
  ctx.io.stdout.write(`${JSON.stringify(ready)}\n`);
}
