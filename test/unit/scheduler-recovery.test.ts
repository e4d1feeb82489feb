import { afterEach, describe, expect, it } from 'vitest';
import { scheduleKey } from '../../daemon/scheduler/scheduler.js';
import { makeHarness, type Harness } from './scheduler-harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const HOUR = 3_600_000;

/** A daemon down from `from` to `to`: one schedule trigger made at `from`, the scheduler started at `to`. */
async function downBetween(from: string, to: string, trigger: Parameters<Harness['schedule']>[0], catchUpWindowMs?: number) {
  h = await makeHarness({ now: from, start: false, ...(catchUpWindowMs === undefined ? {} : { catchUpWindowMs }) });
  const ids = await h.schedule(trigger);
  h.time.now = Date.parse(to);
  await h.scheduler.start();
  await h.settle();
  return ids;
}

describe('scheduler: missed slots after downtime', () => {
  it('runs the newest missed slot once when it is within the catch-up window and notes the skipped ones', async () => {
    // The daemon is down from 09:30 to 12:20: 10:00, 11:00 and 12:00 pass.
    const { id, triggerId } = await downBetween('2026-01-05T09:30:00Z', '2026-01-05T12:20:00Z', { cron_expression: '0 * * * *' }, HOUR);

    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T12:00:00.000Z']);
    expect(await h.trigger(triggerId)).toMatchObject({ next_run_at: '2026-01-05T13:00:00.000Z', total_runs: 1, last_run_at: '2026-01-05T12:20:00.000Z' });
    const a = await h.automation(id);
    expect(a.last_error).toMatch(/^skipped 2 missed runs \(2026-01-05 10:00 UTC to 2026-01-05 11:00 UTC\)/);
    expect(a.last_error_at).toBe('2026-01-05T12:20:00.000Z');
    expect(a.status).toBe('active');

    await h.advanceTo('2026-01-05T13:00:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T12:00:00.000Z', '2026-01-05T13:00:00.000Z']);
  });

  it('keeps the notes of every schedule trigger of an automation caught up at the same moment', async () => {
    h = await makeHarness({ now: '2026-01-05T09:30:00Z', start: false, catchUpWindowMs: HOUR });
    const view = await h.automations.create(h.team.id, {
      name: 'two zones',
      prompt: 'p',
      triggers: [
        { kind: 'schedule', cron_expression: '0 * * * *' },
        { kind: 'schedule', cron_expression: '30 * * * *', timezone: 'Asia/Kolkata' },
      ],
    } as never);
    h.time.now = Date.parse('2026-01-05T12:20:00Z');
    await h.scheduler.start();
    await h.settle();
    const a = await h.automation(view.id);
    // in whichever order the two leased
    const notes = a.last_error!.split('; also ').sort();
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^skipped 2 missed runs \(2026-01-05 10:00 UTC to 2026-01-05 11:00 UTC\) while the daemon was not running; caught up/);
    expect(notes[1]).toMatch(/^skipped 2 missed runs \(2026-01-05 15:30 GMT\+5:30 to 2026-01-05 16:30 GMT\+5:30\) while/);
  });

  it('runs nothing when the newest missed slot is older than the window, and says so', async () => {
    const { id, triggerId } = await downBetween('2026-01-05T09:30:00Z', '2026-01-05T13:30:00Z', { cron_expression: '0 * * * *' }, 15 * 60_000);

    expect(h.starts).toHaveLength(0);
    expect(await h.trigger(triggerId)).toMatchObject({ next_run_at: '2026-01-05T14:00:00.000Z', total_runs: 0, lease_owner: null });
    const a = await h.automation(id);
    expect(a.last_error).toMatch(/^skipped 4 missed runs \(2026-01-05 10:00 UTC to 2026-01-05 13:00 UTC\).*catch-up window/);
    expect(a.status).toBe('active');

    await h.advanceTo('2026-01-05T14:00:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T14:00:00.000Z']);
  });

  it('runs nothing when the one slot that passed is older than the window (a daily cron missed by hours)', async () => {
    // Down from 19:00 to 23:07: only the 20:00 slot passed, three hours ago.
    const { id, triggerId } = await downBetween('2026-01-05T19:00:00Z', '2026-01-05T23:07:00Z', { cron_expression: '0 20 * * *' }, HOUR);

    expect(h.starts).toHaveLength(0);
    expect(await h.trigger(triggerId)).toMatchObject({ next_run_at: '2026-01-06T20:00:00.000Z', total_runs: 0, lease_owner: null });
    expect((await h.automation(id)).last_error).toMatch(/^skipped 1 missed run \(2026-01-05 20:00 UTC\).*catch-up window/);
  });

  it('runs the one slot that passed when it is within the window', async () => {
    const { triggerId } = await downBetween('2026-01-05T19:00:00Z', '2026-01-05T20:40:00Z', { cron_expression: '0 20 * * *' }, HOUR);
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T20:00:00.000Z']);
  });

  it('runs a missed one-off once within the window', async () => {
    const { triggerId } = await downBetween('2026-01-05T09:00:00Z', '2026-01-05T09:50:00Z', { one_off_at: '2026-01-05T09:10:00Z' });
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T09:10:00.000Z']);
    expect(await h.trigger(triggerId)).toMatchObject({ status: 'completed', next_run_at: null, total_runs: 1 });
  });

  it('completes a one-off missed by more than the window without running it', async () => {
    const { id, triggerId } = await downBetween('2026-01-05T09:00:00Z', '2026-01-05T12:00:00Z', { one_off_at: '2026-01-05T09:10:00Z' });
    expect(h.starts).toHaveLength(0);
    expect(await h.trigger(triggerId)).toMatchObject({ status: 'completed', next_run_at: null, total_runs: 0 });
    expect((await h.automation(id)).last_error).toMatch(/^skipped 1 missed run \(2026-01-05 09:10 UTC\).*will not run/);
    expect(h.time.pending()).toEqual([]);
  });

  it('treats a slot a few seconds late as late, not missed, even with a zero window', async () => {
    const { id, triggerId } = await downBetween('2026-01-05T09:00:00Z', '2026-01-05T09:10:05Z', { cron_expression: '*/10 * * * *' }, 0);
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T09:10:00.000Z']);
    expect((await h.automation(id)).last_error).toBeNull();
  });
});

