// In-memory tables with equality indexes, and the transaction overlay that gives a write
// transaction read-your-writes and all-or-nothing apply. The journal store persists what this
// applies; it holds no I/O itself.
import { TABLE_NAMES, TABLE_SPECS, type TableName, type Tables } from './tables.js';
import { UniqueViolation, type IndexQuery, type PageQuery, type WriteTx } from './store.js';
import { TogetherIndex } from './together-index.js';
import { indexedPart, pageOfList } from './page-of-list.js';
import { KeyList } from './key-list.js';
import { IdSeries, newId, seriesMemberId } from './new-id.js';
import { memberIndex, PACKED, RowPack, PACK_CODECS, packPrefix, packSnapshotItems, type PackCodec, type PackEntry } from './packed-rows.js';

export type AnyRow = Record<string, unknown>;
/**
 * `put` a whole row, `del` one by key, or `set` some fields of an existing row (the patch holds
 * the row's key field and the changed fields). Transactions make put and del; the journal writes
 * a put that replaces a row as set (see journal-file.ts), so replay meets all three.
 */
export type Mutation = ['put', TableName, AnyRow] | ['del', TableName, string] | ['set', TableName, AnyRow];
export type TablesData = { [T in TableName]: Tables[T][] };

/** value -> the keys of the rows holding it (insertion-ordered), or the one key when only one row does (always, for a unique index) */
type Index = Map<unknown, KeyList | string>;

/** `Table.put` without the row it replaces: it is looked up. */
const UNKNOWN = Symbol('unknown');

/** What a key list needs of a table: its rows by key. */
export interface RowLookup {
  get(key: string): AnyRow | undefined;
}

class Table implements RowLookup {
  /** rows by key, and packs of rows (see packed-rows.ts) by their keys' shared prefix, in insertion order */
  private readonly entries = new Map<string, AnyRow | RowPack>();
  private rowCount = 0;
  private readonly fields: readonly string[];
  private readonly unique: readonly boolean[];
  /** per indexed field, same order as `fields` */
  private readonly indexes: Index[];
  private readonly byField = new Map<string, { index: Index; unique: boolean }>();
  /** per group of fields unique together (TABLE_SPECS `uniqueTogether`), its index */
  readonly together: readonly TogetherIndex[];
  /** set for a table whose new rows may be packed */
  private readonly codec: PackCodec | undefined;
  /** the pack the latest member joined: the next one mostly joins it too */
  private openPack: RowPack | undefined;

  constructor(
    private readonly key: string,
    indexFields: readonly string[],
    uniqueFields: readonly string[] = [],
    codec?: PackCodec,
    togetherGroups: readonly (readonly string[])[] = [],
  ) {
    this.together = togetherGroups.map((fields) => new TogetherIndex(fields));
    this.fields = [...indexFields];
    this.unique = this.fields.map((f) => uniqueFields.includes(f));
    this.indexes = this.fields.map(() => new Map());
    this.fields.forEach((f, i) => this.byField.set(f, { index: this.indexes[i], unique: this.unique[i] }));
    this.codec = codec;
  }

  get size(): number {
    return this.rowCount;
  }

  get(k: string): AnyRow | undefined {
    const v = this.entries.get(k);
    if (v !== undefined) return v instanceof RowPack ? undefined : v;
    if (this.codec === undefined) return undefined;
    const n = memberIndex(k);
    return n < 0 ? undefined : this.packOf(k)?.member(this.codec, n, k);
  }

  /** Every row, in insertion order, with its key. */
  *rowEntries(): IterableIterator<[string, AnyRow]> {
    for (const [k, v] of this.entries) {
      if (!(v instanceof RowPack)) {
        yield [k, v];
        continue;
      }
      for (let n = 0; n < v.slots.length; n++) {
        if (v.slots[n] === null) continue;
        const key = seriesMemberId(v.prefix, n);
        yield [key, v.member(this.codec!, n, key)!];
      }
    }
  }

  *values(): IterableIterator<AnyRow> {
    for (const [, row] of this.rowEntries()) yield row;
  }

