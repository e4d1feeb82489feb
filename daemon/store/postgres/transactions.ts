// Read and write transactions over one connection (or the pool, for reads).
//
// Reads asked for together go as one statement per table and field (read-batches.ts). A write
// transaction also keeps what it wrote and read, by key: its snapshot does not move (SERIALIZABLE),
// so a row it has seen reads the same until it changes it, and is not asked for again. It keeps
// its writes until a read of the same table or the commit, then sends each stretch of one kind of
// write to a table as one statement, and those of different tables together: a batch's sessions
// are one INSERT, its counters one UPDATE, both in one round trip.
// A change to a row it has seen is worked out here and sent with the others; the database still
// applies it as `f = f + n` to the row as stored, and a concurrent change of that row ends the
// transaction with a serialisation failure, so what the callback was told stands.
// Writes to different tables may go out in another order than they were made: the schema has no
// foreign keys or triggers, so the rows that result are the same.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { CursorGoneError, type IndexQuery, type PageQuery, type ReadTx, type WriteTx } from '../store.js';
import type { TableName, Tables } from '../tables.js';
import { ReadBatches, rowsFor, type Lent } from './read-batches.js';
import type { Statement, Statements, TableSql } from './statements.js';

/** Something that runs a statement: a pooled client in a transaction, or the pool itself. */
export interface Queryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<pg.QueryResult>;
}

type Row = Record<string, unknown>;

const run = (db: Queryable, s: Statement, values: unknown[]) => db.query({ name: s.name, text: s.text, values });

export class PgReadTx implements ReadTx {
  /** `batches`: how this transaction's reads gather, and on which connection they are sent */
  constructor(
    protected readonly db: Queryable,
    protected readonly sql: Statements,
    protected readonly batches: ReadBatches,
  ) {}

  /** Sends what the transaction still holds for `table` before a read of it (see PgWriteTx). */
  protected async beforeRead(_table: TableName): Promise<void> {}

  async get<T extends TableName>(table: T, key: string): Promise<Tables[T] | undefined> {
    const t = this.sql[table];
    if (!t.fits(t.key, key)) return undefined;
    const found = await this.batches.rowsWhere(table, t.key, [key]);
    return rowsFor(found, t, t.key, key)[0] as unknown as Tables[T] | undefined;
  }

  async getMany<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    return this.readMany(table, keys, false);
  }

  protected async readMany<T extends TableName>(table: T, keys: readonly string[], locked: boolean): Promise<(Tables[T] | undefined)[]> {
    const t = this.sql[table];
    const asked = keys.filter((k) => t.fits(t.key, k));
    if (asked.length === 0) return keys.map(() => undefined);
    const found = await this.batches.rowsWhere(table, t.key, asked, locked);
    return keys.map((k) => (t.fits(t.key, k) ? (rowsFor(found, t, t.key, k)[0] as unknown as Tables[T] | undefined) : undefined));
  }

  async list<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<Tables[T][]> {
    const t = this.sql[table];
    const query = this.whereOf(t, where);
    if (query === null) return [];
    // One field equal to a value: gathered with other lists of the same field.
    if (query.fields.length === 1 && query.values.length === 1) {
      const [field] = query.fields;
      const found = await this.batches.rowsWhere(table, field, [query.values[0] as string]);
      return rowsFor(found, t, field, query.values[0] as string) as unknown as Tables[T][];
    }
    await this.beforeRead(table);
    const { rows } = query.statement ? await run(this.db, query.statement, query.values) : await run(this.db, t.all, []);
    return rows.map((raw) => t.row(raw) as unknown as Tables[T]);
  }

  async count<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<number> {
    const t = this.sql[table];
    const query = this.whereOf(t, where, true);
    if (query === null) return 0;
    await this.beforeRead(table);
    const { rows } = await run(this.db, query.statement ?? t.countAll, query.values);
    return rows[0].n as number;
  }

  async page<T extends TableName>(table: T, query: PageQuery<T>): Promise<Tables[T][]> {
    const t = this.sql[table];
    await this.beforeRead(table);
    // Where the page starts: before the cursor row, or at the row after it when it has gone.
    let bound: unknown[] | undefined;
    if (query.after !== undefined) {
      const last = await this.positionOf(t, query.after, query.newestBy);
      const next = last === undefined && query.orAt !== undefined ? await this.positionOf(t, query.orAt, query.newestBy) : undefined;
      if (last === undefined && next === undefined) throw new CursorGoneError();
      const at = last ?? { ...next!, ord: next!.ord + 1 };
      bound = query.newestBy ? [at.at, at.ord] : [at.ord];
    }
    const where = query.where as Record<string, unknown>;
    const fields = Object.keys(where).filter((f) => where[f] !== undefined);
    const values: unknown[] = [];
    const nulls: boolean[] = [];
    for (const f of fields) {
      if (!t.fits(f, where[f])) return [];
      nulls.push(where[f] === null);
      if (where[f] !== null) values.push(where[f]);
    }
    if (bound) values.push(...bound);
    values.push(query.limit);
    const { rows } = await run(this.db, t.page(fields, nulls, bound !== undefined, query.newestBy), values);
    return rows.map((raw) => t.row(raw) as unknown as Tables[T]);
  }

  private async positionOf(t: TableSql, key: string, newestBy: string | undefined): Promise<{ ord: number; at?: unknown } | undefined> {
    if (!t.fits(t.key, key)) return undefined;
    const { rows } = await run(this.db, t.positionOf(newestBy), [key]);
    return rows.length === 0 ? undefined : (rows[0] as { ord: number; at?: unknown });
  }

  /** The statement and values of an equality query; null when no row can match (a non-UUID in a uuid column). */
  private whereOf(t: TableSql, where: Record<string, unknown> | undefined, count = false): { statement?: Statement; fields: string[]; values: unknown[] } | null {
    const fields = where ? Object.keys(where).filter((f) => where[f] !== undefined) : [];
    if (fields.length === 0) return { fields, values: [] };
    const values: unknown[] = [];
    const nulls: boolean[] = [];
    for (const f of fields) {
      const v = where![f];
      if (!t.fits(f, v)) return null;
      nulls.push(v === null);
      if (v !== null) values.push(v);
    }
    return { statement: t.where(fields, nulls, count), fields, values };
  }
}