describe('scheduler: leases', () => {
  it('does not fire a slot leased by another live owner, and picks it up once that lease expires', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    const t = await h.trigger(triggerId);
    await h.putTrigger({ ...t, lease_owner: 'daemon-other', lease_until: '2026-01-05T10:07:00.000Z' });
    h.scheduler.schedulesChanged();
    await h.settle();
    expect(h.time.pending()).toEqual([Date.parse('2026-01-05T10:07:00Z')]);

    await h.advanceTo('2026-01-05T10:06:59Z');
    expect(h.starts).toHaveLength(0);
    expect((await h.trigger(triggerId)).lease_owner).toBe('daemon-other');

    await h.advanceTo('2026-01-05T10:07:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:05:00.000Z']);
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: null, lease_until: null, total_runs: 1, next_run_at: '2026-01-05T10:10:00.000Z' });
  });

  it('re-checks the lease at fire time when another owner took it after the heap was built', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { triggerId } = await h.schedule({ cron_expression: '*/5 * * * *' });
    const t = await h.trigger(triggerId);
    await h.putTrigger({ ...t, lease_owner: 'daemon-other', lease_until: '2026-01-05T10:08:00.000Z' }); // no wake-up call
    await h.advanceTo('2026-01-05T10:05:00Z');
    expect(h.starts).toHaveLength(0);
    expect(h.time.pending()).toEqual([Date.parse('2026-01-05T10:08:00Z')]);
    await h.advanceTo('2026-01-05T10:08:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:05:00.000Z']);
  });

  it('takes over at start the leases a dead daemon left, when it owns the store alone', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z', start: false, exclusive: true });
    const { triggerId } = await h.schedule({ one_off_at: '2026-01-05T10:02:00Z' });
    const t = await h.trigger(triggerId);
    await h.putTrigger({ ...t, lease_owner: 'daemon-crashed', lease_until: '2026-01-05T10:07:00.000Z' });
    h.time.now = Date.parse('2026-01-05T10:03:00Z');
    await h.scheduler.start();
    await h.settle();
    expect(await h.firedSlots(triggerId)).toEqual(['2026-01-05T10:02:00.000Z']);
    expect(await h.trigger(triggerId)).toMatchObject({ lease_owner: null, status: 'completed' });
  });

  it('starts no second session when a crash left the lease after the session had started', async () => {
    h = await makeHarness({ now: '2026-01-05T10:01:00Z' });
    const { id, triggerId } = await h.schedule({ one_off_at: '2026-01-05T10:05:00Z' });
    // A previous daemon leased the slot, started its session, and died before recording the run.
    const t = await h.trigger(triggerId);
    await h.putTrigger({ ...t, lease_owner: 'daemon-crashed', lease_until: '2026-01-05T10:10:00.000Z' });
    await h.store.write(async (tx) => {
      const at = '2026-01-05T10:05:00.100Z';
      tx.put('sessions', {
        session_id: 'earlier-session',
        team_id: h.team.id,
        kind: 'conversational',
        persona: 'main',
        status: 'completed',
        prompt: 'run',
        parent_session_id: null,
        automation_id: id,
        trigger_id: triggerId,
        idempotency_key: scheduleKey(triggerId, new Date('2026-01-05T10:05:00Z')),
        environment_id: null,
        event_row_id: null,
        created_at: at,
        updated_at: at,
        started_at: at,
        completed_at: at,
        last_error: null,
      });
    });
    h.scheduler.schedulesChanged();
    await h.advanceTo('2026-01-05T10:10:00Z');

    expect(h.starts.map((s) => s.idempotencyKey)).toEqual([scheduleKey(triggerId, new Date('2026-01-05T10:05:00Z'))]);
    expect((await h.sessions(id)).map((s) => s.session_id)).toEqual(['earlier-session']);
    expect(await h.trigger(triggerId)).toMatchObject({ total_runs: 1, status: 'completed', lease_owner: null });
  });
});