  /**
   * A replaced row keeps its place in the indexes whose value did not change, as it keeps its
   * place in the table: index order is insertion order, whatever was updated since (and the same
   * after a restart, which loads rows in that order).
   */
  // `known` has no default: undefined (no row was there) must not turn into UNKNOWN, or every new
  // row would pay for a lookup in a table of many rows that cannot find it.
  put(row: AnyRow, known: AnyRow | undefined | typeof UNKNOWN): void {
    const k = row[this.key] as string;
    const old = known === UNKNOWN ? this.get(k) : known;
    if (!this.putInRun(k, row, old)) {
      this.entries.set(k, row);
      if (old === undefined) this.rowCount++;
    }
    for (let i = 0; i < this.fields.length; i++) {
      const field = this.fields[i];
      const v = row[field];
      if (old) {
        const was = old[field];
        if (was === v) continue;
        if (was !== undefined && was !== null) this.unindexOne(i, was, k);
      }
      if (v === undefined || v === null) continue;
      const idx = this.indexes[i];
      if (this.unique[i]) {
        idx.set(v, k);
        continue;
      }
      const entry = idx.get(v);
      // A value held by one row maps to its key; a list only once a second row holds it (most
      // values of session_id on messages stay with one or two rows).
      if (entry === undefined) idx.set(v, k);
      else if (typeof entry !== 'string') entry.add(k);
      else if (entry !== k) idx.set(v, new KeyList(entry, k));
    }
    for (const group of this.together) {
      if (old && group.sameValues(old, row)) continue;
      if (old) group.remove(old, k);
      group.add(row, k);
    }
  }

  /**
   * Stores the row in a pack when its key belongs there: a replaced member in place; a new one
   * when it continues the pack that the table's latest new row joined or opened (member 0 opens
   * one). Rows of a pack are so always next to each other in insertion order, and its members in
   * the order of their keys, which is what reads and restarts see. False: a row of its own.
   */
  private putInRun(k: string, row: AnyRow, old: AnyRow | undefined): boolean {
    if (this.codec === undefined) return false;
    const n = memberIndex(k);
    if (old !== undefined) {
      const pack = n < 0 ? undefined : this.packOf(k);
      const slot = pack?.slots[n];
      if (slot === undefined || slot === null) return false;
      pack!.set(this.codec, n, row);
      return true;
    }
    let pack = this.openPack;
    if (pack === undefined || n < pack.slots.length || !k.startsWith(pack.prefix)) {
      pack = n === 0 && this.entries.get(packPrefix(k)) === undefined ? new RowPack(packPrefix(k), row) : undefined;
      this.openPack = pack;
      if (pack === undefined) return false;
      this.entries.set(pack.prefix, pack);
    }
    pack.set(this.codec, n, row);
    pack.live++;
    this.rowCount++;
    return true;
  }

  private packOf(k: string): RowPack | undefined {
    const open = this.openPack;
    if (open !== undefined && k.startsWith(open.prefix)) return open;
    const v = this.entries.get(packPrefix(k));
    return v instanceof RowPack ? v : undefined;
  }

  delete(k: string): void {
    const old = this.get(k);
    if (!old) return;
    // Gone from the table first: a key list rebuilt while unindexing looks there.
    if (!this.entries.delete(k)) this.deleteMember(k);
    this.rowCount--;
    for (let i = 0; i < this.fields.length; i++) {
      const was = old[this.fields[i]];
      if (was !== undefined && was !== null) this.unindexOne(i, was, k);
    }
    for (const group of this.together) group.remove(old, k);
  }

  /** Empties the slot of a pack member `get` found; a pack with no member left goes. */
  private deleteMember(k: string): void {
    const pack = this.packOf(k)!;
    pack.slots[memberIndex(k)] = null;
    if (--pack.live > 0) return;
    this.entries.delete(pack.prefix);
    if (this.openPack === pack) this.openPack = undefined;
  }

  /** Row `k` no longer holds `value` in index i (the table already says so). */
  private unindexOne(i: number, value: unknown, k: string): void {
    const idx = this.indexes[i];
    const entry = idx.get(value);
    if (entry === undefined) return;
    if (typeof entry === 'string') {
      if (entry === k) idx.delete(value);
      return;
    }
    if (entry.removed(this, this.fields[i], value) === 0) idx.delete(value);
  }

