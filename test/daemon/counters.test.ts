// Counters move by WriteTx.increment, an atomic add where a database runs it (`f = f + n`), never
// by writing back a value read before, which on a database shared by many daemons would lose the
// runs another counted meanwhile: a trigger's total_runs as events dispatch and schedules fire, an
// automation's consecutive_failures as its runs fail. Over a store that notes every write raising
// a counter by value (CounterWatchStore).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TeamRow } from '../../daemon/store/tables.js';
import { CounterWatchStore, inProcess, type InProcessDaemon, type InProcessOptions } from './store-wrappers.js';

// A webhook runtime that refuses every turn.
let runtime: Server;
let runtimeUrl: string;
beforeAll(async () => {
  runtime = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"busy"}'));
  });
  await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
  runtimeUrl = `http://127.0.0.1:${(runtime.address() as AddressInfo).port}/turns`;
});
afterAll(() => new Promise((resolve) => runtime.close(resolve)));

let d: InProcessDaemon<CounterWatchStore>;
let acme: TeamRow;
let now = Date.parse('2026-03-02T10:00:30.000Z');

async function open(opts: InProcessOptions = {}) {
  d = await inProcess((s) => new CounterWatchStore(s), { clock: () => new Date(now), ...opts });
  const t = await d.services.teams.createTeam({ slug: 'acme' });
  acme = (await d.store.read((tx) => tx.get('teams', t.id)))!;
}
afterEach(() => d.close());

const triggerOf = async (automationId: string) => (await d.store.read((tx) => tx.list('triggers', { automation_id: automationId })))[0];

describe('total_runs', () => {
  it('counts every session events start, by increment, however many events a batch holds', async () => {
    await open();
    const automations = await Promise.all(['A', 'B'].map((name) => d.services.automations.create(acme.id, { name, prompt: 'p', triggers: [{ kind: 'event', event_type: 'deploy.finished' }] })));
    // three in one batch, then one alone, then a retry that starts nothing
    await Promise.all(['e1', 'e2', 'e3'].map((id) => d.services.events.send(acme, { event_type: 'deploy.finished', id })));
    await d.services.events.send(acme, { event_type: 'deploy.finished', id: 'e4' });
    await d.services.events.send(acme, { event_type: 'deploy.finished', id: 'e4' });
    for (const a of automations) expect((await triggerOf(a.id)).total_runs).toBe(4);
    expect(d.store.raisedByValue).toEqual([]);
  });

  it('counts the run of a schedule slot, by increment', async () => {
    now = Date.parse('2026-03-02T10:00:30.000Z');
    await open();
    const a = await d.services.automations.create(acme.id, { name: 'Every minute', prompt: 'tick', triggers: [{ kind: 'schedule', cron_expression: '* * * * *' }] });
    now = Date.parse('2026-03-02T10:01:05.000Z');
    d.services.scheduler.schedulesChanged();
    await d.services.scheduler.idle();
    expect(await triggerOf(a.id)).toMatchObject({ total_runs: 1, last_run_at: '2026-03-02T10:01:05.000Z', next_run_at: '2026-03-02T10:02:00.000Z', lease_owner: null });
    expect(await d.store.read((tx) => tx.count('sessions', { automation_id: a.id }))).toBe(1);
    expect(d.store.raisedByValue).toEqual([]);
  });
});

describe('consecutive_failures', () => {
  it('counts each failed run by increment, and the 10th in a row disables the automation', async () => {
    await open({ runner: 'webhook', runnerUrl: runtimeUrl });
    const a = await d.services.automations.create(acme.id, { name: 'Flaky', prompt: 'p', triggers: [{ kind: 'event', event_type: 'never' }] });
    for (let i = 1; i <= 10; i++) {
      await expect(d.services.sessions.runNow(acme.id, a.id)).rejects.toMatchObject({ code: 'SESSION_START_FAILED' });
      const row = await d.store.read((tx) => tx.get('automations', a.id));
      expect(row).toMatchObject({ consecutive_failures: i, status: i < 10 ? 'active' : 'disabled' });
    }
    expect((await d.store.read((tx) => tx.get('automations', a.id)))!.last_error).toMatch(/^disabled after 10 failed runs in a row; last error: /);
    expect(d.store.raisedByValue).toEqual([]);
  });
});
