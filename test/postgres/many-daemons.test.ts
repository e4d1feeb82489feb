// Two daemon processes on one PostgreSQL database (CONTRACT §11): what the store promises within
// one daemon holds across them, under concurrent requests spread over both.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, spawnSvc, type CliSandbox, type SvcProcess } from '../helpers/cli.js';
import { requester, type Requester } from '../helpers/daemon.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';

const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
const ADMIN_TOKEN = `svc_admin_${'t'.repeat(32)}`;
const MASTER_KEY = 'c'.repeat(64);

let cluster: PostgresCluster;
let sandbox: CliSandbox;
let databases = 0;
const procs: SvcProcess[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
  sandbox = await makeSandbox();
}, 60_000);

afterEach(() => {
  for (const p of procs.splice(0)) p.kill();
});

afterAll(async () => {
  await sandbox?.cleanup();
  await cluster?.destroy();
});

interface Daemon {
  admin: Requester;
  as(key: string): Requester;
}

/** `limits`: rate-limit flags, in place of a limit no test reaches */
async function startDaemonProcess(store: string, name: string, limits: string[] = ['--rate-limit', '100000']): Promise<Daemon> {
  const env = { SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_MASTER_KEY: MASTER_KEY };
  const args = ['daemon', 'start', '--store', store, '--data', join(sandbox.home, name), '--port', '0', ...limits, '--log-level', 'warn'];
  const p = spawnSvc(sandbox, args, { env });
  procs.push(p);
  const url = READY.exec(await p.waitForLine(READY))![1];
  return { admin: requester(url, ADMIN_TOKEN), as: (key) => requester(url, key) };
}

/** A database, a team and a key, and two daemons on it. */
async function twoDaemons() {
  const store = await cluster.createDatabase(`many_${++databases}`);
  const a = await startDaemonProcess(store, `a${databases}`);
  expect((await a.admin('POST', '/admin/teams', { slug: 'acme', name: 'Acme' })).status).toBe(201);
  const key = (await a.admin('POST', '/admin/teams/acme/keys', { name: 'k' })).body.data.key as string;
  return { store, a, key, apiA: a.as(key), start: (name: string) => startDaemonProcess(store, name) };
}

/** A database, a team and a key, and three daemons on it started with `limits`. */
async function threeDaemons(limits: string[]) {
  const store = await cluster.createDatabase(`many_${++databases}`);
  const daemons = await Promise.all(['a', 'b', 'c'].map((n) => startDaemonProcess(store, `${n}${databases}`, limits)));
  expect((await daemons[0].admin('POST', '/admin/teams', { slug: 'acme', name: 'Acme' })).status).toBe(201);
  const key = (await daemons[0].admin('POST', '/admin/teams/acme/keys', { name: 'k' })).body.data.key as string;
  return { daemons, key };
}

/**
 * Windows are whole clock minutes: with less than 15 s of this one left, waits for the next, so a
 * test's requests all fall in one window.
 */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

