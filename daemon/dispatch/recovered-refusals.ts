// Event sessions the runner refused when a daemon start handed them over. They were stored by a
// dispatch whose process died before the hand-over; the runner's refusal now means that dispatch
// started nothing for them. As dispatch itself does when a runner refuses, the receipts stop
// naming them as dispatched and say why (the event's own, and those of later deliveries of its id
// that found them). Their runs stay counted: a refused session is a failed run.
import type { ApiError } from '../errors.js';
import type { WriteTx } from '../store/store.js';
import type { EventRow, SessionRow } from '../store/tables.js';
import { eventReason } from './reason.js';
import { sessionForEvent } from '../sessions/keys.js';
import { earlierRefusalMessage } from './service.js';

type Refused = { row: SessionRow; error: ApiError };
type Failure = { name: string; message: string };

export async function correctRefusedEventReceipts(tx: WriteTx, refused: readonly Refused[]): Promise<void> {
  const byEvent = new Map<string, Refused[]>();
  for (const r of refused) {
    if (r.row.event_row_id === null) continue;
    const group = byEvent.get(r.row.event_row_id);
    if (group) group.push(r);
    else byEvent.set(r.row.event_row_id, [r]);
  }
  for (const [eventRowId, group] of byEvent) {
    // Retention may have dropped the receipt.
    const receipt = await tx.get('events', eventRowId);
    if (!receipt) continue;
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
    const s = await sessionForEvent(tx, receipt.team_id, d.automationId, receipt.event_id);
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
