import { afterEach, describe, expect, it } from 'vitest';
import { MAX_TIMER_MS } from '../../daemon/scheduler/timers.js';
import { makeHarness, type Harness } from './scheduler-harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const ms = (iso: string) => Date.parse(iso);

describe('scheduler: cron triggers', () => {
  it('sleeps on one timer until the first slot, fires it with the slot key, and moves next_run_at on', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { id, triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });

    expect((await h.trigger(triggerId)).next_run_at).toBe('2026-01-05T10:05:00.000Z');
    expect(h.time.pending()).toEqual([ms('2026-01-05T10:05:00Z')]);
    expect(h.scheduler.nextWakeAt).toBe(ms('2026-01-05T10:05:00Z'));

    await h.advanceTo('2026-01-05T10:05:00Z');
    const sessions = await h.sessions(id);
    expect(sessions.map((s) => s.idempotency_key)).toEqual([`schedule:${triggerId}:2026-01-05T10:05:00.000Z`]);
    expect(sessions[0]).toMatchObject({ trigger_id: triggerId, prompt: expect.stringContaining('run '), status: 'completed' });

    const t = await h.trigger(triggerId);
    expect(t).toMatchObject({
      next_run_at: '2026-01-05T10:10:00.000Z',
      last_run_at: '2026-01-05T10:05:00.000Z',
      total_runs: 1,
      lease_owner: null,
      lease_until: null,
      status: 'active',
    });
    expect(h.time.pending()).toEqual([ms('2026-01-05T10:10:00Z')]);
  });

  it('fires every slot once as time passes and sums the runs on the automation', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { id, triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    await h.advanceTo('2026-01-05T10:21:00Z');
    expect(await h.firedSlots(triggerId)).toEqual([
      '2026-01-05T10:05:00.000Z',
      '2026-01-05T10:10:00.000Z',
      '2026-01-05T10:15:00.000Z',
      '2026-01-05T10:20:00.000Z',
    ]);
    const a = await h.automation(id);
    expect(a.total_runs).toBe(4);
    expect(a.next_run_at).toBe('2026-01-05T10:25:00.000Z');
    expect(a.last_error).toBeNull();
  });

  it('wakes only at due times: one timer per slot, none in between', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:30Z' });
    await h.schedule({ cron_expression: '0 * * * *' });
    await h.advanceTo('2026-01-05T13:30:00Z');
    const delays = h.time.requested.filter((d) => d !== 10_000);
    // the first wait (10:00:30 -> 11:00), then one full hour per slot
    expect(delays).toEqual([3_570_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it('re-arms the timer earlier when a trigger with an earlier slot is added', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:00Z' });
    await h.schedule({ cron_expression: '0 12 * * *' });
    expect(h.time.pending()).toEqual([ms('2026-01-05T12:00:00Z')]);
    const { triggerId } = await h.schedule({ one_off_at: '2026-01-05T10:30:00Z' });
    expect(h.time.pending()).toEqual([ms('2026-01-05T10:30:00Z')]);
    await h.advanceTo('2026-01-05T10:30:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:30:00.000Z']);
    expect(h.time.pending()).toEqual([ms('2026-01-05T12:00:00Z')]);
  });

  it('fires several triggers due at the same instant, each once, beyond the concurrency limit', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:00Z', concurrency: 4 });
    const created = [];
    for (let i = 0; i < 11; i++) created.push(await h.schedule({ one_off_at: '2026-01-05T10:05:00Z' }, `burst-${i}`));
    await h.advanceTo('2026-01-05T10:05:00Z');
    for (const { triggerId } of created) expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:05:00.000Z']);
    expect(h.starts).toHaveLength(11);
  });

  it('waits for a slot beyond the longest setTimeout in steps, without firing early', async () => {
    h = await makeHarness({ now: '2026-01-01T00:00:00Z' });
    const { triggerId } = await h.schedule({ one_off_at: '2026-03-15T00:00:00Z' });
    expect(h.time.pending()).toEqual([ms('2026-01-01T00:00:00Z') + MAX_TIMER_MS]);
    await h.advanceTo(ms('2026-01-01T00:00:00Z') + MAX_TIMER_MS);
    expect(h.starts).toHaveLength(0);
    expect(h.time.pending()).toEqual([ms('2026-01-01T00:00:00Z') + 2 * MAX_TIMER_MS]);
    await h.advanceTo(ms('2026-01-01T00:00:00Z') + 2 * MAX_TIMER_MS);
    expect(h.starts).toHaveLength(0);
    expect(h.time.pending()).toEqual([ms('2026-03-15T00:00:00Z')]);
    await h.advanceTo('2026-03-15T00:00:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-03-15T00:00:00.000Z']);
  });
});

