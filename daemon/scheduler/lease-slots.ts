// Leased due slots (CONTRACT §5), in the write that follows their lease (Store.claimDue): a slot
// still allowed to run goes on to its session; the missed-slot policy (slots.ts) decides which slot
// runs after downtime, and what was skipped is noted on the automation. A slot that runs nothing
// gives its lease back.
import { formatInZone } from '../../shared/zone-time.js';
import type { WriteTx } from '../store/store.js';
import type { AutomationRow, TriggerRow } from '../store/tables.js';
import { noteOnAutomation } from './automation-note.js';
import { MAX_COUNTED_MISSES, planSlot, type ScheduleCache } from './slots.js';

/** A slot leased by this scheduler, on its way to a session. */
export interface Firing {
  triggerId: string;
  automation: AutomationRow;
  slot: Date;
  /** the trigger's `next_run_at` when the slot was planned: it fires only while that stands */
  dueAt: string;
}

/** Whose leases these are, and how old a missed slot may be and still run. */
export interface LeasePolicy {
  instanceId: string;
  /** the catch-up window (ms) */
  window: number;
  schedules: ScheduleCache;
}

/**
 * After the slot's lease: checks that it may run, and plans which slot runs, as of the slot's time
 * when it was leased ahead of it. Returns the firing, or the trigger as it now stands, its lease
 * given back, when there is nothing to run.
 */
export async function planLeasedSlot(tx: WriteTx, id: string, leasedAt: Date, policy: LeasePolicy): Promise<Firing | { row: TriggerRow | undefined; skipped?: number }> {
  const t = await tx.get('triggers', id);
  if (!t || t.kind !== 'schedule' || t.next_run_at === null) return { row: undefined };
  const now = new Date(Math.max(leasedAt.getTime(), Date.parse(t.next_run_at)));
  // Our lease ran out and another scheduler took the slot over meanwhile.
  if (t.lease_owner !== policy.instanceId) return { row: t };
  const a = await tx.get('automations', t.automation_id);
  if (!a) return { row: undefined };
  if (a.status !== 'active' || !t.enabled || t.status !== 'active') {
    // Paused, disabled or completed between the heap and now: no next run until resumed.
    const row: TriggerRow = { ...t, next_run_at: null, lease_owner: null, lease_until: null };
    tx.put('triggers', row);
    return { row };
  }
  const plan = planSlot(t, now, policy.window, policy.schedules);
  if (!plan) {
    const row: TriggerRow = { ...t, lease_owner: null, lease_until: null };
    tx.put('triggers', row);
    return { row };
  }
  const tz = t.timezone ?? 'UTC';
  if (!plan.run) {
    const row: TriggerRow = {
      ...t,
      next_run_at: plan.next?.toISOString() ?? null,
      status: plan.next === null ? 'completed' : t.status,
      lease_owner: null,
      lease_until: null,
    };
    tx.put('triggers', row);
    const what = `${plural(plan.skipped)} (${describeRange(plan.firstSkipped, plan.lastSkipped, tz)})`;
    await noteOnAutomation(tx, a.id, `skipped ${what}: the newest was more than ${duration(policy.window)} old when the daemon got to it, beyond the catch-up window; ${plan.next ? `next run ${formatInZone(plan.next, tz)}` : 'the one-off will not run'}`, now);
    return { row, skipped: plan.skipped };
  }
  if (plan.skipped > 0 && plan.firstSkipped && plan.lastSkipped) {
    const what = `${plural(plan.skipped)} (${describeRange(plan.firstSkipped, plan.lastSkipped, tz)})`;
    await noteOnAutomation(tx, a.id, `skipped ${what} while the daemon was not running; caught up with one run for ${formatInZone(plan.slot, tz)}`, now);
  }
  return { triggerId: id, automation: a, slot: plan.slot, dueAt: t.next_run_at };
}

/** Gives back this scheduler's leases of the triggers `ids`: their slots did not fire. */
export async function releaseLeases(tx: WriteTx, ids: readonly string[], instanceId: string): Promise<void> {
  for (const t of await tx.getMany('triggers', ids)) {
    if (t && t.lease_owner === instanceId) await tx.update('triggers', t.id, { lease_owner: null, lease_until: null });
  }
}

/**
 * Releases every lease another owner holds, returning how many: when an exclusive scheduler
 * starts, they belong to dead daemons.
 */
export async function releaseOthersLeases(tx: WriteTx, instanceId: string): Promise<number> {
  let released = 0;
  for (const t of await tx.list('triggers')) {
    if (t.lease_owner === null || t.lease_owner === instanceId) continue;
    await tx.update('triggers', t.id, { lease_owner: null, lease_until: null });
    released++;
  }
  return released;
}

const plural = (n: number) => `${n >= MAX_COUNTED_MISSES ? `${n}+` : n} missed run${n === 1 ? '' : 's'}`;

function describeRange(first: Date, last: Date, tz: string): string {
  if (first.getTime() === last.getTime()) return formatInZone(first, tz);
  return `${formatInZone(first, tz)} to ${formatInZone(last, tz)}`;
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}
