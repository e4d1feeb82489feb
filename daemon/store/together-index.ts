// The index of a group of fields unique together (TABLE_SPECS `uniqueTogether`): the keys of the
// rows by the values of all the group's fields. Nested maps, one level a field, so no combined key
// is built per row. The levels go from the group's last field to its first: groups name what owns
// the value first (a team, an automation) and the value itself last (a name, an event id), so the
// outer map is keyed by the value, and the rows one write adds for one value (an event's sessions)
// meet in one small inner map rather than in a large map per owner. A row with a null (or missing) value in the group is not held: as in SQL,
// nulls are never equal, so such rows never conflict.
import type { AnyRow } from './memory-tables.js';

/** The key of the row holding the values, or the keys of several rows (data stored before the group was unique may hold duplicates). */
type Held = string | string[];

export class TogetherIndex {
  private readonly root = new Map<unknown, unknown>();

  /** the fields in nesting order, outer map first */
  private readonly levels: readonly string[];

  constructor(readonly fields: readonly string[]) {
    this.levels = [...fields].reverse();
  }

  /** Whether the row has a value in every field of the group. */
  holdsValues(row: AnyRow): boolean {
    for (const f of this.fields) if (row[f] === undefined || row[f] === null) return false;
    return true;
  }

  /** Whether two rows hold the same values in every field of the group. */
  sameValues(a: AnyRow, b: AnyRow): boolean {
    for (const f of this.fields) if (a[f] !== b[f]) return false;
    return true;
  }

  /** The keys of the rows holding `row`'s values in the group's fields (none when one of them is null). */
  keysOf(row: AnyRow): readonly string[] {
    if (!this.holdsValues(row)) return NONE;
    let level: unknown = this.root;
    for (const f of this.levels) {
      level = (level as Map<unknown, unknown>).get(row[f]);
      if (level === undefined) return NONE;
    }
    return typeof level === 'string' ? [level] : (level as string[]);
  }

  add(row: AnyRow, key: string): void {
    if (!this.holdsValues(row)) return;
    const last = this.levels.length - 1;
    let level = this.root;
    for (let i = 0; i < last; i++) {
      const v = row[this.levels[i]];
      let next = level.get(v) as Map<unknown, unknown> | undefined;
      if (next === undefined) level.set(v, (next = new Map()));
      level = next;
    }
    const v = row[this.levels[last]];
    const held = level.get(v) as Held | undefined;
    if (held === undefined || held === key) level.set(v, key);
    else if (typeof held === 'string') level.set(v, [held, key]);
    else if (!held.includes(key)) held.push(key);
  }

  /** Row `key` no longer holds `row`'s values. */
  remove(row: AnyRow, key: string): void {
    if (!this.holdsValues(row)) return;
    const path: Map<unknown, unknown>[] = [this.root];
    for (let i = 0; i < this.levels.length - 1; i++) {
      const next = path[i].get(row[this.levels[i]]) as Map<unknown, unknown> | undefined;
      if (next === undefined) return;
      path.push(next);
    }
    const last = this.levels.length - 1;
    const level = path[last];
    const v = row[this.levels[last]];
    const held = level.get(v) as Held | undefined;
    if (held === undefined) return;
    if (typeof held === 'string') {
      if (held !== key) return;
      level.delete(v);
    } else {
      const rest = held.filter((k) => k !== key);
      level.set(v, rest.length === 1 ? rest[0] : rest);
      return;
    }
    // Maps left empty go, so a group's first field (an automation that is gone) leaves nothing behind.
    for (let i = last; i > 0 && path[i].size === 0; i--) path[i - 1].delete(row[this.levels[i - 1]]);
  }
}

const NONE: readonly string[] = Object.freeze([]);
