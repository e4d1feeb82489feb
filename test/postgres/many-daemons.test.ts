// Two daemon processes on one PostgreSQL database (CONTRACT §11): what the store promises within
// one daemon holds across them, under concurrent requests spread over both.
import { describe, expect } from 'vitest';
import { fleetTest, type Fleet, type FleetDaemon } from '../helpers/daemon-fleet.js';
import { sleep, until, webhookRuntime } from '../helpers/webhook-runtime.js';

const it = fleetTest();

/** `extra`: more flags; a limit no test reaches unless they set `--rate-limit` */
async function startDaemonProcess(fleet: Fleet, store: string, name: string, extra: readonly string[] = []): Promise<FleetDaemon> {
  const limit = extra.includes('--rate-limit') ? [] : ['--rate-limit', '100000'];
  return fleet.start(store, name, { args: [...limit, ...extra] });
}

/** A database, a team and a key, and two daemons on it. */
async function twoDaemons(fleet: Fleet, extra: readonly string[] = []) {
  const { url: store, n } = await fleet.database('many');
  const a = await startDaemonProcess(fleet, store, `a${n}`, extra);
  expect((await a.admin('POST', '/admin/teams', { slug: 'acme', name: 'Acme' })).status).toBe(201);
  const key = (await a.admin('POST', '/admin/teams/acme/keys', { name: 'k' })).body.data.key as string;
  return {
    store,
    a,
    key,
    apiA: a.as(key),
    /** another daemon on the database, its folder `name` followed by the database's number */
    start: (name: string, more: readonly string[] = extra) => startDaemonProcess(fleet, store, `${name}${n}`, more),
  };
}

