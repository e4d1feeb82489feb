// Slots leased ahead of their time (SchedulerOptions.leadMs): the lease is taken before the slot,
// the session starts at the slot's time, and anything that changes in between is honoured.
import { afterEach, describe, expect, it } from 'vitest';
import { makeHarness, type Harness } from './scheduler-harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const LEAD = 2_000;
const SLOT = '2026-01-05T10:05:00.000Z';
/** a moment after the lease was taken and before the slot */
const BETWEEN = '2026-01-05T10:04:59.000Z';

describe('scheduler: slots leased ahead', () => {
  it('leases a slot the lead before its time and starts its session at that time, not before', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', leadMs: LEAD });
    const { id, triggerId } = await h.schedule({ one_off_at: SLOT });
    expect(h.time.pending()).toEqual([Date.parse(SLOT) - LEAD]);

    await h.advanceTo(BETWEEN);
    // leased at 10:04:58 for --lease-ttl's default, 30 s (CONTRACT §11)
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: 'daemon-test', lease_until: '2026-01-05T10:05:28.000Z', next_run_at: SLOT });
    expect(await h.sessions(id)).toEqual([]);

    await h.advanceTo(SLOT);
    const [session] = await h.sessions(id);
    expect(session).toMatchObject({ idempotency_key: `schedule:${triggerId}:${SLOT}`, started_at: SLOT });
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: null, last_run_at: SLOT, status: 'completed', total_runs: 1 });
  });

  it('starts nothing for a slot whose automation was paused after its lease', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', leadMs: LEAD });
    const { id, triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    await h.advanceTo(BETWEEN);
    expect((await h.trigger(triggerId)).lease_owner).toBe('daemon-test');

    await h.automations.update(h.team.id, id, { status: 'paused' });
    await h.advanceTo('2026-01-05T10:20:00Z');
    expect(await h.sessions(id)).toEqual([]);
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: null, next_run_at: null, total_runs: 0 });
  });

  it('starts nothing for the old slot when the schedule changed after its lease, and runs the new one', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', leadMs: LEAD });
    const { id, triggerId } = await h.schedule({ cron_expression: '5 10 * * *' });
    await h.advanceTo(BETWEEN);
    expect((await h.trigger(triggerId)).lease_owner).toBe('daemon-test');

    await h.automations.update(h.team.id, id, { triggers: [{ id: triggerId, kind: 'schedule', cron_expression: '30 10 * * *' }] } as never);
    await h.advanceTo('2026-01-05T10:31:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:30:00.000Z']);
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: null, next_run_at: '2026-01-06T10:30:00.000Z', total_runs: 1 });
  });

  it('gives back the leases of slots not yet due when it stops, so another daemon fires them on time', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', leadMs: LEAD });
    const { id, triggerId } = await h.schedule({ one_off_at: SLOT });
    await h.advanceTo(BETWEEN);
    expect((await h.trigger(triggerId)).lease_owner).toBe('daemon-test');

    await h.scheduler.stop();
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: null, lease_until: null, next_run_at: SLOT });
    expect(await h.sessions(id)).toEqual([]);
    expect(h.time.pending()).toEqual([]);
  });
  it('leases every slot due within the lead, beyond the concurrency limit, and starts them together at their time', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', leadMs: LEAD, concurrency: 2 });
    const triggers: string[] = [];
    for (let i = 0; i < 5; i++) triggers.push((await h.schedule({ one_off_at: SLOT }, `burst-${i}`)).triggerId);
    await h.advanceTo(BETWEEN);
    for (const id of triggers) expect((await h.trigger(id)).lease_owner).toBe('daemon-test');
    expect(h.starts).toEqual([]);

    await h.advanceTo(SLOT);
    const sessions = await h.sessions();
    expect(sessions.map((s) => s.started_at)).toEqual(Array(5).fill(SLOT));
    expect(new Set(h.starts.map((s) => s.triggerId))).toEqual(new Set(triggers));
  });
  it('runs a one-off moved after its lease to a time before the slot leased, once, at its new time', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', leadMs: LEAD });
    const { id, triggerId } = await h.schedule({ one_off_at: SLOT });
    await h.advanceTo(BETWEEN);
    expect((await h.trigger(triggerId)).lease_owner).toBe('daemon-test');

    const moved = '2026-01-05T10:04:59.500Z';
    await h.automations.update(h.team.id, id, { triggers: [{ id: triggerId, kind: 'schedule', one_off_at: moved }] } as never);
    await h.advanceTo('2026-01-05T10:06:00Z');
    expect(await h.firedSlots(triggerId)).toEqual([moved]);
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: null, next_run_at: null, status: 'completed', total_runs: 1 });
  });
  it('leases ahead by at most a quarter of the lease time, so a short --lease-ttl cannot expire before the slot', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', leadMs: LEAD, leaseMs: 2_000 });
    await h.schedule({ one_off_at: SLOT });
    expect(h.time.pending()).toEqual([Date.parse(SLOT) - 500]);
  });
});
