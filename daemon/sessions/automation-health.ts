// How run outcomes feed back into their automation (CONTRACT §4): failures are counted in a row
// and noted in last_error; a success resets the count; the 10th failure in a row disables the
// automation and stops its schedules. Sessions and the scheduler both report through here.
import type { Clock } from '../clock.js';
import { lastErrorFields } from '../automations/last-error.js';
import type { ScheduleListener } from '../automations/service.js';
import type { Store, WriteTx } from '../store/store.js';
import type { AutomationRow } from '../store/tables.js';

export const AUTO_DISABLE_AFTER = 10;

/**
 * `interrupted`: the daemon ended the run itself (a restart or a shutdown), which says nothing of
 * the automation: it is noted in last_error, but neither counts as a failure nor resets the count.
 */
export type RunOutcome = { ok: true } | { ok: false; error: string; interrupted?: boolean };

/**
 * Applies one run's outcome to the automation inside the caller's write transaction. Returns
 * true when this outcome disabled the automation: the caller then tells the scheduler (after the
 * write committed) via AutomationHealth.disabled().
 */
export async function applyRunOutcome(tx: WriteTx, automationId: string, outcome: RunOutcome, at: string): Promise<boolean> {
  const a = await tx.get('automations', automationId);
  if (!a) return false;
  if (outcome.ok) {
    // An automation failures disabled stays so, with its count and note, until it is set active
    // again: a run by hand that succeeds does not make the note's failures disappear.
    if (a.consecutive_failures !== 0 && !disabledByFailures(a)) await tx.update('automations', automationId, { consecutive_failures: 0, updated_at: at });
    return false;
  }
  const note = lastErrorFields(outcome.error, at);
  if (outcome.interrupted) {
    // (an automation that failures disabled keeps saying why)
    if (!disabledByFailures(a)) await tx.update('automations', automationId, { ...note, updated_at: at });
    return false;
  }
  // The count moves by an atomic add, and what follows is decided on the row that add returns.
  const counted = await tx.increment('automations', automationId, { consecutive_failures: 1 }, { ...note, updated_at: at });
  const failures = counted.consecutive_failures;
  // A run started by hand while the automation is paused or disabled still counts, but only an
  // active automation can be switched off by it.
  const disable = failures >= AUTO_DISABLE_AFTER && counted.status === 'active';
  // Once failures disabled it, the note keeps saying so whatever fails later (runs that were
  // under way, runs started by hand), until someone sets it active again (which resets the count).
  const noteDisabling = disable || disabledByFailures({ status: counted.status, consecutive_failures: failures - 1 });
  if (noteDisabling) {
    await tx.update('automations', automationId, {
      status: 'disabled',
      ...lastErrorFields(`disabled after ${failures} failed runs in a row; last error: ${outcome.error}`, at),
    });
  }
  if (disable) {
    // Same as pausing by hand: a schedule that is not active has no next run.
    for (const t of await tx.list('triggers', { automation_id: automationId })) {
      if (t.kind === 'schedule' && t.next_run_at !== null) await tx.update('triggers', t.id, { next_run_at: null, updated_at: at });
    }
  }
  return disable;
}

/** The same, as a write of its own, plus the scheduler wake-up when an automation got disabled. */
export class AutomationHealth {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly listener: ScheduleListener,
  ) {}

  async record(automationId: string, outcome: RunOutcome): Promise<void> {
    const disabled = await this.store.write((tx) => applyRunOutcome(tx, automationId, outcome, this.clock().toISOString()));
    this.disabled(disabled);
  }

  /** Call after a write in which applyRunOutcome returned `wasDisabled`. */
  disabled(wasDisabled: boolean): void {
    if (wasDisabled) void this.listener.schedulesChanged();
  }
}

/** Disabled by failing 10 times in a row (not by hand): its last_error says so until it is set active again. */
const disabledByFailures = (a: Pick<AutomationRow, 'status' | 'consecutive_failures'>) => a.status === 'disabled' && a.consecutive_failures >= AUTO_DISABLE_AFTER;
