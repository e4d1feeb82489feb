// Event dispatch judges the match in a read, and the scheduler leases a slot in one write and
// starts its session in the next: a pause can be acknowledged in between. The write that stores a
// session checks the automation and its trigger again, so no session starts after the pause, and
// the event's receipt says why nothing started. InterposingStore lands the pause (or a trigger
// disabled, or the automation deleted) right before that write.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TeamRow } from '../../daemon/store/tables.js';
import { inProcess, InterposingStore, type InProcessDaemon } from './store-wrappers.js';

let d: InProcessDaemon<InterposingStore>;
let acme: TeamRow;
let now = Date.parse('2026-03-02T10:00:30.000Z');

beforeEach(async () => {
  now = Date.parse('2026-03-02T10:00:30.000Z');
  d = await inProcess((s) => new InterposingStore(s), { clock: () => new Date(now) });
  const t = await d.services.teams.createTeam({ slug: 'acme' });
  acme = (await d.store.read((tx) => tx.get('teams', t.id)))!;
});
afterEach(() => d.close());

const eventAutomation = (name: string) => d.services.automations.create(acme.id, { name, prompt: `React (${name})`, triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });
const send = (id: string) => d.services.events.send(acme, { event_type: 'deploy.finished', id });
const sessionsOf = (automationId: string) => d.store.read((tx) => tx.count('sessions', { automation_id: automationId }));
const triggerOf = async (automationId: string) => (await d.store.read((tx) => tx.list('triggers', { automation_id: automationId })))[0];
const receipts = async () => (await d.services.events.list(acme.id, {})).data.map((e) => [e.id, e.accepted, e.reason]);

describe('an event in flight', () => {
  it('starts nothing for an automation paused between the match and the write, and says so', async () => {
    const a = await eventAutomation('A');
    d.store.beforeWrite(1, async () => {
      await d.services.automations.update(acme.id, a.id, { status: 'paused' });
    });
    const result = await send('e1');
    const reason = 'no active automation listens to provider "generic" event "deploy.finished": automation "A" is paused';
    expect(result).toEqual({ accepted: false, dispatched: [], reason });
    expect(await sessionsOf(a.id)).toBe(0);
    expect((await triggerOf(a.id)).total_runs).toBe(0);
    expect(await receipts()).toEqual([['e1', false, reason]]);

    // Resumed, the same event id starts its session: nothing was spent on it.
    await d.services.automations.update(acme.id, a.id, { status: 'active' });
    expect((await send('e1')).reason).toBe('dispatched to 1 automation');
    expect(await sessionsOf(a.id)).toBe(1);
  });

  it('still starts the others that matched', async () => {
    const a = await eventAutomation('A');
    const b = await eventAutomation('B');
    d.store.beforeWrite(1, async () => {
      await d.services.automations.update(acme.id, a.id, { status: 'paused' });
    });
    const result = await send('e1');
    expect(result).toMatchObject({ accepted: true, dispatched: [{ automationId: b.id }], reason: 'dispatched to 1 automation' });
    expect([await sessionsOf(a.id), await sessionsOf(b.id)]).toEqual([0, 1]);
  });

  it('starts nothing when the trigger that matched was disabled meanwhile, or the automation deleted', async () => {
    const a = await eventAutomation('A');
    const trigger = await triggerOf(a.id);
    d.store.beforeWrite(1, async () => {
      await d.services.automations.update(acme.id, a.id, { triggers: [{ id: trigger.id, kind: 'event', event_type: 'deploy.finished', enabled: false }] });
    });
    expect((await send('e1')).reason).toBe('no automation matched provider "generic" event "deploy.finished": trigger of "A" is disabled');

    const b = await eventAutomation('B');
    d.store.beforeWrite(1, async () => {
      await d.services.automations.delete(acme.id, b.id);
    });
    expect((await send('e2')).reason).toBe('no automation matched provider "generic" event "deploy.finished": trigger of "A" is disabled; automation "B" was deleted');
    expect(await d.store.read((tx) => tx.count('sessions', { team_id: acme.id }))).toBe(0);
  });
});

describe('a schedule slot leased before the pause', () => {
  it('starts no session, counts no run or failure, and has no next run', async () => {
    const a = await d.services.automations.create(acme.id, { name: 'Every minute', prompt: 'tick', triggers: [{ kind: 'schedule', cron_expression: '* * * * *' }] });
    // the lease is the next write; the pause lands before the one after it, which would start the session
    d.store.beforeWrite(2, async () => {
      await d.services.automations.update(acme.id, a.id, { status: 'paused' });
    });
    now = Date.parse('2026-03-02T10:01:05.000Z');
    d.services.scheduler.schedulesChanged();
    await d.services.scheduler.idle();
    expect(await sessionsOf(a.id)).toBe(0);
    expect(await triggerOf(a.id)).toMatchObject({ total_runs: 0, next_run_at: null, lease_owner: null, lease_until: null });
    expect(await d.store.read((tx) => tx.get('automations', a.id))).toMatchObject({ status: 'paused', consecutive_failures: 0, last_error: null });
  });
});
