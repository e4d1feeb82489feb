// Three daemon processes on one PostgreSQL database, their schedulers firing the same slots
// (CONTRACT §11, issue 27): each slot starts exactly one session whichever daemons are up, a
// daemon that dies mid-burst leaves its slots to the others once its leases expire, and a change
// made through one daemon reaches every daemon's scheduler within a second.
import { describe, expect } from 'vitest';
import { fleetTeam, fleetTest, type Fleet, type FleetDaemon } from '../helpers/daemon-fleet.js';
import type { Requester } from '../helpers/daemon.js';

const LEASE_TTL_S = 3;

const it = fleetTest();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Three daemons on a new database (`env` per daemon, by index), a team and its key. */
async function threeDaemons(fleet: Fleet, env: (Record<string, string> | undefined)[] = []): Promise<{ daemons: FleetDaemon[]; key: string; database: string }> {
  const { url: store, name: database, n } = await fleet.database('fleet');
  const args = ['--lease-ttl', `${LEASE_TTL_S}s`, '--rate-limit', '100000'];
  // The first migrates; the other two find the schema in place, and start side by side.
  const a = await fleet.start(store, `a${n}`, { args, env: env[0] });
  const others = await Promise.all(['b', 'c'].map((name, i) => fleet.start(store, `${name}${n}`, { args, env: env[i + 1] })));
  const daemons: FleetDaemon[] = [a, ...others];
  return { daemons, key: await fleetTeam(daemons[1]), database };
}

interface Run {
  idempotency_key: string | null;
  started_at: string | null;
  created_at: string;
}