describe('scheduler: failed runs', () => {
  it('notes a refused start (402) on the automation, without counting it as a failed run', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:30Z' });
    const { id, triggerId } = await h.schedule({ cron_expression: '* * * * *' });
    await h.teams.updateTeam('acme', { execution_admitted: false });

    await h.advanceTo('2026-01-05T10:01:00Z');
    let a = await h.automation(id);
    expect(a.last_error).toMatch(/scheduled run for 2026-01-05T10:01:00.000Z failed: .*not admitted/);
    expect(a.last_error_at).toBe('2026-01-05T10:01:00.000Z');
    // Nothing started, so nothing counts as a run; the schedule moves on.
    expect(await h.trigger(triggerId)).toMatchObject({ total_runs: 0, next_run_at: '2026-01-05T10:02:00.000Z', lease_owner: null });

    // A team held back for a quarter of an hour does not lose its automations to it.
    await h.advanceTo('2026-01-05T10:15:00Z');
    expect(h.starts).toHaveLength(15);
    a = await h.automation(id);
    expect(a.status).toBe('active');
    expect(a.last_error).toMatch(/scheduled run for 2026-01-05T10:15:00.000Z failed: .*not admitted/);
    expect((await h.store.read((tx) => tx.get('automations', id)))!.consecutive_failures).toBe(0);
    expect(await h.sessions(id)).toEqual([]);
  });

  it('disables an automation after 10 failed runs in a row, and keeps saying so as later runs fail', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:30Z' });
    const { id, triggerId } = await h.schedule({ cron_expression: '* * * * *' });
    h.setRunnerDown(true);

    await h.advanceTo('2026-01-05T10:01:00Z');
    let a = await h.automation(id);
    // Named as the scheduled run it was, as a run that could not start at all is.
    expect(a.last_error).toBe('scheduled run for 2026-01-05T10:01:00.000Z failed: the runner could not start the session: the runner is down');
    expect(a.status).toBe('active');
    // The session exists (failed), so the slot counts as a run.
    expect(await h.trigger(triggerId)).toMatchObject({ total_runs: 1, next_run_at: '2026-01-05T10:02:00.000Z' });

    await h.advanceTo('2026-01-05T10:15:00Z');
    expect(h.starts).toHaveLength(10);
    a = await h.automation(id);
    expect(a.status).toBe('disabled');
    expect(a.last_error).toMatch(/^disabled after 10 failed runs in a row; last error: .*the runner is down/);
    expect(a.next_run_at).toBeNull();
    expect(h.time.pending()).toEqual([]);

    // A run by hand that fails too does not wipe out why the automation is disabled.
    await expect(h.sessionService.runNow(h.team.id, id)).rejects.toThrow('the runner is down');
    a = await h.automation(id);
    expect(a.status).toBe('disabled');
    expect(a.last_error).toBe('disabled after 11 failed runs in a row; last error: the runner could not start the session: the runner is down');

    // Nor does a run by hand that succeeds in between: it is still disabled for those failures.
    h.setRunnerDown(false);
    await h.sessionService.runNow(h.team.id, id);
    h.setRunnerDown(true);
    await expect(h.sessionService.runNow(h.team.id, id)).rejects.toThrow('the runner is down');
    a = await h.automation(id);
    expect(a.status).toBe('disabled');
    expect(a.last_error).toMatch(/^disabled after 12 failed runs in a row; last error: .*the runner is down/);
  });

  it('resets the failure count once a run succeeds', async () => {
    h = await makeHarness({ now: '2026-01-05T10:00:30Z' });
    const { id } = await h.schedule({ cron_expression: '* * * * *' });
    h.setRunnerDown(true);
    await h.advanceTo('2026-01-05T10:09:00Z');
    expect((await h.store.read((tx) => tx.get('automations', id)))!.consecutive_failures).toBe(9);
    h.setRunnerDown(false);
    await h.advanceTo('2026-01-05T10:20:00Z');
    const a = (await h.store.read((tx) => tx.get('automations', id)))!;
    expect(a.consecutive_failures).toBe(0);
    expect(a.status).toBe('active');
    expect(await h.sessions(id)).toHaveLength(20);
  });
});

