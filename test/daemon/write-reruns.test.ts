// A write callback only reads and writes through its transaction (daemon/store/store.ts), so a
// backend may run it again: PostgreSQL does after a serialisation failure. Every flow here runs
// twice, over the project's store as it is and over one that runs each write callback a second
// time after rolling the first run back (RerunningStore); the results must be those of one run.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../daemon/store/store.js';
import type { TeamRow } from '../../daemon/store/tables.js';
import { inProcess, RerunningStore, WrappedStore, type InProcessDaemon, type InProcessOptions } from './store-wrappers.js';

// A webhook runtime: refuses the turns of events whose id, or of sessions whose prompt, says
// `refuse`; answers the others at once.
let runtime: Server;
let runtimeUrl: string;
beforeAll(async () => {
  runtime = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const turn = JSON.parse(body) as { event: { id: string } | null; prompt: string; message: string };
      const refuse = String(turn.event?.id).includes('refuse') || turn.prompt.includes('refuse');
      res.writeHead(refuse ? 503 : 200, { 'content-type': 'application/json' }).end(refuse ? '{"error":"busy"}' : JSON.stringify({ message: `done: ${turn.message}` }));
    });
  });
  await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
  runtimeUrl = `http://127.0.0.1:${(runtime.address() as AddressInfo).port}/turns`;
});
afterAll(() => new Promise((resolve) => runtime.close(resolve)));

const stores: [string, (s: Store) => WrappedStore][] = [
  ['once', (s) => new WrappedStore(s)],
  ['twice', (s) => new RerunningStore(s)],
];

