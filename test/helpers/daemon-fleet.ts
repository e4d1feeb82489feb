// Daemon processes on one PostgreSQL database (CONTRACT §11): the real `svc daemon start`, each with
// its own local folder, all with the same admin token and master key, as a fleet is run.
import { join } from 'node:path';
import { afterAll, beforeAll, test } from 'vitest';
import { makeSandbox, spawnSvc, type CliSandbox, type SvcProcess } from './cli.js';
import { requester, type Requester } from './daemon.js';
import { startPostgresCluster, type PostgresCluster } from './postgres-cluster.js';

const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
export const FLEET_ADMIN_TOKEN = `svc_admin_${'t'.repeat(32)}`;
const MASTER_KEY = 'c'.repeat(64);

export interface FleetDaemon {
  process: SvcProcess;
  url: string;
  admin: Requester;
  as(key: string): Requester;
}

export interface FleetDaemonOptions {
  /** more `svc daemon start` flags */
  args?: readonly string[];
  env?: Record<string, string>;
}

/** A test's daemons on the file's PostgreSQL server: the daemons it starts are killed when it ends. */
export interface Fleet {
  readonly cluster: PostgresCluster;
  /** a new database on the server, numbered: its name, URL and number (for folder names) */
  database(prefix: string): Promise<{ name: string; url: string; n: number }>;
  /** one daemon process on `store`, its local folder `name` in the sandbox */
  start(store: string, name: string, opts?: FleetDaemonOptions): Promise<FleetDaemon>;
}

/**
 * Registers a test file's hooks (a server and sandbox of its own for the file) and returns its
 * `it`, whose tests take a `fleet`. The daemons a test starts are its own and go when it ends, so
 * tests that mostly wait on lease and claim expiries can run side by side (`describe.concurrent`),
 * each on a database of its own.
 */
export function fleetTest() {
  let cluster: PostgresCluster | undefined;
  let sandbox: CliSandbox | undefined;
  let databases = 0;
  beforeAll(async () => {
    cluster = await startPostgresCluster();
    sandbox = await makeSandbox();
  }, 60_000);
  afterAll(async () => {
    await sandbox?.cleanup();
    await cluster?.destroy();
  });
  return test.extend<{ fleet: Fleet }>({
    // (vitest reads the fixtures a fixture needs from the pattern of its first parameter: none here)
    fleet: async ({}, use) => {
      const procs: SvcProcess[] = [];
      await use({
        get cluster() {
          return cluster!;
        },
        async database(prefix) {
          const n = ++databases;
          const name = `${prefix}_${n}`;
          return { name, url: await cluster!.createDatabase(name), n };
        },
        start: (store, name, opts) => startFleetDaemon(sandbox!, procs, store, name, opts),
      });
      for (const p of procs) p.kill();
    },
  });
}

/** Starts one daemon process on `store`, its local folder `name` in the sandbox; `procs` collects it for killing. */
async function startFleetDaemon(sandbox: CliSandbox, procs: SvcProcess[], store: string, name: string, opts: FleetDaemonOptions = {}): Promise<FleetDaemon> {
  const env = { SVC_ADMIN_TOKEN: FLEET_ADMIN_TOKEN, SVC_MASTER_KEY: MASTER_KEY, ...opts.env };
  const args = ['daemon', 'start', '--store', store, '--data', join(sandbox.home, name), '--port', '0', '--log-level', 'warn', ...(opts.args ?? [])];
  const p = spawnSvc(sandbox, args, { env });
  procs.push(p);
  const url = READY.exec(await p.waitForLine(READY, 30_000))![1];
  return { process: p, url, admin: requester(url, FLEET_ADMIN_TOKEN), as: (key) => requester(url, key) };
}

/** Creates team `slug` through `d` and returns a team key for it. */
export async function fleetTeam(d: FleetDaemon, slug = 'acme'): Promise<string> {
  const team = await d.admin('POST', '/admin/teams', { slug, name: slug.toUpperCase() });
  if (team.status !== 201) throw new Error(`team create failed: ${JSON.stringify(team.body)}`);
  const key = await d.admin('POST', `/admin/teams/${slug}/keys`, { name: 'fleet' });
  if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
  return key.body.data.key as string;
}