  find(where: AnyRow | undefined): AnyRow[] {
    const entries = where ? Object.entries(where) : [];
    if (entries.length === 0) return [...this.values()];
    const [field, value] = entries[0];
    if (entries.length === 1) return this.findBy(field, value);
    // Every field of a group unique together given: its index holds the one row.
    const group = this.together.find((g) => g.holdsValues(where!));
    const rows = group ? group.keysOf(where!).map((k) => this.get(k)!) : this.findBy(field, value);
    return rows.filter((row) => entries.every(([f, v]) => row[f] === v));
  }

  /** The key of the row holding `value` in the unique `field`, if one does. */
  uniqueHolder(field: string, value: unknown): string | undefined {
    const entry = this.byField.get(field)?.index.get(value);
    return typeof entry === 'string' ? entry : undefined;
  }

  /** See MemoryTables.snapshotTables. */
  snapshotItems(ownFields: readonly string[]): (AnyRow | PackEntry)[] {
    const out: (AnyRow | PackEntry)[] = [];
    for (const v of this.entries.values()) {
      if (v instanceof RowPack) for (const item of packSnapshotItems(v, this.codec!, ownFields)) out.push(item);
      else out.push(v);
    }
    return out;
  }

  /** See MemoryTables.prune. */
  prune(drop: (row: AnyRow) => boolean, reads?: readonly string[]): string[] {
    const codec = this.codec;
    const sharedOnly = codec !== undefined && reads !== undefined && reads.every((f) => codec.shared.has(f));
    const removed: string[] = [];
    for (const [k, v] of this.entries) {
      if (!(v instanceof RowPack)) {
        if (drop(v)) removed.push(k);
        continue;
      }
      const packedDropped = sharedOnly ? drop(v.template) : undefined;
      for (let n = 0; n < v.slots.length; n++) {
        const slot = v.slots[n];
        if (slot === null) continue;
        // (a member's key is built only when needed: most members stay)
        if (slot !== PACKED ? drop(slot) : (packedDropped ?? drop(v.member(codec!, n, seriesMemberId(v.prefix, n))!))) removed.push(seriesMemberId(v.prefix, n));
      }
    }
    for (const k of removed) this.delete(k);
    return removed;
  }

  /** The values some row holds in the indexed `field`, each once. */
  indexedValues(field: string): IterableIterator<unknown> {
    const indexed = this.byField.get(field);
    if (!indexed) throw new Error(`field ${field} is not indexed`);
    return indexed.index.keys();
  }

  /** Rows whose indexed `field` equals `value`, through its index. */
  findBy(field: string, value: unknown): AnyRow[] {
    const indexed = this.byField.get(field);
    if (!indexed) throw new Error(`field ${field} is not indexed`);
    const entry = indexed.index.get(value);
    if (entry === undefined) return [];
    if (typeof entry === 'string') return [this.get(entry)!];
    return entry.rows(this, field, value);
  }
}

export class MemoryTables {
  private readonly tables = new Map<TableName, Table>();

  constructor() {
    for (const name of TABLE_NAMES) {
      const spec = TABLE_SPECS[name];
      this.tables.set(name, new Table(spec.key, spec.indexes, spec.unique, PACK_CODECS[name], spec.uniqueTogether));
    }
  }

  table(name: TableName): Table {
    const t = this.tables.get(name);
    if (!t) throw new Error(`unknown table ${name}`);
    return t;
  }

  get<T extends TableName>(name: T, key: string): Tables[T] | undefined {
    return this.table(name).get(key) as Tables[T] | undefined;
  }

  list<T extends TableName>(name: T, where?: IndexQuery<T>): Tables[T][] {
    return this.table(name).find(where as AnyRow | undefined) as unknown as Tables[T][];
  }

  /**
   * `replaced`, when given, holds per mutation the row a put replaces (undefined: none), as the
   * transaction that made it saw the tables: writes are serialised, so that is what they hold
   * when it is applied, and a lookup in a table of many rows is saved per put.
   */
  apply(mutations: readonly Mutation[], replaced?: readonly (AnyRow | undefined)[]): void {
    for (let i = 0; i < mutations.length; i++) {
      const m = mutations[i];
      if (m[0] === 'put') this.table(m[1]).put(m[2], replaced ? replaced[i] : UNKNOWN);
      else if (m[0] === 'del') this.table(m[1]).delete(m[2]);
      else this.patch(m[1], m[2]);
    }
  }

