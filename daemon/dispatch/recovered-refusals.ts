// Event sessions the runner refused when a daemon start handed them over. They were stored, and
// counted as runs, by a dispatch whose process died before the hand-over; the runner's refusal
// now means that dispatch started nothing for them. As dispatch itself does when a runner
// refuses, the receipts stop naming them as dispatched and say why (the event's own, and those of
// later deliveries of its id that found them), and their triggers' run counters are taken back.
import type { ApiError } from '../errors.js';
import type { WriteTx } from '../store/store.js';
import type { EventRow, SessionRow } from '../store/tables.js';
import { eventReason } from './reason.js';
import { earlierRefusalMessage, eventIdempotencyKey } from './service.js';
import type { RefusedRunTimes } from './trigger-counts.js';

type Refused = { row: SessionRow; error: ApiError };
type Failure = { name: string; message: string };

export async function takeBackRefusedEventRuns(tx: WriteTx, refused: readonly Refused[], refusedTimes: RefusedRunTimes): Promise<void> {
  const byEvent = new Map<string, Refused[]>();
  for (const r of refused) {
    if (r.row.event_row_id === null) continue;
    const group = byEvent.get(r.row.event_row_id);
    if (group) group.push(r);
    else byEvent.set(r.row.event_row_id, [r]);
  }
  for (const [eventRowId, group] of byEvent) {
    // Retention may have dropped the receipt: the counters are corrected all the same.
    const receipt = await tx.get('events', eventRowId);
    if (receipt) {
      const names = await automationNames(tx, group);
      await correctReceipt(tx, receipt, group.map((r, i) => ({ automationId: r.row.automation_id, failure: { name: names[i], message: `${r.error.message} (handed over when the daemon restarted)` } })));
      for (const later of await laterDeliveries(tx, receipt)) {
        const found = group.flatMap((r, i) =>
          later.dispatched.some((d) => d.automationId === r.row.automation_id)
            ? [{ automationId: r.row.automation_id, failure: { name: names[i], message: earlierRefusalMessage(r.error.message, receipt.event_id) } }]
            : [],
        );
        if (found.length > 0) await correctReceipt(tx, later, found);
      }
    }
    for (const { row } of group) {
      if (row.trigger_id !== null) await takeBackRun(tx, row.trigger_id, receipt?.received_at, refusedTimes);
    }
  }
}

async function automationNames(tx: WriteTx, refused: readonly Refused[]): Promise<string[]> {
  const names: string[] = [];
  for (const { row } of refused) {
    const automation = row.automation_id === null ? undefined : await tx.get('automations', row.automation_id);
    names.push(automation?.name ?? `automation ${row.automation_id}`);
  }
  return names;
}

/** Receipts of the same event id stored after `receipt` (retries), newest first. */
async function laterDeliveries(tx: WriteTx, receipt: EventRow): Promise<EventRow[]> {
  const all = await tx.list('events', { team_id: receipt.team_id });
  const out: EventRow[] = [];
  for (let i = all.length - 1; i >= 0 && all[i].id !== receipt.id; i--) {
    if (all[i].event_id === receipt.event_id) out.push(all[i]);
  }
  return out;
}

/** The receipt without the automations `removed` names among those dispatched, and with their failures. */
async function correctReceipt(tx: WriteTx, receipt: EventRow, removed: readonly { automationId: string | null; failure: Failure }[]): Promise<void> {
  const gone = new Set(removed.map((r) => r.automationId));
  const dispatched = receipt.dispatched.filter((d) => !gone.has(d.automationId));
  // Of those still dispatched, the ones whose session an earlier delivery of the id started.
  let repeated = 0;
  for (const d of dispatched) {
    const [s] = await tx.list('sessions', { idempotency_key: eventIdempotencyKey(d.automationId, receipt.event_id) });
    if (s && s.event_row_id !== receipt.id) repeated++;
  }
  // A receipt from before failures were kept names its earlier ones in its reason only.
  const failures = [...(receipt.failures ?? []), ...removed.map((r) => r.failure)];
  const reason = eventReason({
    event: { id: receipt.event_id, provider: receipt.provider, event_type: receipt.event_type },
    verdicts: [],
    dispatched: dispatched.length,
    repeated,
    failures,
    dryRun: false,
  });
  tx.put('events', { ...receipt, dispatched, accepted: dispatched.length > 0, reason, failures });
}

/**
 * One run fewer on the trigger. When its last run is this event's, last_run_at goes back to the
 * run before it that the runner took (none: null). When a later run has moved it on already,
 * that later run's dispatch may still be refused: it is told where to go back to instead of here.
 */
async function takeBackRun(tx: WriteTx, triggerId: string, receivedAt: string | undefined, refusedTimes: RefusedRunTimes): Promise<void> {
  const trigger = await tx.get('triggers', triggerId);
  if (!trigger) return;
  let lastRunAt = trigger.last_run_at;
  if (receivedAt !== undefined) {
    const back = await lastRunTakenBefore(tx, trigger.automation_id, triggerId, receivedAt);
    if (lastRunAt === receivedAt) lastRunAt = back;
    else refusedTimes.remember(triggerId, receivedAt, back);
  }
  await tx.update('triggers', triggerId, { total_runs: Math.max(0, trigger.total_runs - 1), last_run_at: lastRunAt });
}

/**
 * The newest event run of the trigger before `before` that the runner took. Sessions are stored
 * in the order dispatch received their events, so the newest such session is the one wanted.
 */
async function lastRunTakenBefore(tx: WriteTx, automationId: string, triggerId: string, before: string): Promise<string | null> {
  const sessions = await tx.list('sessions', { automation_id: automationId });
  for (let i = sessions.length - 1; i >= 0; i--) {
    const s = sessions[i];
    if (s.trigger_id !== triggerId || s.event_row_id === null) continue;
    // A refused start (failed before it ever started) is no run.
    if (s.status === 'failed' && s.started_at === null) continue;
    const receipt = await tx.get('events', s.event_row_id);
    if (receipt && receipt.received_at < before) return receipt.received_at;
  }
  return null;
}
