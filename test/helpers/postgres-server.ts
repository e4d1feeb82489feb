// globalSetup of the postgres project (vitest.config.ts): one real PostgreSQL server for the whole
// run, started before the first test file and stopped after the last. Each test daemon gets a
// database of its own on it (test-store.ts), so the server is shared and the data is not.
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { migrate } from '../../daemon/store/postgres/migrate.js';
import { startPostgresCluster } from './postgres-cluster.js';

/**
 * A database holding svc's schema and nothing else: test databases are copied from it (a file copy
 * on the server), so a test daemon starts on a migrated database instead of migrating its own.
 */
export const TEMPLATE_DATABASE = 'svc_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** a superuser URL of the run's PostgreSQL server, database `postgres` (postgres project only) */
    svcPostgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
  // Not persistent: its files go when it stops, also when an interrupted run stops it on exit.
  const cluster = await startPostgresCluster({ persistent: false });
  await cluster.createDatabase(TEMPLATE_DATABASE);
  const client = new pg.Client({ connectionString: cluster.url(TEMPLATE_DATABASE) });
  await client.connect();
  try {
    await migrate(client);
  } finally {
    await client.end();
  }
  project.provide('svcPostgresAdminUrl', cluster.url('postgres'));
  return () => cluster.destroy();
}
