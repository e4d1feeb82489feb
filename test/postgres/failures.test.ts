// The PostgreSQL store's own failure modes (CONTRACT §11), against a server of the test's own:
// the database stopped and started under load, a wrong master key, a schema newer than the daemon,
// a database that cannot be reached at start, text PostgreSQL cannot hold, and retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/server.js';
import type { RunningDaemon } from '../../daemon/config.js';
import { makeDataDir, requester } from '../helpers/daemon.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';

let cluster: PostgresCluster;
let databases = 0;

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 60_000);

afterAll(async () => {
  await cluster?.destroy();
});

const newDatabase = () => cluster.createDatabase(`failures_${++databases}`);

const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);

async function start(store: string, extra: Record<string, unknown> = {}): Promise<RunningDaemon & { dataDir: string }> {
  const dataDir = await makeDataDir();
  const d = await startDaemon({ port: 0, dataDir, store, logLevel: 'silent', rateLimit: 100_000, masterKey: KEY_A, ...extra });
  return { ...d, dataDir };
}

async function seedTeam(d: RunningDaemon) {
  const admin = requester(d.url, d.adminToken);
  expect((await admin('POST', '/admin/teams', { slug: 'acme', name: 'Acme' })).status).toBe(201);
  const key = (await admin('POST', '/admin/teams/acme/keys', { name: 'k' })).body.data.key as string;
  return requester(d.url, key);
}

