// Packed rows: rows stored together as one entry, a pack. A matched event stores ten sessions that differ in
// a few fields (automation, trigger, prompt, environment, event) and hold the same values in all
// the others. Kept as ten row objects under ten keys of a table of hundreds of thousands, each
// cost a map insertion that misses the cache, an object that lives on in the old generation for
// the collector to mark again and again, and most of what a matched event costs. A pack keeps the
// first row whole (its template), then per member only its own values; rows are built on read.
// Members' keys share a prefix and count up in their last hex digits (IdSeries, new-id.ts), so
// the pack is found through the prefix and the member through the count, with no entry per row.
import type { AnyRow } from './memory-tables.js';
import { MAX_SERIES_MEMBERS, SERIES_PREFIX_LENGTH, seriesMemberId } from './new-id.js';
import { TABLE_FIELDS, TABLE_NAMES, TABLE_SPECS, type TableName } from './tables.js';

/** How a table's rows are taken apart into a pack's template and members' own values, and back. */
export class PackCodec {
  /** how many fields members keep of their own */
  readonly width: number;
  /** the fields members share (every field but the key and the own ones) */
  readonly shared: ReadonlySet<string>;
  readonly #shared: readonly string[];

  constructor(
    fields: readonly string[],
    /** the key field */
    private readonly key: string,
    /** the fields members keep of their own, in the order `pack` writes them */
    private readonly own: readonly string[],
  ) {
    this.width = own.length;
    this.#shared = fields.filter((f) => f !== key && !own.includes(f));
    this.shared = new Set(this.#shared);
  }

  /**
   * Whether `row` holds the template's values in every field members share: the same values, or
   * equal lists and records (an event's receipt lists the same dispatches as the others of its
   * batch). A packed member then holds the template's, so equal lists are kept once.
   */
  fits(template: AnyRow, row: AnyRow): boolean {
    for (const f of this.#shared) if (!sameValue(template[f], row[f])) return false;
    return true;
  }

  /** Appends the member's own values to `own`. */
  pack(row: AnyRow, own: unknown[]): void {
    for (const f of this.own) own.push(row[f]);
  }

  /** The member's row: the template's fields, its key, and its own values (from `own[at]` on). */
  unpack(template: AnyRow, key: string, own: readonly unknown[], at: number): AnyRow {
    return memberRow(template, this.key, key, this.own, own, at);
  }
}

/** Whether two stored values are equal: the same value, or lists and records of equal values. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (!Object.hasOwn(b, k) || !sameValue((a as AnyRow)[k], (b as AnyRow)[k])) return false;
  return true;
}

/**
 * A copy of `template` with `keyField` set to `key` and `ownFields` to the values from `values[at]`
 * on. A copy with a few fields set keeps the template's shape, so the members of a pack are all
 * built as one kind of object.
 */
function memberRow(template: AnyRow, keyField: string, key: string, ownFields: readonly string[], values: readonly unknown[], at: number): AnyRow {
  const row = { ...template };
  row[keyField] = key;
  for (let i = 0; i < ownFields.length; i++) row[ownFields[i]] = values[at + i];
  return row;
}

/** A member kept as its own values in `own` (the others are whole rows, or null once deleted). */
export const PACKED = 1;

/** The codec of each table whose rows may be packed (TABLE_SPECS `packed`). */
export const PACK_CODECS: Partial<Record<TableName, PackCodec>> = Object.fromEntries(
  TABLE_NAMES.flatMap((t) => {
    const spec = TABLE_SPECS[t] as { key: string; packed?: readonly string[] };
    return spec.packed ? [[t, new PackCodec(TABLE_FIELDS[t], spec.key, spec.packed)]] : [];
  }),
);

export class RowPack {
  /** per member: PACKED, its whole row (it does not fit the template), or null (deleted) */
  readonly slots: (typeof PACKED | AnyRow | null)[] = [];
  /** the own values of every member, `width` a member, in member order (a deleted or whole member's stay, unread) */
  readonly own: unknown[] = [];
  /** members not deleted */
  live = 0;

  constructor(
    /** what its members' keys start with */
    readonly prefix: string,
    /** the first member's row */
    readonly template: AnyRow,
  ) {}

  /** Member `n`'s row, or undefined when it has none. */
  member(codec: PackCodec, n: number, key: string): AnyRow | undefined {
    const slot = this.slots[n];
    if (slot === PACKED) return codec.unpack(this.template, key, this.own, n * codec.width);
    return slot ?? undefined;
  }

  /**
   * Sets member `n` to `row`, packed when it fits: one already here (replaced), or a new one past
   * the last (positions skipped on the way stay empty).
   */
  set(codec: PackCodec, n: number, row: AnyRow): void {
    const { slots, own } = this;
    const fits = codec.fits(this.template, row);
    if (n === slots.length) {
      slots.push(fits ? PACKED : row);
      // a whole member's own values are never read, but keep their place
      if (fits) codec.pack(row, own);
      else for (let i = 0; i < codec.width; i++) own.push(undefined);
      return;
    }
    while (slots.length <= n) {
      slots.push(null);
      for (let i = 0; i < codec.width; i++) own.push(undefined);
    }
    if (!fits) {
      slots[n] = row;
      return;
    }
    const packed: unknown[] = [];
    codec.pack(row, packed);
    for (let i = 0; i < codec.width; i++) own[n * codec.width + i] = packed[i];
    slots[n] = PACKED;
  }
}

/** The position a key has in the pack of its prefix, or -1 when it cannot be a member's. */
export function memberIndex(key: string): number {
  if (key.length !== SERIES_PREFIX_LENGTH + 3) return -1;
  let n = 0;
  for (let i = SERIES_PREFIX_LENGTH; i < key.length; i++) {
    const c = key.charCodeAt(i);
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (d < 0) return -1;
    n = n * 16 + d;
  }
  return n < MAX_SERIES_MEMBERS ? n : -1;
}

export const packPrefix = (key: string) => key.slice(0, SERIES_PREFIX_LENGTH);

/**
 * How a snapshot writes the packed members of a pack that stand next to each other: their shared
 * fields once, then per member its position and own values.
 * Members kept whole are written as rows, in their place. The reader expands the entries before
 * anything else looks at the rows (expandRunEntries), so a restart loads rows as before, and they
 * form the same packs again.
 */
export interface PackEntry {
  /** the pack's prefix, under the name snapshots have written since schema 8 */
  $run: string;
  /** the fields the members share */
  shared: AnyRow;
  /** the names of the values in each member after its position */
  own: string[];
  /** per member, `[position, ...own values]` */
  members: unknown[][];
}

/** The pack's members as a snapshot writes them: PackEntry for packed ones, rows for whole ones. */
export function packSnapshotItems(pack: RowPack, codec: PackCodec, ownFields: readonly string[]): (PackEntry | AnyRow)[] {
  const shared: AnyRow = {};
  for (const f of codec.shared) shared[f] = pack.template[f];
  const out: (PackEntry | AnyRow)[] = [];
  let entry: PackEntry | undefined;
  for (let n = 0; n < pack.slots.length; n++) {
    const slot = pack.slots[n];
    if (slot === null) continue;
    if (slot !== PACKED) {
      entry = undefined;
      out.push(slot);
      continue;
    }
    if (entry === undefined) out.push((entry = { $run: pack.prefix, shared, own: [...ownFields], members: [] }));
    const member: unknown[] = [n];
    for (let i = 0; i < codec.width; i++) member.push(pack.own[n * codec.width + i]);
    entry.members.push(member);
  }
  return out;
}

/**
 * The rows a snapshot table holds, its PackEntry items expanded, each member a row of the entry's
 * shared fields, its key and its own values. Throws a message naming the item when an entry is
 * not one.
 */
export function expandRunEntries(table: TableName, items: readonly unknown[]): unknown[] {
  if (!items.some(isPackEntry)) return items as unknown[];
  const fields: readonly string[] = TABLE_FIELDS[table];
  const key = TABLE_SPECS[table].key as string;
  const out: unknown[] = [];
  items.forEach((item, i) => {
    if (!isPackEntry(item)) {
      out.push(item);
      return;
    }
    const { $run: prefix, shared, own, members } = item;
    if (typeof prefix !== 'string' || prefix.length !== SERIES_PREFIX_LENGTH || shared === null || typeof shared !== 'object' || !Array.isArray(own) || !Array.isArray(members)) {
      throw new Error(`item ${i} is a pack entry without its prefix, shared fields, own field names or members`);
    }
    if (!own.every((f) => f !== key && fields.includes(f))) throw new Error(`item ${i} is a pack entry whose own field names are not fields of the table`);
    for (const m of members) {
      if (!Array.isArray(m) || m.length !== own.length + 1 || !Number.isInteger(m[0]) || (m[0] as number) < 0 || (m[0] as number) >= MAX_SERIES_MEMBERS) {
        throw new Error(`item ${i} is a pack entry with a member that is not [position, ${own.length} values]`);
      }
      out.push(memberRow(shared as AnyRow, key, seriesMemberId(prefix, m[0] as number), own, m, 1));
    }
  });
  return out;
}

const isPackEntry = (item: unknown): item is PackEntry => item !== null && typeof item === 'object' && Object.hasOwn(item, '$run');