describe('scheduler: one-off triggers', () => {
  it('fires once, then has no next run, is completed, and leaves no timer', async () => {
    h = await makeHarness({ now: '2026-02-01T08:00:00Z' });
    const { id, triggerId } = await h.schedule({ one_off_at: '2026-02-01T09:00:00Z' });
    await h.advanceTo('2026-02-03T00:00:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-02-01T09:00:00.000Z']);
    expect(await h.trigger(triggerId)).toMatchObject({ next_run_at: null, status: 'completed', total_runs: 1, last_run_at: '2026-02-01T09:00:00.000Z', lease_owner: null });
    expect((await h.automation(id)).total_runs).toBe(1);
    expect(h.time.pending()).toEqual([]);
    expect(h.scheduler.nextWakeAt).toBeNull();
  });

});

describe('scheduler: pause, resume and delete', () => {
  it('runs nothing while paused and resumes from now without a burst of missed runs', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { id, triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    await h.advanceTo('2026-01-05T10:05:00Z');
    await h.automations.update(h.team.id, id, { status: 'paused' });
    await h.settle();
    expect((await h.trigger(triggerId)).next_run_at).toBeNull();
    expect(h.time.pending()).toEqual([]);

    await h.advanceTo('2026-01-05T11:02:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:05:00.000Z']);

    await h.automations.update(h.team.id, id, { status: 'active' });
    await h.settle();
    expect((await h.trigger(triggerId)).next_run_at).toBe('2026-01-05T11:05:00.000Z');
    await h.advanceTo('2026-01-05T11:05:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:05:00.000Z', '2026-01-05T11:05:00.000Z']);
    expect((await h.automation(id)).last_error).toBeNull();
  });

  it('completes a one-off whose time passed while paused, with a note, and a resent trigger is accepted as read', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:00Z' });
    const { id, triggerId } = await h.schedule({ one_off_at: '2026-01-05T10:00:08Z' });
    await h.automations.update(h.team.id, id, { status: 'paused' });
    await h.advanceTo('2026-01-05T10:00:20Z');
    expect(h.starts).toEqual([]);

    const resumed = await h.automations.update(h.team.id, id, { status: 'active' });
    await h.settle();
    expect(resumed.triggers[0]).toMatchObject({ status: 'completed', next_run_at: null, total_runs: 0 });
    expect(resumed.last_error).toBe('one-off run for 2026-01-05T10:00:08.000Z skipped: its time passed while the automation was paused');
    expect(resumed.last_error_at).toBe('2026-01-05T10:00:20.000Z');
    await h.advanceTo('2026-01-05T11:00:00Z');
    expect(h.starts).toEqual([]);
    // What a client read back can be sent back unchanged.
    const t = await h.trigger(triggerId);
    const again = await h.automations.update(h.team.id, id, { triggers: [{ id: t.id, kind: 'schedule', one_off_at: t.one_off_at! }] } as never);
    expect(again.triggers[0]).toMatchObject({ id: triggerId, status: 'completed' });
  });

  it('re-checks the automation at fire time: one paused without a wake-up call does not run', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { id, triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    // Behind the scheduler's back: the trigger keeps its next_run_at and nobody says so.
    await h.store.write(async (tx) => {
      const a = (await tx.get('automations', id))!;
      tx.put('automations', { ...a, status: 'paused' });
    });
    await h.advanceTo('2026-01-05T10:30:00Z');
    expect(h.starts).toHaveLength(0);
    expect((await h.trigger(triggerId)).next_run_at).toBeNull();
    expect(h.time.pending()).toEqual([]);
  });

  it('re-checks a disabled trigger at fire time', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    const t = await h.trigger(triggerId);
    await h.putTrigger({ ...t, enabled: false, status: 'disabled' });
    await h.advanceTo('2026-01-05T10:30:00Z');
    expect(h.starts).toHaveLength(0);
  });

  it('stops at once when the automation is deleted', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { id } = await h.schedule({ cron_expression: '*/5 * * * *' });
    await h.automations.delete(h.team.id, id);
    await h.settle();
    expect(h.time.pending()).toEqual([]);
    await h.advanceTo('2026-01-05T11:00:00Z');
    expect(h.starts).toHaveLength(0);
  });

  it('does not fire a trigger deleted behind its back', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    await h.store.write((tx) => tx.delete('triggers', triggerId));
    await h.advanceTo('2026-01-05T11:00:00Z');
    expect(h.starts).toHaveLength(0);
    expect(h.time.pending()).toEqual([]);
  });

  it('moves to the new slot when the cron of a trigger changes', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { id, triggerId } = await h.schedule({ cron_expression: '0 12 * * *' });
    await h.automations.update(h.team.id, id, { triggers: [{ id: triggerId, kind: 'schedule', cron_expression: '30 10 * * *' }] } as never);
    await h.settle();
    await h.advanceTo('2026-01-05T12:30:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:30:00.000Z']);
  });
});

