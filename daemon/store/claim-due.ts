// Store.claimDue for a store whose writes take turns (the JSON-file store): inside one write, each
// trigger is checked and leased in turn, so no two claims can take the same slot.
import type { ClaimedLeases, LeaseClaim, WriteTx } from './store.js';
import type { TriggerRow } from './tables.js';

/** Leases each of `keys` that is a due schedule trigger with a free lease (see Store.claimDue). */
export async function claimDueIn(tx: WriteTx, keys: readonly string[], claim: LeaseClaim): Promise<ClaimedLeases> {
  const out: ClaimedLeases = { claimed: [], takenOver: 0, passed: new Map() };
  const rows = await tx.getMany('triggers', keys);
  for (const row of rows) {
    if (!row || row.kind !== 'schedule') continue;
    if (!isDue(row, claim.dueBy) || !leaseIsFree(row, claim)) {
      out.passed.set(row.id, { next_run_at: row.next_run_at, lease_owner: row.lease_owner, lease_until: row.lease_until });
      continue;
    }
    if (row.lease_owner !== null && row.lease_owner !== claim.owner) out.takenOver++;
    await tx.update('triggers', row.id, { lease_owner: claim.owner, lease_until: claim.until });
    out.claimed.push(row.id);
  }
  return out;
}

// ISO-8601 UTC timestamps compare as text.
const isDue = (t: TriggerRow, dueBy: string) => t.next_run_at !== null && t.next_run_at <= dueBy;

// (a lease is over at its `lease_until`: the scheduler wakes for it then)
const leaseIsFree = (t: TriggerRow, { owner, now }: LeaseClaim) =>
  t.lease_owner === null || t.lease_owner === owner || t.lease_until === null || t.lease_until <= now;
