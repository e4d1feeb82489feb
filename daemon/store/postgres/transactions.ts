// Read and write transactions over one connection (or the pool, for reads). A write transaction
// keeps its puts, inserts and deletes until it next reads or commits, then sends each run of the
// same kind of write to one table as one statement: an event's ten sessions are one INSERT.
import type pg from 'pg';
import { CursorGoneError, type IndexQuery, type PageQuery, type ReadTx, type WriteTx } from '../store.js';
import type { TableName, Tables } from '../tables.js';
import type { Statement, Statements, TableSql } from './statements.js';

/** Something that runs a statement: a pooled client in a transaction, or the pool itself. */
export interface Queryable {
  query(config: { name: string; text: string; values: unknown[] }): Promise<pg.QueryResult>;
}

const run = (db: Queryable, s: Statement, values: unknown[]) => db.query({ name: s.name, text: s.text, values });

export class PgReadTx implements ReadTx {
  constructor(
    protected readonly db: Queryable,
    protected readonly sql: Statements,
  ) {}

  /** Sends what the transaction still holds before a read, so the read sees it (see PgWriteTx). */
  protected async beforeRead(): Promise<void> {}

  async get<T extends TableName>(table: T, key: string): Promise<Tables[T] | undefined> {
    const t = this.sql[table];
    if (!t.fits(t.key, key)) return undefined;
    await this.beforeRead();
    const { rows } = await run(this.db, t.get, [key]);
    return rows.length === 0 ? undefined : (t.row(rows[0]) as unknown as Tables[T]);
  }

  async getMany<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    return this.readMany(table, keys, false);
  }

  protected async readMany<T extends TableName>(table: T, keys: readonly string[], locked: boolean): Promise<(Tables[T] | undefined)[]> {
    const t = this.sql[table];
    const asked = keys.filter((k) => t.fits(t.key, k));
    if (asked.length === 0) return keys.map(() => undefined);
    await this.beforeRead();
    const { rows } = await run(this.db, locked ? t.getManyLocked : t.getMany, [asked]);
    const byKey = new Map<string, Tables[T]>();
    for (const raw of rows) byKey.set(raw[t.key] as string, t.row(raw) as unknown as Tables[T]);
    return keys.map((k) => byKey.get(k) ?? byKey.get(k.toLowerCase()));
  }

  async list<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<Tables[T][]> {
    const t = this.sql[table];
    const query = this.whereOf(t, where);
    if (query === null) return [];
    await this.beforeRead();
    const { rows } = query.statement ? await run(this.db, query.statement, query.values) : await run(this.db, t.all, []);
    return rows.map((raw) => t.row(raw) as unknown as Tables[T]);
  }

  async count<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<number> {
    const t = this.sql[table];
    const query = this.whereOf(t, where, true);
    if (query === null) return 0;
    await this.beforeRead();
    const { rows } = await run(this.db, query.statement ?? t.countAll, query.values);
    return rows[0].n as number;
  }

  async page<T extends TableName>(table: T, query: PageQuery<T>): Promise<Tables[T][]> {
    const t = this.sql[table];
    await this.beforeRead();
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
  private whereOf(t: TableSql, where: Record<string, unknown> | undefined, count = false): { statement?: Statement; values: unknown[] } | null {
    const fields = where ? Object.keys(where).filter((f) => where[f] !== undefined) : [];
    if (fields.length === 0) return { values: [] };
    const values: unknown[] = [];
    const nulls: boolean[] = [];
    for (const f of fields) {
      const v = where![f];
      if (!t.fits(f, v)) return null;
      nulls.push(v === null);
      if (v !== null) values.push(v);
    }
    return { statement: t.where(fields, nulls, count), values };
  }
}

type Pending = { op: 'insert' | 'upsert'; table: TableName; rows: Record<string, unknown>[] } | { op: 'delete'; table: TableName; keys: string[] };

export class PgWriteTx extends PgReadTx implements WriteTx {
  private pending: Pending[] = [];

  protected override async beforeRead(): Promise<void> {
    await this.flush();
  }

  put<T extends TableName>(table: T, row: Tables[T]): void {
    this.hold('upsert', table, row as unknown as Record<string, unknown>);
  }

  insert<T extends TableName>(table: T, row: Tables[T]): void {
    this.hold('insert', table, row as unknown as Record<string, unknown>);
  }

  delete<T extends TableName>(table: T, key: string): void {
    const last = this.pending[this.pending.length - 1];
    if (last?.op === 'delete' && last.table === table) last.keys.push(key);
    else this.pending.push({ op: 'delete', table, keys: [key] });
  }

  getManyLocked<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    return this.readMany(table, keys, true);
  }

  async update<T extends TableName>(table: T, key: string, fields: Partial<Tables[T]>): Promise<Tables[T]> {
    return this.change(table, key, fields as Record<string, unknown>, {});
  }

  async increment<T extends TableName>(table: T, key: string, deltas: Partial<Record<keyof Tables[T], number>>, set: Partial<Tables[T]> = {}): Promise<Tables[T]> {
    return this.change(table, key, set as Record<string, unknown>, deltas as Record<string, number>);
  }

  /** One UPDATE: `set` fields take their values, `deltas` fields are added to, atomically. */
  private async change<T extends TableName>(table: T, key: string, set: Record<string, unknown>, deltas: Record<string, number>): Promise<Tables[T]> {
    const t = this.sql[table];
    const setFields = Object.keys(set).filter((f) => f !== t.key && set[f] !== undefined);
    const addFields = Object.keys(deltas).filter((f) => deltas[f] !== undefined);
    if (t.fits(t.key, key)) {
      await this.flush();
      if (setFields.length === 0 && addFields.length === 0) {
        const row = await this.get(table, key);
        if (row) return row;
      } else {
        const { rows } = await run(this.db, t.update(setFields, addFields), [key, JSON.stringify({ ...set, ...deltas })]);
        if (rows.length > 0) return t.row(rows[0]) as unknown as Tables[T];
      }
    }
    throw new Error(`${table} ${key} does not exist`);
  }

  private hold(op: 'insert' | 'upsert', table: TableName, row: Record<string, unknown>): void {
    const last = this.pending[this.pending.length - 1];
    if (last?.op === op && last.table === table) {
      // One statement cannot change a row twice: a second put of the same key replaces the first.
      if (op === 'upsert') {
        const key = this.sql[table].key;
        const at = last.rows.findIndex((r) => r[key] === row[key]);
        if (at >= 0) {
          last.rows[at] = row;
          return;
        }
      }
      last.rows.push(row);
    } else {
      this.pending.push({ op, table, rows: [row] });
    }
  }

  /** Sends every write held so far, in order. */
  async flush(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      for (const p of batch) {
        const t = this.sql[p.table];
        if (p.op === 'delete') {
          const keys = p.keys.filter((k) => t.fits(t.key, k));
          if (keys.length > 0) await run(this.db, t.deleteMany, [keys]);
        } else {
          await run(this.db, p.op === 'insert' ? t.insert : t.upsert, [JSON.stringify(p.rows)]);
        }
      }
    }
  }
}
