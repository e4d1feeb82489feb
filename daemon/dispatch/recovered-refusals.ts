// Event sessions the runner refused when a daemon start handed them over. They were stored, and
// counted as runs, by a dispatch whose process died before the hand-over; the runner's refusal
// now means that dispatch started nothing for them. As dispatch itself does when a runner
// refuses, the receipt stops naming them as dispatched and says why, and their triggers' run
// counters are taken back.
import type { ApiError } from '../errors.js';
import type { WriteTx } from '../store/store.js';
import type { EventRow, SessionRow } from '../store/tables.js';
import { eventReason } from './reason.js';
import { eventIdempotencyKey } from './service.js';

export async function takeBackRefusedEventRuns(tx: WriteTx, refused: readonly { row: SessionRow; error: ApiError }[]): Promise<void> {
  const byEvent = new Map<string, { row: SessionRow; error: ApiError }[]>();
  for (const r of refused) {
    if (r.row.event_row_id === null) continue;
    const group = byEvent.get(r.row.event_row_id);
    if (group) group.push(r);
    else byEvent.set(r.row.event_row_id, [r]);
  }
  for (const [eventRowId, group] of byEvent) {
    // Retention may have dropped the receipt: the counters are corrected all the same.
    const receipt = await tx.get('events', eventRowId);
    if (receipt) await correctReceipt(tx, receipt, group);
    for (const { row } of group) {
      if (row.trigger_id !== null) await takeBackRun(tx, row.trigger_id, receipt?.received_at);
    }
  }
}

async function correctReceipt(tx: WriteTx, receipt: EventRow, refused: readonly { row: SessionRow; error: ApiError }[]): Promise<void> {
  const gone = new Set(refused.map((r) => r.row.automation_id));
  const dispatched = receipt.dispatched.filter((d) => !gone.has(d.automationId));
  // Of those still dispatched, the ones whose session an earlier delivery of the id started.
  let repeated = 0;
  for (const d of dispatched) {
    const [s] = await tx.list('sessions', { idempotency_key: eventIdempotencyKey(d.automationId, receipt.event_id) });
    if (s && s.event_row_id !== receipt.id) repeated++;
  }
  const failures: { name: string; message: string }[] = [];
  for (const { row, error } of refused) {
    const automation = row.automation_id === null ? undefined : await tx.get('automations', row.automation_id);
    failures.push({ name: automation?.name ?? `automation ${row.automation_id}`, message: `${error.message} (handed over when the daemon restarted)` });
  }
  const reason = eventReason({
    event: { id: receipt.event_id, provider: receipt.provider, event_type: receipt.event_type },
    verdicts: [],
    dispatched: dispatched.length,
    repeated,
    failures: [...earlierFailures(receipt.reason), ...failures],
    dryRun: false,
  });
  tx.put('events', { ...receipt, dispatched, accepted: dispatched.length > 0, reason });
}

const FAILURE_CLAUSE = 'session start failed for ';

/**
 * The failures the receipt already named (automations whose session could not even be stored),
 * as eventReason writes them: `; session start failed for "NAME": MESSAGE`.
 */
function earlierFailures(reason: string): { name: string; message: string }[] {
  return reason
    .split(`; ${FAILURE_CLAUSE}`)
    .slice(1)
    .flatMap((clause) => {
      const m = /^("(?:[^"\\]|\\.)*"): ([\s\S]*)$/.exec(clause);
      if (!m) return [];
      try {
        return [{ name: JSON.parse(m[1]) as string, message: m[2] }];
      } catch {
        return [];
      }
    });
}

/**
 * One run fewer on the trigger. When its last run is this event's, last_run_at goes back to the
 * newest event run of the trigger that its runner took (none: null).
 */
async function takeBackRun(tx: WriteTx, triggerId: string, receivedAt: string | undefined): Promise<void> {
  const trigger = await tx.get('triggers', triggerId);
  if (!trigger) return;
  let lastRunAt = trigger.last_run_at;
  if (receivedAt !== undefined && lastRunAt === receivedAt) lastRunAt = await lastRunTaken(tx, trigger.automation_id, triggerId);
  await tx.update('triggers', triggerId, { total_runs: Math.max(0, trigger.total_runs - 1), last_run_at: lastRunAt });
}

async function lastRunTaken(tx: WriteTx, automationId: string, triggerId: string): Promise<string | null> {
  const sessions = await tx.list('sessions', { automation_id: automationId });
  // Newest first; a refused start (failed before it ever started) is no run.
  for (let i = sessions.length - 1; i >= 0; i--) {
    const s = sessions[i];
    if (s.trigger_id !== triggerId || s.event_row_id === null) continue;
    if (s.status === 'failed' && s.started_at === null) continue;
    const receipt = await tx.get('events', s.event_row_id);
    if (receipt) return receipt.received_at;
  }
  return null;
}
