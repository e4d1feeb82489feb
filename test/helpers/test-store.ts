// Which store the daemons of this test run keep their state in. The `file` project (vitest.config.ts)
// runs every test on the JSON-file store in the data folder; the `postgres` project sets
// SVC_TEST_STORE=postgres and runs the daemon and CLI tests again, each daemon on a database of its
// own on the run's PostgreSQL server (postgres-server.ts).
//
// A daemon's database is named after its data folder, so a restart on the same folder (in this
// process or as `svc daemon start --data DIR --store URL`) finds the state it left, as the file
// store would, and a new folder starts empty.
import { createHash } from 'node:crypto';
import { resolve, sep } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore, type StoreLogger } from '../../daemon/store/index.js';
import { openPostgresStore } from '../../daemon/store/postgres/postgres-store.js';
import type { Store } from '../../daemon/store/store.js';
import { TEMPLATE_DATABASE } from './postgres-server.js';

export type TestStoreKind = 'file' | 'postgres';

export function testStoreKind(): TestStoreKind {
  return process.env.SVC_TEST_STORE === 'postgres' ? 'postgres' : 'file';
}

/**
 * The `store` a daemon on `dataDir` is given: undefined on the file project (the data folder is
 * the store), else the URL of the folder's database, created empty on first use.
 */
export async function testStoreFor(dataDir: string): Promise<string | undefined> {
  if (testStoreKind() === 'file') return undefined;
  const name = databaseName(dataDir);
  await admin(async (client) => {
    try {
      // The comment names the folder, so a sandbox's cleanup finds the databases of its folders.
      await client.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
      await client.query(`COMMENT ON DATABASE ${name} IS ${client.escapeLiteral(resolve(dataDir))}`);
    } catch (err) {
      if ((err as { code?: string }).code !== DUPLICATE_DATABASE) throw err;
    }
  });
  return databaseUrl(name);
}

/** `svc daemon start` flags that put the daemon on `dataDir` in this project's store. */
export async function testStoreArgs(dataDir: string): Promise<string[]> {
  const store = await testStoreFor(dataDir);
  return store === undefined ? [] : ['--store', store];
}

/**
 * Opens the store a daemon on `dataDir` uses, while no daemon does: for tests that seed or read
 * what a stopped (or crashed) daemon left.
 */
export async function openTestStore(dataDir: string, logger: StoreLogger = SILENT): Promise<Store> {
  const url = await testStoreFor(dataDir);
  return url === undefined ? openStore({ dataDir, logger }) : openPostgresStore({ url, logger });
}

/** Drops the databases of `dataDir` and of every folder under it (nothing on the file project). */
export async function dropTestStores(dataDir: string): Promise<void> {
  if (testStoreKind() === 'file') return;
  const folder = resolve(dataDir);
  await admin(async (client) => {
    const { rows } = await client.query<{ datname: string }>(
      `SELECT d.datname FROM pg_database d JOIN pg_shdescription c ON c.objoid = d.oid AND c.classoid = 'pg_database'::regclass
        WHERE c.description = $1 OR starts_with(c.description, $2)`,
      [folder, folder + sep],
    );
    // FORCE: a daemon killed with SIGKILL may leave connections the server has not noticed yet.
    for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(datname)} WITH (FORCE)`);
  });
}

const DUPLICATE_DATABASE = '42P04';
const SILENT: StoreLogger = { info() {}, warn() {}, error() {} };

/** `svc_` and a hash of the folder's absolute path: a valid identifier, unique per folder. */
function databaseName(dataDir: string): string {
  return `svc_${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 32)}`;
}

function adminUrl(): string {
  const url = inject('svcPostgresAdminUrl');
  if (!url) throw new Error('SVC_TEST_STORE=postgres but no PostgreSQL server was provided: run the postgres project of vitest.config.ts');
  return url;
}

function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