  private patch(name: TableName, fields: AnyRow): void {
    const t = this.table(name);
    const key = fields[TABLE_SPECS[name].key] as string;
    const old = t.get(key);
    if (!old) throw new Error(`${name} row ${key} to update does not exist`);
    t.put({ ...old, ...fields }, old);
  }

  load(data: Partial<TablesData>): void {
    for (const name of TABLE_NAMES) {
      for (const row of (data[name] ?? []) as unknown as AnyRow[]) this.table(name).put(row, UNKNOWN);
    }
  }

  /**
   * What a snapshot writes: every table's rows, a pack's packed members as pack entries (see
   * PackEntry), which SnapshotFile.read expands again.
   */
  snapshotTables(): Record<TableName, (AnyRow | PackEntry)[]> {
    const out = {} as Record<TableName, (AnyRow | PackEntry)[]>;
    for (const name of TABLE_NAMES) out[name] = this.table(name).snapshotItems(TABLE_SPECS[name].packed ?? []);
    return out;
  }

  dump(): TablesData {
    const out = {} as Record<TableName, AnyRow[]>;
    for (const name of TABLE_NAMES) out[name] = [...this.table(name).values()];
    return out as unknown as TablesData;
  }

  /**
   * Removes the rows `drop` is true for; returns their keys. Used by retention. `reads` names the
   * only fields `drop` looks at: when those are fields a pack's members share, it is asked once
   * per pack for its packed members, rather than once per member with each row built.
   */
  prune<T extends TableName>(name: T, drop: (row: Tables[T]) => boolean, reads?: readonly (keyof Tables[T] & string)[]): string[] {
    return this.table(name).prune(drop as unknown as (row: AnyRow) => boolean, reads);
  }
}

/** Per table, its unique fields and the names the overlay files them under. */
const UNIQUE_FIELDS = Object.fromEntries(
  TABLE_NAMES.map((t) => [t, ((TABLE_SPECS[t].unique ?? []) as string[]).map((field) => ({ field, name: `${t}.${field}` }))]),
) as Record<TableName, { field: string; name: string }[]>;

/** Per table, how many groups of fields unique together it has (their indexes are the table's `together`). */
const TOGETHER_GROUPS = Object.fromEntries(
  TABLE_NAMES.map((t) => [t, ((TABLE_SPECS[t].uniqueTogether ?? []) as readonly (readonly string[])[]).length]),
) as Record<TableName, number>;

const NO_KEYS: readonly string[] = Object.freeze([]);

/** A write transaction over MemoryTables: buffers writes, reads through them. */
export class OverlayTx implements WriteTx {
  private readonly overlay = new Map<TableName, Map<string, AnyRow | null>>();
  /** only `put` and `del` */
  readonly mutations: Mutation[] = [];
  /** per mutation, the row a put replaced as this transaction saw it (what the journal diffs against) */
  readonly replaced: (AnyRow | undefined)[] = [];
  /** per mutation made by update(): the key and the fields it set, which the journal writes as they are */
  readonly patches: (AnyRow | undefined)[] = [];
  /**
   * `table.field` -> value -> key, for the unique fields of rows put here: a batch of sessions
   * checks each idempotency key against the ones before it without scanning them.
   */
  private readonly putUnique = new Map<string, Map<unknown, string>>();
  /** per table, per group of fields unique together: the keys of the rows put here by their values */
  private readonly putTogether = new Map<TableName, TogetherIndex[]>();
  /** per table and group, the ids of newKey: a group's rows take ids of one series, which the store keeps together as a pack */
  private readonly idSeries = new Map<TableName, Map<string, IdSeries>>();

  constructor(private readonly base: MemoryTables) {}

  newKey(table: TableName, group?: string): string {
    if (group === undefined) return newId();
    let groups = this.idSeries.get(table);
    if (groups === undefined) this.idSeries.set(table, (groups = new Map()));
    let series = groups.get(group);
    if (series === undefined) groups.set(group, (series = new IdSeries()));
    return series.next();
  }

  async get<T extends TableName>(table: T, key: string): Promise<Tables[T] | undefined> {
    return this.current(table, key) as unknown as Tables[T] | undefined;
  }