describe.each(stores)('write callbacks run %s', (runs, wrap) => {
  let d: InProcessDaemon<WrappedStore>;
  let acme: TeamRow;
  let now = Date.parse('2026-03-02T10:00:30.000Z');

  async function open(opts: InProcessOptions = {}) {
    d = await inProcess(wrap, { clock: () => new Date(now), ...opts });
    const t = await d.services.teams.createTeam({ slug: 'acme' });
    acme = (await d.store.read((tx) => tx.get('teams', t.id)))!;
  }
  afterEach(async () => {
    // (over RerunningStore, the flow really ran its writes twice)
    if (runs === 'twice') expect((d.store as RerunningStore).reruns).toBeGreaterThan(0);
    await d.close();
  });

  const eventAutomation = (name: string) => d.services.automations.create(acme.id, { name, prompt: `React (${name})`, triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });
  const send = (id: string, type = 'deploy.finished') => d.services.events.send(acme, { event_type: type, id });
  const triggerOf = async (automationId: string) => (await d.store.read((tx) => tx.list('triggers', { automation_id: automationId })))[0];
  const automationRow = (id: string) => d.store.read((tx) => tx.get('automations', id));
  const receipts = async () => (await d.services.events.list(acme.id, {})).data.map((e) => [e.id, e.accepted, e.reason]).reverse();

  it('event dispatch: one session per automation and event id, each run counted once, one receipt per delivery', async () => {
    await open();
    const [a, b] = [await eventAutomation('A'), await eventAutomation('B')];
    // one batch of two events, a retry, and an event nobody listens to
    const results = await Promise.all([send('e1'), send('e2')]);
    const retry = await send('e2');
    await send('m1', 'nobody.listens');
    expect(results.map((r) => r.reason)).toEqual(['dispatched to 2 automations', 'dispatched to 2 automations']);
    expect(retry.reason).toBe('dispatched to 2 automations (2 already dispatched for event id "e2": no new session)');
    for (const x of [a, b]) {
      expect(await triggerOf(x.id)).toMatchObject({ total_runs: 2 });
      expect(await d.store.read((tx) => tx.count('sessions', { automation_id: x.id }))).toBe(2);
      expect(await automationRow(x.id)).toMatchObject({ consecutive_failures: 0, status: 'active' });
    }
    expect(await receipts()).toEqual([
      ['e1', true, 'dispatched to 2 automations'],
      ['e2', true, 'dispatched to 2 automations'],
      ['e2', true, 'dispatched to 2 automations (2 already dispatched for event id "e2": no new session)'],
      ['m1', false, 'no active automation listens to provider "generic" event "nobody.listens"'],
    ]);
  });

  it('event dispatch the runner refuses: one failed run, and every delivery of the id in the batch answered and recorded as refused', async () => {
    await open({ runner: 'webhook', runnerUrl: runtimeUrl });
    const a = await eventAutomation('A');
    const both = await Promise.allSettled([send('x-refuse'), send('x-refuse')]);
    expect(both.map((r) => r.status === 'rejected' && (r.reason as { code: string }).code)).toEqual(['SESSION_START_FAILED', 'SESSION_START_FAILED']);
    const refusal = 'the runner could not start the session: the runner webhook answered HTTP 503';
    expect(await receipts()).toEqual([
      ['x-refuse', false, `nothing dispatched; session start failed for "A": ${refusal}`],
      ['x-refuse', false, `nothing dispatched; session start failed for "A": ${refusal} (on an earlier delivery of event id "x-refuse"; send the event with a new id to try again)`],
    ]);
    expect(await automationRow(a.id)).toMatchObject({ consecutive_failures: 1, last_error: refusal });
    expect(await triggerOf(a.id)).toMatchObject({ total_runs: 1 });
    expect((await d.store.read((tx) => tx.list('sessions', { automation_id: a.id }))).map((s) => s.status)).toEqual(['failed']);
  });

  it('run now: one session; ten refused in a row disable the automation at the tenth', async () => {
    await open({ runner: 'webhook', runnerUrl: runtimeUrl });
    const a = await eventAutomation('A');
    const session = await d.services.sessions.runNow(acme.id, a.id);
    expect(session).toMatchObject({ status: 'completed', automation_id: a.id });
    expect(await d.store.read((tx) => tx.count('sessions', { automation_id: a.id }))).toBe(1);

    const r = await d.services.automations.create(acme.id, { name: 'R', prompt: 'please refuse', triggers: [{ kind: 'event', event_type: 'x' }] });
    for (let i = 1; i <= 10; i++) {
      await expect(d.services.sessions.runNow(acme.id, r.id)).rejects.toMatchObject({ code: 'SESSION_START_FAILED' });
      expect(await automationRow(r.id)).toMatchObject({ consecutive_failures: i, status: i < 10 ? 'active' : 'disabled' });
    }
  });

  it('schedule firing: one session per slot, each run counted once, the lease cleared and the next slot set', async () => {
    now = Date.parse('2026-03-02T10:00:30.000Z');
    await open();
    const a = await d.services.automations.create(acme.id, { name: 'Every minute', prompt: 'tick', triggers: [{ kind: 'schedule', cron_expression: '* * * * *' }] });
    for (const at of ['2026-03-02T10:01:05.000Z', '2026-03-02T10:02:05.000Z']) {
      now = Date.parse(at);
      d.services.scheduler.schedulesChanged();
      await d.services.scheduler.idle();
    }
    expect(await triggerOf(a.id)).toMatchObject({ total_runs: 2, next_run_at: '2026-03-02T10:03:00.000Z', lease_owner: null, lease_until: null });
    const sessions = await d.store.read((tx) => tx.list('sessions', { automation_id: a.id }));
    expect(sessions.map((s) => s.idempotency_key)).toEqual([`schedule:${(await triggerOf(a.id)).id}:2026-03-02T10:01:00.000Z`, `schedule:${(await triggerOf(a.id)).id}:2026-03-02T10:02:00.000Z`]);
  });

  it('follow-up: the message and its answer stored once each, the session completed again', async () => {
    await open({ runner: 'webhook', runnerUrl: runtimeUrl });
    const a = await eventAutomation('A');
    const { session_id } = await d.services.sessions.runNow(acme.id, a.id);
    await d.services.sessions.followUp(acme.id, session_id, 'and again');
    const s = await d.services.sessions.get(acme.id, session_id);
    expect(s.status).toBe('completed');
    expect(s.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'React (A)'],
      ['assistant', 'done: React (A)'],
      ['user', 'and again'],
      ['assistant', 'done: and again'],
    ]);
    expect(await automationRow(a.id)).toMatchObject({ consecutive_failures: 0 });
  });
});