/** A database, a team and a key, and three daemons on it started with `limits`. */
async function threeDaemons(fleet: Fleet, limits: string[]) {
  const { url: store, n } = await fleet.database('many');
  const daemons = await Promise.all(['a', 'b', 'c'].map((name) => startDaemonProcess(fleet, store, `${name}${n}`, limits)));
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

// The tests of a group run side by side, each on a database and daemons of its own: most of their
// time is spent waiting, for a window edge or for a claim to expire.
describe.concurrent('rate limits across three daemons on one PostgreSQL database', () => {
  it('the 61st request of a window is 429, with 60 spread over the daemons before it and Remaining counted down across them', async ({ fleet }) => {
    const { daemons, key } = await threeDaemons(fleet, ['--rate-limit', '60']);
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

  it('failed authentications from one address, spread over the daemons, reach the failure limit together', async ({ fleet }) => {
    const { daemons, key } = await threeDaemons(fleet, ['--rate-limit', '1000', '--auth-failure-limit', '5']);
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

const CLAIM = ['--lease-ttl', '2s'];

describe('events across three daemons on one PostgreSQL database', () => {
  it('one event id sent 20 times to each of three daemons, all at once: one session per matching automation', async ({ fleet }) => {
    const { daemons, key } = await threeDaemons(fleet, []);
    const apis = daemons.map((d) => d.as(key));
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) {
      const res = await apis[0]('POST', '/teams/acme/automations', { name, prompt: 'p', event_type: 'deploy' });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    const sends = Array.from({ length: 60 }, (_, i) => apis[i % 3]('POST', '/teams/acme/webhooks/events', { id: 'deploy-42', event_type: 'deploy' }));
    for (const r of await Promise.all(sends)) {
      expect(r.status).toBe(200);
      expect(r.body.data.dispatched.map((d: { automationId: string }) => d.automationId).sort()).toEqual([...ids].sort());
    }
    const sessions = (await apis[2]('GET', '/teams/acme/sessions?limit=200')).body.data as { automation_id: string }[];
    expect(sessions.map((s) => s.automation_id).sort()).toEqual([...ids].sort());
  }, 120_000);
});

describe.concurrent('two daemons on one PostgreSQL database', () => {
  it('20 concurrent creates of one name, spread over both: one 201, the rest 409', async ({ fleet }) => {
    const { apiA, key, start } = await twoDaemons(fleet);
    const apiB = (await start('b')).as(key);
    const creates = Array.from({ length: 20 }, (_, i) =>
      (i % 2 === 0 ? apiA : apiB)('POST', '/teams/acme/automations', { name: i % 4 < 2 ? 'Nightly' : 'NIGHTLY', prompt: 'p', event_type: 'x' }),
    );
    const statuses = (await Promise.all(creates)).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect((await apiB('GET', '/teams/acme/automations')).body.data).toHaveLength(1);
  }, 90_000);

  it('run-now on both daemons while both schedulers fire the same slots: every counter exact', async ({ fleet }) => {
    const { apiA, key, start } = await twoDaemons(fleet);
    const due = new Date(Date.now() + 4000).toISOString();
    const triggers = Array.from({ length: 10 }, () => ({ kind: 'schedule', one_off_at: due }));
    const created = await apiA('POST', '/teams/acme/automations', { name: 'burst', prompt: 'p', triggers });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    // B starts after the triggers exist, so both schedulers hold every slot.
    const apiB = (await start('b')).as(key);
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

  it('a session queued on a daemon killed with SIGKILL is handed over again once its claim expires, once, not before', async ({ fleet }) => {
    const runtime = await webhookRuntime();
    try {
      const { a, apiA, key, start } = await twoDaemons(fleet, [...runtime.args, ...CLAIM]);
      // Two daemons that may take it up, running before A dies: they race for it.
      const apiB = (await start('b')).as(key);
      const apiC = (await start('c')).as(key);
      // The runtime holds the hand-over: the session stays queued, claimed by A.
      void apiA('POST', '/teams/acme/sessions', { prompt: 'left behind' }).catch(() => undefined);
      const [id] = await until(async () => runtime.sessionIds(), (ids) => ids.length === 1);
      expect(id).toBeDefined();
      // While A lives (renewing its claim), well past the claim time, no daemon touches it.
      await sleep(3500);
      expect(runtime.turnsOf(id)).toBe(1);
      expect((await apiB('GET', `/teams/acme/sessions/${id}`)).body.data.status).toBe('queued');

      runtime.answer();
      a.process.kill();
      await a.process.exited;
      const killedAt = Date.now();
      // A renewed its claim at most a third of the claim time before it died: not expired yet.
      await sleep(500);
      expect(runtime.turnsOf(id)).toBe(1);
      expect((await apiC('GET', `/teams/acme/sessions/${id}`)).body.data.status).toBe('queued');

      const done = await until(async () => (await apiB('GET', `/teams/acme/sessions/${id}`)).body.data, (s) => s.status === 'completed');
      expect(done.status).toBe('completed');
      expect(Date.now() - killedAt).toBeGreaterThan(1000);
      expect(done.messages.map((m: { content: string }) => m.content)).toEqual(['left behind', 'answered']);
      // Handed over once more in all, by B or C, and not again by the other on a later pass.
      await sleep(2500);
      expect(runtime.turnsOf(id)).toBe(2);
    } finally {
      await runtime.close();
    }
  }, 90_000);

  it('a session an exec turn ran on a killed daemon fails once its claim expires, not before, noted on its automation', async ({ fleet }) => {
    const exec = ['--runner', 'exec', '--runner-command', 'sleep 8', ...CLAIM];
    const { a, apiA, key, start } = await twoDaemons(fleet, exec);
    const apiB = (await start('b')).as(key);
    const apiC = (await start('c')).as(key);
    const automation = (await apiA('POST', '/teams/acme/automations', { name: 'long', prompt: 'p', event_type: 'x' })).body.data.id as string;
    const run = await apiA('POST', `/teams/acme/automations/${automation}/runs`);
    expect(run.status).toBe(201);
    const id = run.body.data.session_id as string;
    expect(run.body.data.status).toBe('running');

    a.process.kill();
    await a.process.exited;
    await sleep(500);
    expect((await apiB('GET', `/teams/acme/sessions/${id}`)).body.data.status).toBe('running');
    const failed = await until(async () => (await apiC('GET', `/teams/acme/sessions/${id}`)).body.data, (s) => s.status !== 'running');
    expect(failed).toMatchObject({ status: 'failed', last_error: 'daemon restarted during the turn' });
    const noted = (await apiB('GET', `/teams/acme/automations/${automation}`)).body.data;
    expect(noted).toMatchObject({ status: 'active', last_error: 'daemon restarted during the turn' });
  }, 90_000);

  it('a daemon that starts while another holds queued and running sessions leaves them alone', async ({ fleet }) => {
    const runtime = await webhookRuntime();
    try {
      // A runs exec turns that take a while; the webhook daemon holds a hand-over open.
      const { a, apiA, key, start } = await twoDaemons(fleet, ['--runner', 'exec', '--runner-command', 'sleep 9; echo from-a', ...CLAIM]);
      const held = await start('w', [...runtime.args, ...CLAIM]);
      const running = await apiA('POST', '/teams/acme/sessions', { prompt: 'runs on A' });
      expect(running.body.data.status).toBe('running');
      void held.as(key)('POST', '/teams/acme/sessions', { prompt: 'queued on W' }).catch(() => undefined);
      const [queued] = await until(async () => runtime.sessionIds(), (ids) => ids.length === 1);

      // Today's start took every queued session for its own and failed every running exec one.
      const apiB = (await start('b')).as(key);
      await sleep(3000);
      expect((await apiB('GET', `/teams/acme/sessions/${running.body.data.session_id}`)).body.data.status).toBe('running');
      expect((await apiB('GET', `/teams/acme/sessions/${queued}`)).body.data.status).toBe('queued');
      expect(runtime.turnsOf(queued)).toBe(1);
      // Their own daemons finish them.
      runtime.answer();
      const ran = await until(async () => (await apiB('GET', `/teams/acme/sessions/${running.body.data.session_id}`)).body.data, (s) => s.status !== 'running');
      expect(ran.status).toBe('completed');
      expect(ran.messages.map((m: { content: string }) => m.content)).toEqual(['runs on A', 'from-a']);
      const answered = await until(async () => (await apiB('GET', `/teams/acme/sessions/${queued}`)).body.data, (s) => s.status === 'completed');
      expect(answered.status).toBe('completed');
      expect(runtime.turnsOf(queued)).toBe(1);
      void a;
    } finally {
      await runtime.close();
    }
  }, 90_000);

  it('follow-ups through a daemon that did not start the session: the session completes with the last turn, on either', async ({ fleet }) => {
    const { apiA, key, start } = await twoDaemons(fleet, ['--runner', 'exec', '--runner-command', 'sleep 3; echo from-a', ...CLAIM]);
    const apiB = (await start('b', ['--runner', 'exec', '--runner-command', 'sleep 5; echo from-b', ...CLAIM])).as(key);
    const started = await apiA('POST', '/teams/acme/sessions', { prompt: 'first' });
    expect(started.status).toBe(201);
    const id = started.body.data.session_id as string;
    // B takes a follow-up while A's turn still runs: A's answer must not complete the session.
    const follow = await apiB('POST', `/teams/acme/sessions/${id}/messages`, { message: 'second' });
    expect(follow.status).toBe(202);
    const afterA = await until(async () => (await apiA('GET', `/teams/acme/sessions/${id}`)).body.data, (s) => s.messages.some((m: { content: string }) => m.content === 'from-a'));
    expect(afterA.status).toBe('running');
    const done = await until(async () => (await apiA('GET', `/teams/acme/sessions/${id}`)).body.data, (s) => s.status !== 'running');
    expect(done.status).toBe('completed');
    expect(done.messages.map((m: { content: string }) => m.content)).toEqual(['first', 'second', 'from-a', 'from-b']);
    // A completed session takes a follow-up through either daemon.
    expect((await apiA('POST', `/teams/acme/sessions/${id}/messages`, { message: 'third' })).status).toBe(202);
    const again = await until(async () => (await apiB('GET', `/teams/acme/sessions/${id}`)).body.data, (s) => s.status === 'completed' && s.messages.length === 6);
    expect(again.messages.map((m: { content: string }) => m.content).slice(4)).toEqual(['third', 'from-a']);
  }, 90_000);
});