/** Every run of the automation (sessions it started), all pages. */
async function runsOf(api: Requester, automationId: string): Promise<Run[]> {
  const out: Run[] = [];
  let cursor: string | undefined;
  do {
    const res = await api('GET', `/teams/acme/automations/${automationId}/runs?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    cursor = res.body.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

/** The slot a scheduled session ran for, read from its key `schedule:{trigger}:{slot}`. */
const slotOf = (run: Run) => Date.parse(run.idempotency_key!.split(':').slice(2).join(':'));

/**
 * Creates a one-off automation through `creator`, then kills it at once: its slot must still
 * start one session, within a second of its time, from the daemons left (read through `survivor`),
 * which know of it only through the database.
 */
async function firesOnTimeWithout(creator: FleetDaemon, survivor: Requester, key: string): Promise<void> {
  const slot = new Date(Date.now() + 2500).toISOString();
  const created = await creator.as(key)('POST', '/teams/acme/automations', { name: `once ${slot}`, prompt: 'p', triggers: [{ kind: 'schedule', one_off_at: slot }] });
  expect(created.status).toBe(201);
  creator.process.kill();
  await creator.process.exited;
  let runs: Run[] = [];
  for (let i = 0; i < 100 && runs.length === 0; i++) {
    await sleep(100);
    runs = await runsOf(survivor, created.body.data.id);
  }
  expect(runs).toHaveLength(1);
  expect(Date.parse(runs[0].created_at) - Date.parse(slot)).toBeLessThan(1000);
}

describe('three daemons on one PostgreSQL database: the schedulers', () => {
  it('1,000 one-off slots due within one second, one daemon killed mid-burst: exactly 1,000 sessions, each within the lease time + 2 s of its slot', async ({ fleet }) => {
    // A kills itself (SIGKILL) right after its first leases are durable: it dies holding slots.
    const { daemons, key } = await threeDaemons(fleet, [{ SVC_FAULT: 'crash-after-lease' }]);
    const [a, b, c] = daemons;
    const api = b.as(key);
    // Creating the automations takes about a second; the slots come well after.
    const due = Date.now() + 6_000;
    const ids: string[] = [];
    for (let n = 0; n < 20; n++) {
      // 50 triggers an automation (the most it may have), 20 automations: 1,000 slots within one second.
      const triggers = Array.from({ length: 50 }, (_, i) => ({ kind: 'schedule', one_off_at: new Date(due + n * 50 + i).toISOString() }));
      const res = await api('POST', '/teams/acme/automations', { name: `burst ${n}`, prompt: 'p', triggers });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    expect(Date.now(), 'the automations were created before their slots').toBeLessThan(due - 2000);

    const death = await a.process.exited;
    expect(death.signal, 'A died during the burst').toBe('SIGKILL');

    const deadline = due + 1000 + (LEASE_TTL_S + 10) * 1000;
    let runs: Run[] = [];
    while (Date.now() < deadline) {
      runs = (await Promise.all(ids.map((id) => runsOf(c.as(key), id)))).flat();
      if (runs.length >= 1000 && runs.every((r) => r.started_at !== null)) break;
      await sleep(250);
    }
    expect(runs).toHaveLength(1000);
    expect(new Set(runs.map((r) => r.idempotency_key)).size).toBe(1000);
    const lateness = runs.map((r) => Date.parse(r.started_at!) - slotOf(r));
    expect(Math.max(...lateness)).toBeLessThanOrEqual((LEASE_TTL_S + 2) * 1000);
    // Some slots waited for A's leases to expire: the kill happened with slots in hand.
    expect(Math.max(...lateness)).toBeGreaterThanOrEqual(LEASE_TTL_S * 1000 - 1000);
    // Nothing fires twice afterwards either.
    await sleep(LEASE_TTL_S * 1000);
    expect((await Promise.all(ids.map((id) => runsOf(b.as(key), id)))).flat()).toHaveLength(1000);
  }, 120_000);

  it('an automation created through one daemon that then dies fires on time from the others', async ({ fleet }) => {
    const { daemons, key } = await threeDaemons(fleet);
    const [a, b] = daemons;
    await firesOnTimeWithout(a, b.as(key), key);
  }, 90_000);

  it('a daemon stopped while it holds a lease taken ahead of a slot gives it back: the slot starts on time from another', async ({ fleet }) => {
    // A lease of 20 s, taken 2 s ahead: kept by the stopped daemon, it would hold the slot 18 s.
    const { url: store, name: database, n } = await fleet.database('fleet');
    const args = ['--lease-ttl', '20s', '--rate-limit', '100000'];
    const a = await fleet.start(store, `a${n}`, { args });
    const b = await fleet.start(store, `b${n}`, { args });
    const key = await fleetTeam(b);
    const slot = new Date(Date.now() + 4000).toISOString();
    const created = await b.as(key)('POST', '/teams/acme/automations', { name: 'once', prompt: 'p', triggers: [{ kind: 'schedule', one_off_at: slot }] });
    expect(created.status).toBe(201);
    const triggerId = created.body.data.triggers[0].id as string;

    let owner: string | null = null;
    while (owner === null && Date.now() < Date.parse(slot)) {
      await sleep(50);
      owner = (await fleet.cluster.query(database, 'SELECT lease_owner FROM triggers WHERE id = $1', [triggerId])).rows[0].lease_owner;
    }
    expect(owner, 'a daemon leased the slot before its time').not.toBeNull();
    // The other daemon, which lost the race for the lease, looks again a second later and finds it held.
    await sleep(1200);
    const daemons = [a, b];
    const instances = await Promise.all(daemons.map(async (d) => (await d.admin('GET', '/health')).body.data.instance as string));
    const holder = daemons[instances.indexOf(owner!)];
    const other = daemons[1 - instances.indexOf(owner!)];
    holder.process.child.kill('SIGTERM');
    expect((await holder.process.exited).code).toBe(0);

    let runs: Run[] = [];
    for (let i = 0; i < 100 && runs.length === 0; i++) {
      await sleep(100);
      runs = await runsOf(other.as(key), created.body.data.id);
    }
    expect(runs).toHaveLength(1);
    expect(Date.parse(runs[0].created_at) - Date.parse(slot)).toBeLessThan(1500);
  }, 90_000);

  it('a daemon whose listening connection was cut hears of changes again once it has made a new one', async ({ fleet }) => {
    const { daemons, key, database } = await threeDaemons(fleet);
    const [a, b, c] = daemons;
    // The server ends every daemon's LISTEN connection (as a restart or a network cut would).
    const cut = await fleet.cluster.query(database, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'svc-listen'");
    expect(cut.rowCount).toBe(3);
    // The daemons notice and connect again (after a short pause, with a re-read of the schedules).
    let listening = 0;
    for (let i = 0; i < 50 && listening < 3; i++) {
      await sleep(100);
      listening = (await fleet.cluster.query(database, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'svc-listen'")).rows[0].n;
    }
    expect(listening).toBe(3);
    c.process.kill();
    await firesOnTimeWithout(a, b.as(key), key);
  }, 90_000);

  it('an automation paused through one daemon: no daemon starts a session for it after the answer', async ({ fleet }) => {
    const { daemons, key } = await threeDaemons(fleet);
    const [a, b] = daemons;
    const start = Date.now() + 1500;
    // A slot every 60 ms for 3 s, from B's and C's schedulers as well as A's.
    const triggers = Array.from({ length: 50 }, (_, i) => ({ kind: 'schedule', one_off_at: new Date(start + i * 60).toISOString() }));
    const created = await b.as(key)('POST', '/teams/acme/automations', { name: 'ticker', prompt: 'p', triggers });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    await sleep(start + 1200 - Date.now());
    const paused = await a.as(key)('PATCH', `/teams/acme/automations/${id}`, { status: 'paused' });
    expect(paused.status).toBe(200);
    const acknowledged = Date.now();
    await sleep(2500);
    const runs = await runsOf(b.as(key), id);
    expect(runs.length, 'slots fired before the pause').toBeGreaterThan(5);
    expect(runs.length, 'slots after the pause did not').toBeLessThan(50);
    for (const r of runs) expect(Date.parse(r.created_at)).toBeLessThanOrEqual(acknowledged);
  }, 90_000);

  it('a key revoked through one daemon gets 401 at once from the two others', async ({ fleet }) => {
    const { daemons, key } = await threeDaemons(fleet);
    const [a, b, c] = daemons;
    for (const d of [b, c]) expect((await d.as(key)('GET', '/teams/acme/automations')).status).toBe(200);
    const keys = (await a.admin('GET', '/admin/teams/acme/keys')).body.data as { id: string }[];
    expect((await a.admin('DELETE', `/admin/teams/acme/keys/${keys[0].id}`)).status).toBe(200);
    for (const d of [b, c]) expect((await d.as(key)('GET', '/teams/acme/automations')).status).toBe(401);
  }, 90_000);
});