describe('PostgreSQL store failures', () => {
  it('answers 503 while the database is stopped under load, loses nothing acknowledged, and serves again once it is back', async () => {
    const d = await start(await newDatabase());
    try {
      const api = await seedTeam(d);
      expect((await api('POST', '/teams/acme/automations', { name: 'on deploy', prompt: 'check', event_type: 'deploy' })).status).toBe(201);
      const acked: string[] = [];
      const statuses = new Set<number>();
      let n = 0;
      let sending = true;
      const sender = async () => {
        while (sending) {
          const id = `ev-${++n}`;
          const res = await api('POST', '/teams/acme/webhooks/events', { id, event_type: 'deploy' }).catch(() => ({ status: 0, body: undefined }));
          statuses.add(res.status);
          if (res.status === 200) acked.push(id);
          else expect([503, 0]).toContain(res.status);
        }
      };
      const senders = [sender(), sender(), sender()];
      await until(() => acked.length >= 20);
      await cluster.stop();
      const down = await requester(d.url, null)('GET', '/health');
      expect(down.status).toBe(503);
      expect(down.body.error.code).toBe('INTERNAL_ERROR');
      await until(() => statuses.has(503));
      await cluster.start();
      const ackedBefore = acked.length;
      await until(() => acked.length >= ackedBefore + 20, 30_000);
      sending = false;
      await Promise.all(senders);

      expect((await requester(d.url, null)('GET', '/health')).status).toBe(200);
      const stored = await allEventIds(api);
      for (const id of acked) expect(stored.has(id), `acknowledged event ${id} is stored`).toBe(true);
      // Each acknowledged event started its one session, and no event started two.
      const sessions = await allSessions(api);
      const byEvent = new Map<string, number>();
      for (const s of sessions) byEvent.set(s.event.id, (byEvent.get(s.event.id) ?? 0) + 1);
      for (const id of acked) expect(byEvent.get(id)).toBe(1);
      expect(Math.max(...byEvent.values())).toBe(1);
    } finally {
      await d.close();
    }
  }, 120_000);

  it('refuses to start with a master key that is not the database\'s, and changes nothing', async () => {
    const url = await newDatabase();
    const first = await start(url);
    const api = await seedTeam(first);
    expect((await api('PUT', '/teams/acme/env-vars/TOKEN', { value: 's3cret' })).status).toBe(200);
    await first.close();
    const before = (await cluster.query(`failures_${databases}`, "SELECT value FROM svc_meta WHERE key = 'master_key_check'")).rows;

    await expect(start(url, { masterKey: KEY_B })).rejects.toThrow(/not the key this database's values are sealed with/);

    expect((await cluster.query(`failures_${databases}`, "SELECT value FROM svc_meta WHERE key = 'master_key_check'")).rows).toEqual(before);
    // The right key still starts, and the value is still there.
    const again = await start(url);
    try {
      const team = await requester(again.url, again.adminToken)('GET', '/admin/teams');
      expect(team.body.data.map((t: { slug: string }) => t.slug)).toEqual(['acme']);
    } finally {
      await again.close();
    }
  }, 60_000);

  it('refuses a database whose schema is newer than this svc knows', async () => {
    const url = await newDatabase();
    const first = await start(url);
    await first.close();
    await cluster.query(`failures_${databases}`, "INSERT INTO svc_schema_migrations (version, name) VALUES (999, 'from the future')");
    await expect(start(url)).rejects.toThrow(/schema is version 999, newer than this svc knows/);
  }, 60_000);

  it('refuses to start when the database cannot be reached, naming it without its password', async () => {
    const err = await start(`postgres://postgres:hunter2@127.0.0.1:1/nowhere`).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/cannot reach the PostgreSQL database at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nowhere/);
    expect((err as Error).message).not.toContain('hunter2');
  });

  it('answers 503, not 429, while the rate limits cannot be counted, and counts on once the database is back', async () => {
    // (a clock that stands still: the window does not turn while the test runs)
    const at = new Date('2026-06-01T12:00:10Z');
    const d = await start(await newDatabase(), { rateLimit: 3, authFailureLimit: 1, now: () => at });
    try {
      const api = await seedTeam(d);
      expect((await api('GET', '/teams/acme/automations')).headers.get('x-ratelimit-remaining')).toBe('2');
      await cluster.stop();
      try {
        for (const token of [null, 'svc_team_notakey0000000000000000000000000']) {
          for (let i = 0; i < 3; i++) {
            const res = await requester(d.url, token)('GET', '/teams/acme/automations');
            expect(res.status).toBe(503);
            expect(res.body.error.code).toBe('INTERNAL_ERROR');
          }
        }
        expect((await api('GET', '/teams/acme/automations')).status).toBe(503);
      } finally {
        await cluster.start();
      }
      // (nothing was counted while it was away)
      await until(async () => (await api('GET', '/health')).status === 200);
      expect((await api('GET', '/teams/acme/automations')).headers.get('x-ratelimit-remaining')).toBe('1');
    } finally {
      await d.close();
    }
  }, 60_000);

  it('refuses text PostgreSQL cannot hold with 400, storing nothing', async () => {
    const d = await start(await newDatabase());
    try {
      const api = await seedTeam(d);
      const res = await api('POST', '/teams/acme/automations', { name: 'nul', prompt: 'a\u0000b', event_type: 'deploy' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/U\+0000|\\u0000|NUL/);
      expect((await api('GET', '/teams/acme/automations')).body.data).toEqual([]);
    } finally {
      await d.close();
    }
  }, 60_000);

  it('deletes events and finished sessions past the retention period at start', async () => {
    const url = await newDatabase();
    const t0 = new Date('2026-01-01T00:00:00Z');
    const first = await start(url, { now: () => t0 });
    const api = await seedTeam(first);
    await api('POST', '/teams/acme/automations', { name: 'a', prompt: 'p', event_type: 'deploy' });
    expect((await api('POST', '/teams/acme/webhooks/events', { id: 'old', event_type: 'deploy' })).status).toBe(200);
    await first.close();

    const later = new Date(t0.getTime() + 31 * 24 * 60 * 60 * 1000);
    const second = await start(url, { now: () => later, retentionDays: 30, dataDir: first.dataDir });
    try {
      await until(async () => Number((await cluster.query(`failures_${databases}`, 'SELECT count(*) AS n FROM events')).rows[0].n) === 0);
      expect(Number((await cluster.query(`failures_${databases}`, 'SELECT count(*) AS n FROM sessions')).rows[0].n)).toBe(0);
      expect(Number((await cluster.query(`failures_${databases}`, 'SELECT count(*) AS n FROM automations')).rows[0].n)).toBe(1);
    } finally {
      await second.close();
    }
  }, 60_000);
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Api = ReturnType<typeof requester>;

async function allPages<T>(api: Api, path: string): Promise<T[]> {
  const out: T[] = [];
  let cursor: string | undefined;
  do {
    const res = await api('GET', `${path}?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.next_cursor;
  } while (cursor);
  return out;
}

const allEventIds = async (api: Api) => new Set((await allPages<{ id: string }>(api, '/teams/acme/events')).map((e) => e.id));
const allSessions = (api: Api) => allPages<{ event: { id: string } }>(api, '/teams/acme/sessions');
