// globalSetup of the postgres project (vitest.config.ts): one real PostgreSQL server for the whole
// run, started before the first test file and stopped after the last. Each test daemon gets a
// database of its own on it (test-store.ts), so the server is shared and the data is not.
import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** a superuser URL of the run's PostgreSQL server, database `postgres` (postgres project only) */
    svcPostgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject) {
  // Not persistent: its files go when it stops, also when an interrupted run stops it on exit.
  const cluster = await startPostgresCluster({ persistent: false });
  project.provide('svcPostgresAdminUrl', cluster.url('postgres'));
  return () => cluster.destroy();
}
