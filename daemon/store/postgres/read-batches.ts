// Reads asked for at about the same time, sent as one statement per table and field: the gets of
// many keys as one `WHERE key = ANY($1)`, the lists of many values of one indexed field as one
// `WHERE field = ANY($1)`, each asker then given its own rows. A busy daemon answers many
// requests at once, each reading its API key, its team, the triggers its event's key names...:
// one round trip each for all of them, not one per request.
//
// Each asker gets what it would have got alone: a read outside a transaction sees what was
// committed when it ran, and a batch runs after every read in it was asked for. In a write
// transaction (one connection) the batch is the reads asked for together (`Promise.all`).
//
// The statements of one gathering go out on one connection, pipelined (pool.ts): each is written
// without waiting for the answers to the ones before, so all of them wait once, however many
// tables they read.
import type { TableName } from '../tables.js';
import type { Statements, TableSql } from './statements.js';
import type { Queryable } from './transactions.js';

type Row = Record<string, unknown>;

interface Waiter {
  resolve(rows: Map<string, Row[]>): void;
  reject(err: unknown): void;
}

interface Batch {
  table: TableName;
  /** read FOR SHARE (a write transaction's getManyLocked) */
  locked: boolean;
  /** the field looked up: the table's key for gets */
  field: string;
  values: Set<string>;
  waiters: Waiter[];
}

/** A pipelined connection lent for one gathering's statements; `done` gives it back, with the error that broke it. */
export interface Lent {
  db: Queryable;
  done(err?: Error): void;
}

export interface ReadBatchOptions {
  /** how long reads gather: to the end of the event loop's turn for the pool, of the microtasks for a transaction */
  schedule(fn: () => void): void;
  /** the connection a gathering's statements are sent on, all at once */
  connection(): Promise<Lent>;
  /**
   * called before batches are sent, given the tables listed by another field than their key: a
   * write transaction sends what it holds for those first (a row it holds is never read by key),
   * on the same connection, so the reads are sent behind them without waiting
   */
  beforeSend?(tables: ReadonlySet<TableName>): Promise<void>;
}

/** At most this many values in one statement: a batch beyond it is split. */
const MAX_VALUES = 1_000;

export class ReadBatches {
  private pending = new Map<string, Batch>();
  private scheduled = false;

  constructor(
    private readonly sql: Statements,
    private readonly opts: ReadBatchOptions,
  ) {}

  /** The rows whose `field` holds each of `values` (in the table's order), by normalised value; `locked`: FOR SHARE. */
  rowsWhere(table: TableName, field: string, values: readonly string[], locked = false): Promise<Map<string, Row[]>> {
    const t = this.sql[table];
    const id = `${table}\0${field}\0${locked}`;
    let batch = this.pending.get(id);
    if (!batch) this.pending.set(id, (batch = { table, field, locked, values: new Set(), waiters: [] }));
    for (const v of values) batch.values.add(t.norm(field, v));
    const b = batch;
    const promise = new Promise<Map<string, Row[]>>((resolve, reject) => b.waiters.push({ resolve, reject }));
    if (!this.scheduled) {
      this.scheduled = true;
      this.opts.schedule(() => void this.send());
    }
    return promise;
  }

  private async send(): Promise<void> {
    const batches = [...this.pending.values()];
    this.pending = new Map();
    this.scheduled = false;
    let lent: Lent;
    try {
      lent = await this.opts.connection();
    } catch (err) {
      for (const b of batches) for (const w of b.waiters) w.reject(err);
      return;
    }
    const listed = batches.filter((b) => b.field !== this.sql[b.table].key);
    const before = listed.length > 0 ? this.opts.beforeSend?.(new Set(listed.map((b) => b.table))) : undefined;
    const answers = batches.map((b) => settled(this.rowsOf(lent.db, b)));
    // (what was sent before the reads failed first: its error, not the aborted transaction's, is theirs)
    const beforeErr = before && (await settled(before)).err;
    const results = await Promise.all(answers);
    lent.done((beforeErr ?? results.find((r) => r.err !== undefined)?.err) as Error | undefined);
    batches.forEach((b, i) => {
      const { value, err } = results[i];
      for (const w of b.waiters) {
        if (beforeErr !== undefined) w.reject(beforeErr);
        else if (err !== undefined) w.reject(err);
        else w.resolve(value!);
      }
    });
  }

  /** A batch's rows by normalised value, its statements sent at once. */
  private async rowsOf(db: Queryable, b: Batch): Promise<Map<string, Row[]>> {
    const t = this.sql[b.table];
    const s = t.anyOf(b.field, b.locked);
    const values = [...b.values];
    const sent: Promise<{ rows: Row[] }>[] = [];
    for (let i = 0; i < values.length; i += MAX_VALUES) sent.push(db.query({ name: s.name, text: s.text, values: [values.slice(i, i + MAX_VALUES)] }));
    const found = new Map<string, Row[]>();
    for (const { rows } of await Promise.all(sent)) {
      for (const raw of rows) {
        const v = t.norm(b.field, raw[b.field]);
        const row = t.row(raw);
        const list = found.get(v);
        if (list) list.push(row);
        else found.set(v, [row]);
      }
    }
    return found;
  }
}

/** A promise's outcome, never rejected. */
const settled = <T>(p: Promise<T>): Promise<{ value?: T; err?: unknown }> =>
  p.then(
    (value) => ({ value }),
    (err: unknown) => ({ err }),
  );

/** The rows of `found` for one value; a table's own ORDER BY (its order of insertion) is kept. */
export const rowsFor = (found: Map<string, Row[]>, t: TableSql, field: string, value: string): Row[] => found.get(t.norm(field, value)) ?? [];