describe('scheduler: slots in flight', () => {
  it("records a finished run within a second while another team's slot of the same burst is still starting", async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:00Z' });
    // Each team's due slots start as one batch; another team's batch settles on its own.
    const other = await h.teams.createTeam({ slug: 'other' });
    const fast = await h.schedule({ one_off_at: '2026-01-05T10:05:00Z' }, 'fast');
    const slow = await h.schedule({ one_off_at: '2026-01-05T10:05:00Z' }, 'slow', other.id);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.holdStarts((req) => (req.triggerId === slow.triggerId ? held : undefined));
    // idle() would wait for the held start, so let real time pass in small steps instead.
    const step = () => new Promise<void>((r) => setTimeout(r, 5));
    const waitFor = async (what: string, check: () => Promise<boolean>) => {
      for (const end = Date.now() + 10_000; !(await check()); await step()) if (Date.now() > end) throw new Error(`no ${what}`);
    };

    await h.time.advanceTo('2026-01-05T10:05:00Z', step);
    await waitFor('session for the fast trigger', async () => (await h.sessions(fast.id)).length === 1);
    // Its record waits while the other start is pending...
    expect((await h.trigger(fast.triggerId)).lease_owner).toBe('daemon-test');
    // ...but not longer than a second.
    await h.time.advanceTo('2026-01-05T10:05:01Z', step);
    await waitFor('run record of the fast trigger', async () => (await h.trigger(fast.triggerId)).total_runs === 1);
    expect(await h.trigger(fast.triggerId)).toMatchObject({ status: 'completed', lease_owner: null });
    expect(await h.trigger(slow.triggerId)).toMatchObject({ total_runs: 0, lease_owner: 'daemon-test' });

    release();
    await h.settle();
    expect(await h.trigger(slow.triggerId)).toMatchObject({ total_runs: 1, status: 'completed', lease_owner: null });
    expect(await h.firedSlots(slow.triggerId)).toEqual(['2026-01-05T10:05:00.000Z']);
  });
  it('leases the slots that come due while a lease is under way together, once it ends', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:00Z' });
    // Five slots a millisecond apart; the first one's lease is held open.
    const slots = ['000', '001', '002', '003', '004'].map((msPart) => `2026-01-05T10:05:00.${msPart}Z`);
    const created = [];
    for (const at of slots) created.push(await h.schedule({ one_off_at: at }));
    const claims: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const claimDue = h.store.claimDue.bind(h.store);
    h.store.claimDue = async (keys, claim) => {
      claims.push([...keys]);
      if (claims.length === 1) await held;
      return claimDue(keys, claim);
    };
    const step = () => new Promise<void>((r) => setTimeout(r, 5));

    await h.time.advanceTo('2026-01-05T10:05:00.000Z', step);
    await h.time.advanceTo('2026-01-05T10:05:00.004Z', step);
    expect(claims).toEqual([[created[0].triggerId]]);
    release();
    await h.settle();
    expect(claims).toEqual([[created[0].triggerId], created.slice(1).map((c) => c.triggerId)]);
    for (const [i, { triggerId }] of created.entries()) expect(await h.firedSlots(triggerId)).toEqual([new Date(slots[i]).toISOString()]);
  });
});
