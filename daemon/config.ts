// Everything a daemon instance is configured with. `svc daemon start`, `svc dev`, the tests and
// the benchmarks all build one of these and hand it to startDaemon().

export type RunnerKind = 'record' | 'exec' | 'webhook';

/** how long a schedule lease, or a daemon's claim on its sessions, lasts (`--lease-ttl`, CONTRACT §11) */
export const DEFAULT_LEASE_TTL_MS = 30_000;

export interface DaemonOptions {
  /**
   * folder for the journal, snapshot, admin token, master key and lock; with a PostgreSQL `store`,
   * only for the admin token and master key (when SVC_ADMIN_TOKEN / SVC_MASTER_KEY are unset)
   */
  dataDir: string;
  /**
   * where state lives (CONTRACT §11): a `postgres://` or `postgresql://` URL, or a folder for the
   * JSON-file store (the default: `dataDir`)
   */
  store?: string;
  /** connections each daemon keeps to a PostgreSQL store at most (default 10) */
  poolSize?: number;
  /**
   * how long a schedule lease, or a daemon's claim on its sessions (sessions/claims.ts), lasts
   * before another daemon may take it over (default 30 s)
   */
  leaseTtlMs?: number;
  host?: string; // default 127.0.0.1
  /**
   * the daemon's root URL as providers reach it (`--public-url`, SVC_PUBLIC_URL), behind a proxy:
   * connections' webhook_url start with it (plus `/api/v1`); without it, with what the request
   * that asks for one says (its protocol and Host header)
   */
  publicUrl?: string;
  port?: number; // default 8787; 0 picks a free port
  /** requests per minute per team/project key (default 60) */
  rateLimit?: number;
  /** requests per minute for the admin token (default 600) */
  adminRateLimit?: number;
  /** failed authentications per minute per client address (default 30) */
  authFailureLimit?: number;
  /** provider deliveries per minute per connection (default 600) */
  deliveryRateLimit?: number;
  /**
   * SVC_GITHUB_WEBHOOK_SECRET: the webhook secret of the service's own GitHub App, whose
   * deliveries for every team arrive at `POST /hooks/github` (closed without it)
   */
  githubWebhookSecret?: string;
  /** SVC_ADMIN_TOKEN; generated into DIR/admin-token when absent */
  adminToken?: string;
  /** SVC_MASTER_KEY (64 hex chars or base64 of 32 bytes); generated into DIR/master.key when absent */
  masterKey?: string;
  runner?: RunnerKind;
  runnerCommand?: string;
  runnerUrl?: string;
  /** secret for the webhook runner's X-Svc-Signature HMAC */
  runnerSecret?: string;
  runnerTimeoutMs?: number; // default 10 min
  runnerConcurrency?: number; // default 4
  /** newest missed schedule slot within this window gets one catch-up run (default 1 h) */
  catchUpWindowMs?: number;
  /** events and finished sessions older than this are dropped at compaction (default 30 days) */
  retentionDays?: number;
  githubApiUrl?: string;
  githubRawUrl?: string;
  githubToken?: string;
  /** pino level; 'silent' in tests */
  logLevel?: string;
  /**
   * where the JSON log lines go instead of stderr, one line per write: `svc dev` on a terminal
   * turns them into readable lines
   */
  logStream?: { write(line: string): void };
  /** journal size that triggers a compacted snapshot (bytes, default 64 MiB) */
  compactThresholdBytes?: number;
  /** for tests: a clock the scheduler and timestamps read */
  now?: () => Date;
}

/** Reads the SVC_* environment variables that map onto DaemonOptions (flags override them). */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): Partial<DaemonOptions> {
  const out: Partial<DaemonOptions> = {};
  if (env.SVC_DATA_DIR) out.dataDir = env.SVC_DATA_DIR;
  if (env.SVC_STORE) out.store = env.SVC_STORE;
  if (env.SVC_HOST) out.host = env.SVC_HOST;
  if (env.SVC_PUBLIC_URL) out.publicUrl = env.SVC_PUBLIC_URL;
  if (env.SVC_PORT) out.port = Number(env.SVC_PORT);
  if (env.SVC_ADMIN_TOKEN) out.adminToken = env.SVC_ADMIN_TOKEN;
  if (env.SVC_MASTER_KEY) out.masterKey = env.SVC_MASTER_KEY;
  if (env.SVC_GITHUB_API_URL) out.githubApiUrl = env.SVC_GITHUB_API_URL;
  if (env.SVC_GITHUB_RAW_URL) out.githubRawUrl = env.SVC_GITHUB_RAW_URL;
  if (env.SVC_GITHUB_TOKEN) out.githubToken = env.SVC_GITHUB_TOKEN;
  if (env.SVC_LOG_LEVEL) out.logLevel = env.SVC_LOG_LEVEL;
  // An environment variable keeps the webhook key out of `ps`, where a flag would show it.
  if (env.SVC_RUNNER_SECRET !== undefined) out.runnerSecret = env.SVC_RUNNER_SECRET;
  if (env.SVC_GITHUB_WEBHOOK_SECRET) out.githubWebhookSecret = env.SVC_GITHUB_WEBHOOK_SECRET;
  return out;
}

export interface RunningDaemon {
  /** base URL including /api/v1, with the real port */
  url: string;
  port: number;
  /** the admin token in force (never printed by the daemon) */
  adminToken: string;
  close(): Promise<void>;
}
