// When each schedule trigger is next actionable: the rows read from the store, and a min-heap of
// their due times. It is rebuilt from the triggers table whenever schedules change, so a burst of
// thousands of due slots costs O(log n) each to take.
import type { DueState, Store } from '../store/store.js';
import { DueHeap, type HeapEntry } from './heap.js';

/** A trigger the heap knows about: what it was computed from, and when it is next actionable. */
interface Known {
  row: DueState;
  at: number;
}

export class DueIndex {
  private readonly heap = new DueHeap();
  private known = new Map<string, Known>();

  /** `instanceId`: this scheduler's, whose own leases do not delay a trigger */
  constructor(private readonly instanceId: string) {}

  /** The trigger as last read or remembered, and when it is actionable. */
  get(id: string): Known | undefined {
    return this.known.get(id);
  }

  /** Takes the top entry off the heap (after validTop found it due). */
  pop(): void {
    this.heap.pop();
  }

  /**
   * Rebuilds the index from the schedule triggers as the store has them now; triggers being
   * fired (`inFlight`) stay out of the heap until remembered again.
   */
  async load(store: Store, inFlight: ReadonlySet<string>): Promise<void> {
    const rows = await store.read((tx) => tx.list('triggers', { kind: 'schedule' }));
    const known = new Map<string, Known>();
    for (const row of rows) {
      const at = this.actionableAt(row);
      if (at !== null) known.set(row.id, { row, at });
    }
    this.known = known;
    const entries: { id: string; at: number }[] = [];
    for (const [id, k] of known) if (!inFlight.has(id)) entries.push({ id, at: k.at });
    this.heap.reset(entries);
  }

  /** When the scheduler should next look at a trigger: its next run, or when a foreign lease ends. */
  private actionableAt(row: DueState): number | null {
    if (row.next_run_at === null) return null;
    const due = Date.parse(row.next_run_at);
    if (Number.isNaN(due)) return null;
    if (row.lease_owner !== null && row.lease_owner !== this.instanceId && row.lease_until !== null) {
      const until = Date.parse(row.lease_until);
      if (!Number.isNaN(until)) return Math.max(due, until);
    }
    return due;
  }

  /**
   * Puts a trigger (back) in the index as the row now stands, not to be looked at before
   * `notBefore` (epoch ms) when given; undefined or nothing to run forgets it.
   */
  remember(row: DueState | undefined, id: string, notBefore?: number): void {
    const actionable = row ? this.actionableAt(row) : null;
    const at = actionable === null ? null : Math.max(actionable, notBefore ?? actionable);
    if (!row || at === null) {
      this.known.delete(id);
      return;
    }
    this.known.set(id, { row, at });
    this.heap.push({ id, at });
  }

  /** The earliest entry still current and not being fired (stale entries are dropped on the way). */
  validTop(inFlight: ReadonlySet<string>): HeapEntry | undefined {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      const k = this.known.get(top.id);
      if (k && k.at === top.at && !inFlight.has(top.id)) return top;
      this.heap.pop();
    }
    return undefined;
  }
}