describe('rate limits across three daemons on one PostgreSQL database', () => {
  it('the 61st request of a window is 429, with 60 spread over the daemons before it and Remaining counted down across them', async () => {
    const { daemons, key } = await threeDaemons(['--rate-limit', '60']);
    const apis = daemons.map((d) => d.as(key));
    await awayFromWindowEdge();
    const first = await Promise.all(Array.from({ length: 60 }, (_, i) => apis[i % 3]('GET', '/teams/acme/automations')));
    expect(first.map((r) => r.status)).toEqual(Array(60).fill(200));
    expect(first.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(Array(60).fill('60'));
    // Each request was counted once, whichever daemon took it: 59 down to 0, each value once.
    const remaining = first.map((r) => Number(r.headers.get('x-ratelimit-remaining'))).sort((a, b) => b - a);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(new Set(first.map((r) => r.headers.get('x-ratelimit-reset'))).size).toBe(1);

    const sixtyFirst = await apis[0]('GET', '/teams/acme/automations');
    expect(sixtyFirst.status).toBe(429);
    expect(sixtyFirst.body.error.code).toBe('RATE_LIMITED');
    expect(sixtyFirst.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(sixtyFirst.headers.get('retry-after'))).toBeGreaterThan(0);
    // and on every other daemon too
    for (const api of apis.slice(1)) expect((await api('GET', '/teams/acme/automations')).status).toBe(429);
  }, 120_000);

  it('failed authentications from one address, spread over the daemons, reach the failure limit together', async () => {
    const { daemons, key } = await threeDaemons(['--rate-limit', '1000', '--auth-failure-limit', '5']);
    await awayFromWindowEdge();
    const guesses = daemons.map((d) => d.as('svc_team_notakey0000000000000000000000000'));
    for (let i = 0; i < 5; i++) expect((await guesses[i % 3]('GET', '/teams/acme/automations')).status, `guess ${i + 1}`).toBe(401);
    // The 6th guess, on whichever daemon, and then even a valid key from that address: 429.
    for (const guess of guesses) {
      const refused = await guess('GET', '/teams/acme/automations');
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(/too many failed authentications/);
    }
    for (const d of daemons) expect((await d.as(key)('GET', '/teams/acme/automations')).status).toBe(429);
  }, 120_000);
});

describe('two daemons on one PostgreSQL database', () => {
  it('20 concurrent creates of one name, spread over both: one 201, the rest 409', async () => {
    const { apiA, key, start } = await twoDaemons();
    const apiB = (await start(`b${databases}`)).as(key);
    const creates = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? apiA : apiB)('POST', '/teams/acme/automations', { name: i % 4 < 2 ? 'Nightly' : 'NIGHTLY', prompt: 'p', event_type: 'x' }),
    );
    const statuses = (await Promise.all(creates)).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect((await apiB('GET', '/teams/acme/automations')).body.data).toHaveLength(1);
  }, 90_000);

  it('50 concurrent sends of one event id, spread over both: one session per matching automation', async () => {
    const { apiA, key, start } = await twoDaemons();
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const res = await apiA('POST', '/teams/acme/automations', { name, prompt: 'p', event_type: 'deploy' });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    // B starts after the automations exist, so both daemons hold the same triggers.
    const apiB = (await start(`b${databases}`)).as(key);
    const sends = Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? apiA : apiB)('POST', '/teams/acme/webhooks/events', { id: 'deploy-42', event_type: 'deploy' }));
    const answers = await Promise.all(sends);
    for (const r of answers) {
      expect(r.status).toBe(200);
      expect(r.body.data.dispatched.map((d: { automationId: string }) => d.automationId).sort()).toEqual([...ids].sort());
    }
    const sessions = (await apiB('GET', '/teams/acme/sessions?limit=200')).body.data as { automation_id: string }[];
    expect(sessions.map((s) => s.automation_id).sort()).toEqual([...ids].sort());
  }, 90_000);

  it('a key revoked through one daemon gets 401 from the other at once', async () => {
    const { a, key, start } = await twoDaemons();
    const b = await start(`b${databases}`);
    expect((await b.as(key)('GET', '/teams/acme/automations')).status).toBe(200);
    const keys = (await a.admin('GET', '/admin/teams/acme/keys')).body.data as { id: string }[];
    expect((await a.admin('DELETE', `/admin/teams/acme/keys/${keys[0].id}`)).status).toBe(200);
    expect((await b.as(key)('GET', '/teams/acme/automations')).status).toBe(401);
  }, 90_000);

  it('run-now on both daemons while both schedulers fire the same slots: every counter exact', async () => {
    const { apiA, key, start } = await twoDaemons();
    const due = new Date(Date.now() + 4000).toISOString();
    const triggers = Array.from({ length: 10 }, () => ({ kind: 'schedule', one_off_at: due }));
    const created = await apiA('POST', '/teams/acme/automations', { name: 'burst', prompt: 'p', triggers });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    // B starts after the triggers exist, so both schedulers hold every slot.
    const apiB = (await start(`b${databases}`)).as(key);
    const runs = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? apiA : apiB)('POST', `/teams/acme/automations/${id}/runs`));
    for (const r of await Promise.all(runs)) expect([200, 201]).toContain(r.status);

    let automation: { total_runs: number; triggers: { total_runs: number; next_run_at: string | null }[] } | undefined;
    for (let i = 0; i < 200; i++) {
      automation = (await apiB('GET', `/teams/acme/automations/${id}`)).body.data;
      if (automation!.triggers.every((t) => t.next_run_at === null)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(automation!.total_runs).toBe(10);
    expect(automation!.triggers.map((t) => t.total_runs)).toEqual(Array(10).fill(1));
    const sessions = (await apiA('GET', `/teams/acme/automations/${id}/runs?limit=200`)).body.data as { idempotency_key: string | null }[];
    expect(sessions).toHaveLength(30);
    const scheduled = sessions.filter((s) => s.idempotency_key?.startsWith('schedule:'));
    expect(new Set(scheduled.map((s) => s.idempotency_key)).size).toBe(10);
  }, 90_000);
});