  async getMany<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    return keys.map((k) => this.current(table, k) as unknown as Tables[T] | undefined);
  }

  async list<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<Tables[T][]> {
    const conditions = Object.entries(where ?? {});
    if (conditions.length === 1) {
      const unique = UNIQUE_FIELDS[table].find((u) => u.field === conditions[0][0]);
      if (unique) return this.listUnique(table, unique.name, conditions[0][0], conditions[0][1]) as unknown as Tables[T][];
    }
    if (conditions.length > 1 && TOGETHER_GROUPS[table] > 0) {
      const at = this.base.table(table).together.findIndex((g) => g.holdsValues(where as AnyRow));
      if (at >= 0) return this.listTogether(table, at, where as AnyRow, conditions) as unknown as Tables[T][];
    }
    const base = this.base.list(table, where) as unknown as AnyRow[];
    const o = this.overlay.get(table);
    if (!o || o.size === 0) return base as unknown as Tables[T][];
    const keyField = TABLE_SPECS[table].key as string;
    const matches = (row: AnyRow) => conditions.every(([f, v]) => row[f] === v);
    const out: AnyRow[] = [];
    const seen = new Set<string>();
    for (const row of base) {
      const k = row[keyField] as string;
      seen.add(k);
      if (!o.has(k)) out.push(row);
      else {
        const next = o.get(k);
        if (next && matches(next)) out.push(next);
      }
    }
    for (const [k, row] of o) if (row && !seen.has(k) && matches(row)) out.push(row);
    return out as unknown as Tables[T][];
  }

  async page<T extends TableName>(table: T, query: PageQuery<T>): Promise<Tables[T][]> {
    return pageOfList(await this.list(table, indexedPart(query.where) as IndexQuery<T>), TABLE_SPECS[table].key as keyof Tables[T], query);
  }

  async count<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<number> {
    return (await this.list(table, where)).length;
  }

  /**
   * `list` on a unique field (`name` is its `table.field`): the row put here with that value, else
   * the base's as this transaction sees it (gone when deleted or changed here).
   */
  private listUnique(table: TableName, name: string, field: string, value: unknown): AnyRow[] {
    const k = this.putUnique.get(name)?.get(value);
    const mine = k === undefined ? undefined : this.current(table, k);
    if (mine && mine[field] === value) return [mine];
    const [row] = this.base.table(table).findBy(field, value);
    if (!row) return [];
    const seen = this.current(table, row[TABLE_SPECS[table].key as string] as string);
    return seen && seen[field] === value ? [seen] : [];
  }

  /** `list` by every field of group `at` of the table's fields unique together (and maybe others). */
  private listTogether(table: TableName, at: number, where: AnyRow, conditions: [string, unknown][]): AnyRow[] {
    const out: AnyRow[] = [];
    for (const k of this.togetherHolders(table, at, where, undefined)) {
      const row = this.current(table, k)!;
      if (conditions.every(([f, v]) => row[f] === v)) out.push(row);
    }
    return out;
  }

  /** Keeps `row` itself, not a copy: the caller hands it over and never mutates it again (see store.ts). */
  put<T extends TableName>(table: T, row: Tables[T]): void {
    const r = row as unknown as AnyRow;
    const key = r[TABLE_SPECS[table].key as string] as string;
    this.record(table, key, r, this.current(table, key));
  }

  /** A put of a row under a fresh random key: no row can hold it, so none is looked for. */
  insert<T extends TableName>(table: T, row: Tables[T]): void {
    const r = row as unknown as AnyRow;
    this.record(table, r[TABLE_SPECS[table].key as string] as string, r, undefined);
  }

  async update<T extends TableName>(table: T, key: string, fields: Partial<Tables[T]>): Promise<Tables[T]> {
    const prev = this.current(table, key);
    if (!prev) throw new Error(`${table} row ${key} to update does not exist`);
    const next: AnyRow = { ...prev, ...fields };
    this.record(table, key, next, prev);
    this.patches[this.mutations.length - 1] = { [TABLE_SPECS[table].key]: key, ...fields };
    return next as unknown as Tables[T];
  }

  /** Writes go one at a time: no other can change the rows before this one commits. */
  getManyLocked<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    return this.getMany(table, keys);
  }

  // (writes take turns: what this transaction sees is what was committed, and its own writes)
  listCommitted<T extends TableName>(table: T, where: IndexQuery<T>): Promise<Tables[T][]> {
    return this.list(table, where);
  }

  async increment<T extends TableName>(
    table: T,
    key: string,
    deltas: Partial<Record<keyof Tables[T], number>>,
    set: Partial<Tables[T]> = {},
  ): Promise<Tables[T]> {
    const prev = this.current(table, key);
    if (!prev) throw new Error(`${table} row ${key} to increment does not exist`);
    // Writes are serialised: the sums made here are what the journal records, as values.
    const fields: AnyRow = { ...(set as AnyRow) };
    for (const f in deltas) {
      const delta = deltas[f];
      if (delta !== undefined) fields[f] = ((prev[f] as number | undefined) ?? 0) + delta;
    }
    return this.update(table, key, fields as Partial<Tables[T]>);
  }

  /** The row as this transaction sees it. */
  private current(table: TableName, key: string): AnyRow | undefined {
    const slot = this.overlay.get(table);
    if (slot?.has(key)) return slot.get(key) ?? undefined;
    return this.base.get(table, key) as unknown as AnyRow | undefined;
  }

  private record(table: TableName, key: string, row: AnyRow, prev: AnyRow | undefined): void {
    this.checkUnique(table, key, row, prev);
    this.slot(table).set(key, row);
    for (const { field, name } of UNIQUE_FIELDS[table]) {
      const v = row[field];
      if (v === undefined || v === null) continue;
      let seen = this.putUnique.get(name);
      if (!seen) this.putUnique.set(name, (seen = new Map()));
      seen.set(v, key);
    }
    if (TOGETHER_GROUPS[table] > 0) for (const group of this.togetherPut(table)) group.add(row, key);
    this.mutations.push(['put', table, row]);
    this.replaced.push(prev);
  }

  /**
   * Throws UniqueViolation, before anything of the write is recorded, when another row holds a
   * value of `row`'s unique fields, or its values of fields unique together, as this transaction
   * sees the tables. Values the row already held (`prev`) are not looked up again.
   */
  private checkUnique(table: TableName, key: string, row: AnyRow, prev: AnyRow | undefined): void {
    for (const { field, name } of UNIQUE_FIELDS[table]) {
      const v = row[field];
      if (v === undefined || v === null || (prev !== undefined && prev[field] === v)) continue;
      const mine = this.putUnique.get(name)?.get(v);
      const theirs = this.base.table(table).uniqueHolder(field, v);
      const holds = (k: string | undefined) => k !== undefined && k !== key && this.current(table, k)?.[field] === v;
      if (holds(mine) || holds(theirs)) throw new UniqueViolation(table, [field]);
    }
    const groups = this.base.table(table).together;
    for (let i = 0; i < groups.length; i++) {
      const group = groups[i];
      if (!group.holdsValues(row) || (prev !== undefined && group.sameValues(prev, row))) continue;
      if (this.togetherHolders(table, i, row, key).length > 0) throw new UniqueViolation(table, group.fields);
    }
  }

  /** The keys of the rows other than `except` that hold `row`'s values of group `at`, as this transaction sees them. */
  private togetherHolders(table: TableName, at: number, row: AnyRow, except: string | undefined): readonly string[] {
    const group = this.base.table(table).together[at];
    const mine = this.putTogether.get(table)?.[at].keysOf(row);
    const theirs = group.keysOf(row);
    // (the common answer, none, allocates nothing: this runs for every session an event starts)
    if ((mine === undefined || mine.length === 0) && theirs.length === 0) return NO_KEYS;
    const out: string[] = [];
    for (const k of mine === undefined ? theirs : [...mine, ...theirs]) {
      if (k === except || out.includes(k)) continue;
      const seen = this.current(table, k);
      if (seen && group.sameValues(seen, row)) out.push(k);
    }
    return out;
  }

  private togetherPut(table: TableName): TogetherIndex[] {
    let groups = this.putTogether.get(table);
    if (!groups) this.putTogether.set(table, (groups = this.base.table(table).together.map((g) => new TogetherIndex(g.fields))));
    return groups;
  }

  delete<T extends TableName>(table: T, key: string): void {
    this.slot(table).set(key, null);
    this.mutations.push(['del', table, key]);
    this.replaced.push(undefined);
  }

  private slot(table: TableName): Map<string, AnyRow | null> {
    let o = this.overlay.get(table);
    if (!o) this.overlay.set(table, (o = new Map()));
    return o;
  }
}