/** Changes held for rows of one table: sets and additions by field. */
interface Change {
  set: Row;
  add: Record<string, number>;
}

/** A stretch of writes of one kind to one table, sent as one statement (updates: one per set of fields). */
type Stretch = { op: 'insert'; rows: Row[] } | { op: 'upsert'; rows: Row[] } | { op: 'delete'; keys: string[] } | { op: 'update'; changes: Map<string, Change> };

export class PgWriteTx extends PgReadTx implements WriteTx {
  /** per table, in the order they were made, the stretches of writes not sent yet */
  private pending = new Map<TableName, Stretch[]>();
  /** per table, the rows this transaction has read or written by normalised key (null: none) */
  private readonly known = new Map<TableName, Map<string, Row | null>>();
  /** per table, the keys of the rows read locked (getManyLocked) */
  private readonly lockedKeys = new Map<TableName, Set<string>>();

  /** `committed`: reads outside the transaction, on connections of their own (listCommitted) */
  constructor(
    db: Queryable,
    sql: Statements,
    private readonly committed: ReadTx,
  ) {
    // Reads asked for together (Promise.all) go together; a transaction waits for nothing else.
    let flushTables: (tables: ReadonlySet<TableName>) => Promise<void> = async () => undefined;
    const own: Lent = { db, done: () => undefined };
    super(db, sql, new ReadBatches(sql, { schedule: queueMicrotask, connection: async () => own, beforeSend: (tables) => flushTables(tables) }));
    flushTables = (tables) => this.flush(tables);
  }

  protected override async beforeRead(table: TableName): Promise<void> {
    await this.flush(new Set([table]));
  }

  private knownOf(table: TableName): Map<string, Row | null> {
    let m = this.known.get(table);
    if (!m) this.known.set(table, (m = new Map()));
    return m;
  }

  private remember(table: TableName, rows: readonly Row[]): void {
    const t = this.sql[table];
    const m = this.knownOf(table);
    for (const row of rows) m.set(t.norm(t.key, row[t.key]), row);
  }

  override async get<T extends TableName>(table: T, key: string): Promise<Tables[T] | undefined> {
    const t = this.sql[table];
    if (!t.fits(t.key, key)) return undefined;
    const m = this.knownOf(table);
    const k = t.norm(t.key, key);
    if (!m.has(k)) {
      const row = await super.get(table, key);
      // (unless the callback wrote the row while the read was under way)
      if (!m.has(k)) m.set(k, (row as Row | undefined) ?? null);
    }
    return (m.get(k) ?? undefined) as Tables[T] | undefined;
  }

