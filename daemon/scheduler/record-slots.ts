// Recording what a leased slot's start came to: the run counted (or the failure, or the note of a
// refused team) and the trigger moved on to its next slot with the lease cleared.
import { ApiError } from '../errors.js';
import { applyRunOutcome } from '../sessions/automation-health.js';
import type { WriteTx } from '../store/store.js';
import type { TriggerRow } from '../store/tables.js';
import { noteOnAutomation } from './automation-note.js';
import type { Firing } from './lease-slots.js';
import type { ScheduledOutcome, SchedulerLog } from './scheduler.js';
import { isCron, type ScheduleCache } from './slots.js';
import { stillDueAt } from './still-due.js';

/**
 * How a slot's start went. `denied`: the team was not admitted (402), so no run happened: the
 * error is noted on the automation but is no failed run, and does not count towards disabling it.
 */
export type SlotResult = { firing: Firing; firedAt: Date; started: boolean; error: string | null; errorRecorded: boolean; denied: boolean };

/** What a slot's start at `firedAt` came to (`log`: where an unexpected error is reported). */
export function slotResult(firing: Firing, outcome: ScheduledOutcome | { thrown: unknown }, firedAt: Date, log: SchedulerLog | undefined): SlotResult {
  if ('created' in outcome) return { firing, firedAt, started: true, error: null, errorRecorded: true, denied: false };
  // Paused (or the trigger disabled, or its schedule changed) since the lease: no run, and the
  // record moves it on as it now stands.
  if ('inactive' in outcome) return { firing, firedAt, started: false, error: null, errorRecorded: true, denied: false };
  const err = 'error' in outcome ? outcome.error : outcome.thrown;
  // The session service stores a session the runner refused as failed and records that outcome
  // itself; anything else (402, an environment gone) stored nothing, so it is ours to record.
  const refused = err instanceof ApiError && err.code === 'SESSION_START_FAILED';
  if (!(err instanceof ApiError)) log?.error({ err, triggerId: firing.triggerId }, 'scheduled session start failed');
  const error = `scheduled run for ${firing.slot.toISOString()} failed: ${err instanceof ApiError ? err.message : 'internal error'}`;
  const denied = err instanceof ApiError && err.code === 'EXECUTION_DENIED';
  return { firing, firedAt, started: refused, error, errorRecorded: refused, denied };
}

/**
 * In the record transaction: counts the slot's run or failure and moves the trigger on to its next
 * slot, clearing this scheduler's lease. Returns the trigger as it now stands.
 */
export async function recordSlot(
tx: WriteTx,
r: SlotResult,
now: Date,
{ instanceId, schedules }: { instanceId: string; schedules: ScheduleCache },
): Promise<{ row: TriggerRow | undefined; disabled: boolean }> {
  const { firing } = r;
  const at = now.toISOString();
  let disabled = false;
  if (r.error !== null && !r.errorRecorded) {
    if (r.denied) await noteOnAutomation(tx, firing.automation.id, r.error, now);
    else disabled = await applyRunOutcome(tx, firing.automation.id, { ok: false, error: r.error }, at);
  }
  const t = await tx.get('triggers', firing.triggerId);
  // Deleted meanwhile, or our lease ran out and another scheduler took the slot over.
  if (!t || t.lease_owner !== instanceId) return { row: t, disabled };
  // Paused, disabled or given another schedule after the slot was planned: it did not run, and
  // the trigger keeps the next run that change gave it.
  if (!r.started && !stillDueAt(t.next_run_at, firing.dueAt)) return { row: await tx.update('triggers', t.id, { lease_owner: null, lease_until: null }), disabled };
  const a = await tx.get('automations', t.automation_id);
  const active = !!a && a.status === 'active' && t.enabled && t.status === 'active';
  // The next slot from now, not from the slot: a run that started late causes no burst.
  const after = new Date(Math.max(now.getTime(), firing.slot.getTime()));
  const upcoming = schedules.next(t, after);
  const fields: Partial<TriggerRow> = {
    lease_owner: null,
    lease_until: null,
    last_run_at: r.started ? r.firedAt.toISOString() : t.last_run_at,
    next_run_at: active && upcoming ? upcoming.toISOString() : null,
    // A one-off whose time has passed is done, whether its run started or failed.
    status: !isCron(t) && upcoming === null ? 'completed' : t.status,
  };
  // The run is counted by an atomic add, not from the count read above.
  const row = r.started ? await tx.increment('triggers', t.id, { total_runs: 1 }, fields) : await tx.update('triggers', t.id, fields);
  return { row, disabled };
}
