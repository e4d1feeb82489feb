// The keys of the rows holding one value of a non-unique index (a team's sessions, an automation's
// sessions), in insertion order. A Set did this job, but adding to a Set of a hundred thousand
// keys probes its hash table and compares strings on the way, a cache miss or more each time, and
// a matched event adds twenty. Appending to an array costs none of that. A key that leaves the
// value (its row deleted, or moved to another value) is not searched for: it stays, marked stale
// by count, and readers skip it by looking at the row, which they fetch anyway. Once half the
// keys are stale the list is rebuilt, so the cost of removals stays proportional to them.
import type { AnyRow, RowLookup } from './memory-tables.js';

export class KeyList {
  private keys: string[];
  /** keys in `keys` that no longer (or not there) stand for a row holding the value */
  private stale = 0;

  constructor(first: string, second: string) {
    this.keys = [first, second];
  }

  add(key: string): void {
    this.keys.push(key);
  }

  /**
   * `key` left the value: its row is gone from `rows` or holds another value there already.
   * Returns how many keys are live, 0 when the list can go.
   */
  removed(rows: RowLookup, field: string, value: unknown): number {
    this.stale++;
    if (this.stale * 2 >= this.keys.length) this.compact(rows, field, value);
    return this.keys.length - this.stale;
  }

  /** The rows holding the value, in the order their keys (last) joined it. */
  rows(rows: RowLookup, field: string, value: unknown): AnyRow[] {
    // A read that meets stale keys rebuilds the list, so later reads need not skip them again.
    if (this.stale > 0) this.compact(rows, field, value);
    const out: AnyRow[] = [];
    for (const k of this.keys) out.push(rows.get(k)!);
    return out;
  }

  /**
   * Keeps the keys whose row holds the value, each once, where it last joined: a row that left
   * the value and came back was appended again, as a Set would have moved it to the end.
   */
  private compact(rows: RowLookup, field: string, value: unknown): void {
    const seen = new Set<string>();
    const live: string[] = [];
    for (let i = this.keys.length - 1; i >= 0; i--) {
      const k = this.keys[i];
      if (seen.has(k)) continue;
      seen.add(k);
      if (rows.get(k)?.[field] === value) live.push(k);
    }
    this.keys = live.reverse();
    this.stale = 0;
  }
}