  override async getMany<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    const t = this.sql[table];
    const m = this.knownOf(table);
    const unknown = keys.filter((k) => t.fits(t.key, k) && !m.has(t.norm(t.key, k)));
    if (unknown.length > 0) {
      const rows = await super.getMany(table, unknown);
      unknown.forEach((k, i) => {
        const nk = t.norm(t.key, k);
        if (!m.has(nk)) m.set(nk, (rows[i] as Row | undefined) ?? null);
      });
    }
    return keys.map((k) => (t.fits(t.key, k) ? ((m.get(t.norm(t.key, k)) ?? undefined) as Tables[T] | undefined) : undefined));
  }

  override async list<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<Tables[T][]> {
    const rows = await super.list(table, where);
    this.remember(table, rows as unknown as Row[]);
    return rows;
  }

  put<T extends TableName>(table: T, row: Tables[T]): void {
    this.hold('upsert', table, row as unknown as Row);
  }

  /**
   * A time-ordered UUID (version 7: the time in ms, then 74 random bits): a new row's key comes
   * after the keys before it in the primary key's index, where an insert touches the pages the
   * last ones did, rather than a random page each. The group says nothing here.
   */
  newKey(): string {
    const random = randomUUID();
    const ms = Date.now().toString(16).padStart(12, '0');
    return `${ms.slice(0, 8)}-${ms.slice(8, 12)}-7${random.slice(15)}`;
  }

  insert<T extends TableName>(table: T, row: Tables[T]): void {
    this.hold('insert', table, row as unknown as Row);
  }

  delete<T extends TableName>(table: T, key: string): void {
    const t = this.sql[table];
    this.knownOf(table).set(t.norm(t.key, key), null);
    const last = this.stretchesOf(table).at(-1);
    if (last?.op === 'delete') last.keys.push(key);
    else this.stretchesOf(table).push({ op: 'delete', keys: [key] });
  }

  listCommitted<T extends TableName>(table: T, where: IndexQuery<T>): Promise<Tables[T][]> {
    return this.committed.list(table, where);
  }

  /** Rows read locked are read again locked only once: the lock holds until the transaction ends. */
  async getManyLocked<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    const t = this.sql[table];
    const m = this.knownOf(table);
    let locked = this.lockedKeys.get(table);
    if (!locked) this.lockedKeys.set(table, (locked = new Set()));
    const unlocked = keys.filter((k) => t.fits(t.key, k) && !locked.has(t.norm(t.key, k)));
    if (unlocked.length > 0) {
      const rows = await this.readMany(table, unlocked, true);
      unlocked.forEach((k, i) => {
        const nk = t.norm(t.key, k);
        locked.add(nk);
        // (a row this transaction wrote stays as it wrote it)
        if (!m.has(nk)) m.set(nk, (rows[i] as Row | undefined) ?? null);
      });
    }
    return keys.map((k) => (t.fits(t.key, k) ? ((m.get(t.norm(t.key, k)) ?? undefined) as Tables[T] | undefined) : undefined));
  }

  async update<T extends TableName>(table: T, key: string, fields: Partial<Tables[T]>): Promise<Tables[T]> {
    return this.change(table, key, fields as Row, {});
  }

  async increment<T extends TableName>(table: T, key: string, deltas: Partial<Record<keyof Tables[T], number>>, set: Partial<Tables[T]> = {}): Promise<Tables[T]> {
    return this.change(table, key, set as Row, deltas as Record<string, number>);
  }

  /** `set` fields take their values, `deltas` fields are added to, atomically. */
  private async change<T extends TableName>(table: T, key: string, set: Row, deltas: Record<string, number>): Promise<Tables[T]> {
    const t = this.sql[table];
    const setFields = Object.keys(set).filter((f) => f !== t.key && set[f] !== undefined);
    const addFields = Object.keys(deltas).filter((f) => deltas[f] !== undefined);
    if (!t.fits(t.key, key)) throw new Error(`${table} ${key} does not exist`);
    const m = this.knownOf(table);
    const k = t.norm(t.key, key);
    const seen = m.get(k);
    if (seen === null) throw new Error(`${table} ${key} does not exist`);
    if (seen !== undefined) {
      // A row this transaction has seen: worked out here, sent with the other writes.
      const next: Row = { ...seen };
      for (const f of setFields) next[f] = set[f];
      for (const f of addFields) next[f] = ((seen[f] as number | undefined) ?? 0) + deltas[f];
      t.row(next);
      m.set(k, next);
      if (setFields.length + addFields.length > 0) this.holdChange(table, seen[t.key] as string, setFields, set, addFields, deltas);
      return next as unknown as Tables[T];
    }
    // (nothing held touches a row this transaction has not seen: the update need not wait for them)
    if (setFields.length === 0 && addFields.length === 0) {
      const row = await this.get(table, key);
      if (row) return row;
      throw new Error(`${table} ${key} does not exist`);
    }
    const values = Object.fromEntries([...setFields.map((f) => [f, set[f]]), ...addFields.map((f) => [f, deltas[f]])]);
    const { rows } = await run(this.db, t.update(setFields, addFields), [key, JSON.stringify(values)]);
    if (rows.length === 0) {
      m.set(k, null);
      throw new Error(`${table} ${key} does not exist`);
    }
    const row = t.row(rows[0]);
    m.set(k, row);
    return row as unknown as Tables[T];
  }

  private stretchesOf(table: TableName): Stretch[] {
    let stretches = this.pending.get(table);
    if (!stretches) this.pending.set(table, (stretches = []));
    return stretches;
  }

  private hold(op: 'insert' | 'upsert', table: TableName, row: Row): void {
    const t = this.sql[table];
    this.knownOf(table).set(t.norm(t.key, row[t.key]), row);
    const stretches = this.stretchesOf(table);
    const last = stretches.at(-1);
    if (last?.op !== op) {
      stretches.push({ op, rows: [row] } as Stretch);
      return;
    }
    // One statement cannot change a row twice: a second put of the same key replaces the first.
    if (op === 'upsert') {
      const at = last.rows.findIndex((r) => r[t.key] === row[t.key]);
      if (at >= 0) {
        last.rows[at] = row;
        return;
      }
    }
    last.rows.push(row);
  }

  /** Adds a change of one row to the table's last stretch of changes, composed with any it holds for the row. */
  private holdChange(table: TableName, key: string, setFields: string[], set: Row, addFields: string[], deltas: Record<string, number>): void {
    const stretches = this.stretchesOf(table);
    let last = stretches.at(-1);
    if (last?.op !== 'update') stretches.push((last = { op: 'update', changes: new Map() }));
    const k = this.sql[table].norm(this.sql[table].key, key);
    let c = last.changes.get(k);
    if (!c) last.changes.set(k, (c = { set: {}, add: {} }));
    for (const f of setFields) {
      c.set[f] = set[f];
      delete c.add[f];
    }
    for (const f of addFields) {
      if (f in c.set) c.set[f] = (c.set[f] as number) + deltas[f];
      else c.add[f] = (c.add[f] ?? 0) + deltas[f];
    }
  }

  /**
   * Sends the writes held for `tables` (all of them by default), each table's in order: the first
   * stretch of every table in one statement, then the second ones..., so the sessions, receipts
   * and counters of a batch go in one statement, not one each. They are sent before this returns
   * (the connection is pipelined), so what is sent next runs after them without waiting for them.
   */
  flush(tables?: ReadonlySet<TableName>): Promise<void> {
    const held: [TableName, Stretch[]][] = [];
    for (const [table, stretches] of this.pending) {
      if (stretches.length === 0 || (tables && !tables.has(table))) continue;
      this.pending.set(table, []);
      held.push([table, stretches]);
    }
    const sent: Promise<unknown>[] = [];
    try {
      for (let i = 0; ; i++) {
        const parts = held.flatMap(([table, stretches]) => (i < stretches.length ? this.statementsOf(table, stretches[i]) : []));
        if (parts.length === 0) break;
        const [s, values] = this.sql.together(parts);
        sent.push(run(this.db, s, values));
      }
    } catch (err) {
      sent.push(Promise.reject(err));
    }
    return Promise.all(sent).then(() => undefined);
  }

  private statementsOf(table: TableName, r: Stretch): [Statement, unknown[]][] {
    const t = this.sql[table];
    if (r.op === 'insert') return [[t.insert, t.rowParams(r.rows)]];
    if (r.op === 'upsert') return [[t.upsert, t.rowParams(r.rows)]];
    if (r.op === 'delete') {
      const keys = r.keys.filter((k) => t.fits(t.key, k));
      return keys.length === 0 ? [] : [[t.deleteMany, [keys]]];
    }
    // One statement per set of fields changed: an event batch's counters all change alike.
    const bySignature = new Map<string, { setFields: string[]; addFields: string[]; rows: Row[] }>();
    for (const [key, c] of r.changes) {
      const setFields = Object.keys(c.set).sort();
      const addFields = Object.keys(c.add).sort();
      const id = `${setFields.join(',')}|${addFields.join(',')}`;
      let group = bySignature.get(id);
      if (!group) bySignature.set(id, (group = { setFields, addFields, rows: [] }));
      group.rows.push({ [t.key]: key, ...c.set, ...c.add });
    }
    return [...bySignature.values()].map((g) => [t.updateMany(g.setFields, g.addFields), [JSON.stringify(g.rows)]]);
  }
}
