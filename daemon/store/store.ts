// The store interface every service talks to. Backends (the JSON journal store today, PostgreSQL
// later) implement it; nothing above daemon/store/ knows which one is running.
import type { TableName, Tables, TriggerRow } from './tables.js';

/** An equality lookup on one indexed field, e.g. `{ team_id: id }`. */
export type IndexQuery<T extends TableName> = Partial<Pick<Tables[T], (typeof import('./tables.js').TABLE_SPECS)[T]['indexes'][number]>>;

/**
 * One page of a list, newest first (the reverse of insertion order): rows whose fields equal
 * `where`, whose first field is an indexed one. Keyset paging: the page starts after the row keyed
 * `after` or, when that row has gone, at the row keyed `orAt`; what a page costs follows its size.
 */
export interface PageQuery<T extends TableName> {
  where: Partial<Tables[T]>;
  /** newest first by this timestamp field instead, insertion order breaking ties */
  newestBy?: keyof Tables[T] & string;
  after?: string;
  orAt?: string;
  limit: number;
}

/** Neither row a page was to start from exists any more (PageQuery `after` and `orAt`). */
export class CursorGoneError extends Error {
  constructor() {
    super('neither row the cursor names exists any more');
    this.name = 'CursorGoneError';
  }
}

/**
 * Rows handed out by reads are the store's live objects, shared with every other reader: treat
 * them as read-only. To change a row, build a new object (`{ ...row, field }`) and `put` it in a
 * write transaction. `put` keeps the object it is given, not a copy (copying every row cost more
 * than anything else in a write): once put, a row and everything it references belong to the
 * store and must never be mutated, by the caller or anyone it shared them with.
 */
export interface ReadTx {
  get<T extends TableName>(table: T, key: string): Promise<Tables[T] | undefined>;
  /**
   * `get` of several keys in one call, in their order: one wait for them all (one round trip to
   * a database server), where a loop of gets waits once per key.
   */
  getMany<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]>;
  /** Rows in insertion order; with a query, only rows whose indexed field equals the value. */
  list<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<Tables[T][]>;
  count<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<number>;
  /** One page of a list, newest first (see PageQuery); throws CursorGoneError. */
  page<T extends TableName>(table: T, query: PageQuery<T>): Promise<Tables[T][]>;
}

/**
 * Every write below throws UniqueViolation when it would give two rows the same value of a unique
 * field, or the same values of fields unique together (TABLE_SPECS): at once, or at the latest
 * when the transaction commits. Let it end the transaction (a database has aborted it by then):
 * catch it around `Store.write`, not inside the callback.
 *
 * A row the transaction has read or written by key is at hand for its later `get`s and `getMany`s
 * of that key: reading it again costs no wait.
 */
export interface WriteTx extends ReadTx {
  /**
   * Insert or replace a row (by the table's key). Seen by this transaction's later reads. The
   * store keeps `row` itself: do not mutate it (or anything it references) afterwards.
   */
  put<T extends TableName>(table: T, row: Tables[T]): void;
  /**
   * A fresh key for a new row of `table`: a random UUID no row holds. Rows given the same `group`
   * in one transaction (an event's sessions, a team's) may be stored together; how is the
   * backend's own business.
   */
  newKey(table: TableName, group?: string): string;
  /**
   * `put` of a new row whose key newKey() made (or another fresh random UUID): as no row can
   * already hold that key, none is looked for, which saves a lookup in a table of many rows. Any
   * other key goes through `put`.
   */
  insert<T extends TableName>(table: T, row: Tables[T]): void;
  /**
   * Sets some fields of an existing row (a put of `{ ...row, ...fields }`) and returns the new row.
   * What is journaled is these fields, without comparing the whole row. Throws when the row does
   * not exist. `fields` holds no undefined values (to drop a field, put the row).
   */
  update<T extends TableName>(table: T, key: string, fields: Partial<Tables[T]>): Promise<Tables[T]>;
  /**
   * Adds `deltas` to the row's numeric fields as they are stored when the write applies, sets the
   * fields of `set`, and returns the new row: a counter moves by an atomic update (`f = f + n`),
   * never by a value read earlier, however many writers share it. A counter the row does not hold
   * yet (an optional field, absent or null) counts from 0. Throws when the row does not exist.
   */
  increment<T extends TableName>(table: T, key: string, deltas: Partial<Record<keyof Tables[T], number>>, set?: Partial<Tables[T]>): Promise<Tables[T]>;
  /**
   * `getMany` that also keeps the rows from changing until this transaction ends: another
   * transaction's write to them waits, or this one runs again. So a change acknowledged before
   * this transaction commits (an automation paused) is one it saw.
   */
  getManyLocked<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]>;
  /**
   * `list` by a unique field (or fields unique together), of the rows as last committed, outside
   * this transaction: on PostgreSQL the read takes no part in the transaction's conflict checks, so
   * writers that look up different keys never make one another run again. Only for "is the row
   * there, or do we insert it": a row another writer commits meanwhile is caught by the unique key
   * (UniqueViolation), and the write runs again and finds it. It may not see rows this
   * transaction wrote.
   */
  listCommitted<T extends TableName>(table: T, where: IndexQuery<T>): Promise<Tables[T][]>;
  delete<T extends TableName>(table: T, key: string): void;
}

export interface WriteOptions {
  /**
   * `durable` (the default): resolve once the transaction is on disk. `applied`: resolve once it
   * is applied and seen by reads; it reaches the disk with the next group commit all the same, and
   * in journal order, so any later durable write makes it durable too. Only for writes whose loss
   * in a crash is repaired at the next start (a session's hand-over outcome: a session still
   * `queued` after a restart is handed over again).
   */
  wait?: 'durable' | 'applied';
}

/**
 * A write that would give two rows of a table the same value of a unique field, or the same values
 * of fields unique together (TABLE_SPECS). Thrown by the write that made it (at the latest when its
 * transaction commits), with nothing of that transaction applied: services turn it into 409, or
 * into "already dispatched" for an idempotency key, rather than relying on having checked first.
 */
export class UniqueViolation extends Error {
  constructor(
    readonly table: TableName,
    readonly fields: readonly string[],
  ) {
    super(`${table}: another row already has this ${fields.join(' and ')}`);
    this.name = 'UniqueViolation';
  }
}

/**
 * The store cannot be reached now (a database server that went away): the request is answered 503
 * and nothing of it was applied. The store serves again once it is back, without a restart.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}

/** A value the store cannot hold (PostgreSQL text cannot hold U+0000): refused with 400, nothing stored. */
export class UnstorableValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnstorableValueError';
  }
}

/** A bucket's count in the current fixed window, and when that window ends. */
export interface WindowCount {
  count: number;
  /** epoch milliseconds at which the window ends */
  resetAtMs: number;
}

export interface HitOptions {
  /** requests counted (default 1) */
  n?: number;
  /**
   * Count nothing once this bucket's count has reached `limit` (an address past the failed
   * authentication limit): the check rides with the hit, where a peek first would cost a
   * statement of its own.
   */
  unlessAt?: { bucket: string; limit: number };
}

/** `counted`: the hit's bucket and its count after the hit; otherwise `unlessAt`'s bucket and its count. */
export type HitResult = WindowCount & { counted: boolean };

/**
 * Fixed-window request counters (the rate limits, CONTRACT §9), shared by every daemon on the
 * store: a limit holds across daemons only where all of them count in one place. Windows are
 * aligned to the clock the counters were opened with, so daemons need synchronised clocks.
 * A bucket names a key id or an address, never a secret.
 */
export interface RateCounters {
  /** Counts requests against `bucket` in the current window (see HitOptions). */
  hit(bucket: string, opts?: HitOptions): Promise<HitResult>;
  /** The window's count so far, counting nothing. */
  peek(bucket: string): Promise<WindowCount>;
}

export interface RateCounterOptions {
  windowMs: number;
  /** the daemon's clock, epoch milliseconds: it places the window boundaries */
  now(): number;
}

export type StoreKind = 'file' | 'postgres';

/** What daemons sharing a store tell each other: `schedules`, a schedule trigger or its automation changed. */
export type StoreTopic = 'schedules';
export const STORE_TOPICS: readonly StoreTopic[] = ['schedules'];

/** A lease on due schedule triggers (see Store.claimDue). */
export interface LeaseClaim {
  /** the claiming daemon's instance id, written as `lease_owner` */
  owner: string;
  /** written as `lease_until` */
  until: string;
  /** a lease is free when it ends at or before this */
  now: string;
  /** a trigger is due when its `next_run_at` is at or before this: `now`, or later for slots leased ahead */
  dueBy: string;
}

/** What the scheduler's due index needs of a schedule trigger: when it is due, and whose lease holds it. */
export type DueState = Pick<TriggerRow, 'next_run_at' | 'lease_owner' | 'lease_until'>;

/** What Store.claimDue took: the keys leased, and how many of those were another daemon's expired lease. */
export interface ClaimedLeases {
  claimed: string[];
  takenOver: number;
  /**
   * Each key not leased that is a schedule trigger, as the claim found it (a key missing here is
   * no such trigger). One another writer was leasing that moment may show as due and free.
   */
  passed: Map<string, DueState>;
}

export interface Store {
  /** which backend this is (`/health` says so) */
  readonly kind: StoreKind;
  read<R>(fn: (tx: ReadTx) => Promise<R> | R): Promise<R>;
  /**
   * Runs `fn` alone (write transactions are serialised), then applies its writes atomically and
   * resolves once they are durable. If `fn` throws, nothing it wrote is applied. Reads may see a
   * transaction's writes a moment before its fsync completes; nothing is acknowledged before it.
   * Never call write() from inside `fn`: it would wait for itself.
   * A backend may run `fn` more than once (PostgreSQL does after a serialisation failure), and
   * keeps only the last run's writes: `fn` only reads and writes through `tx`. Whatever it would
   * tell anything else (a log line, a note to another service, a counter in memory) is done with
   * what write() returns, once it resolves; state `fn` builds up is made afresh at each run.
   */
  write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts?: WriteOptions): Promise<R>;
  /** Writes a compacted snapshot now (also done automatically). */
  compact(): Promise<void>;
  /** Flushes, writes a final snapshot and releases files. */
  close(): Promise<void>;
  /** Why the store takes no more writes (a failed journal write, a lost lock), or null while it does. */
  failure(): Error | null;
  /**
   * Where the backend keeps a check value of the master key (PostgreSQL, shared by many daemons):
   * a value sealed with it, which a daemon with another key cannot open. The JSON-file store has
   * none, and checks the key against the env var values it holds.
   */
  readonly masterKeyCheck?: { read(): Promise<string | null>; record(value: string): Promise<string> };
  /**
   * Rate counters kept in the store, where daemons share it (PostgreSQL). Absent where one daemon
   * holds the store alone (the JSON-file store, under its folder lock): counting in memory is exact
   * there and costs no write. Closed with the store.
   */
  openRateCounters?(opts: RateCounterOptions): RateCounters;
  /** failure(), after asking the backend where it is a server that may have gone: what `/health` says. */
  health(): Promise<Error | null>;
  /**
   * Leases those of the schedule triggers `keys` that are due and whose lease is free (none, the
   * claimant's own, or ended), in a write of its own; a trigger another writer is leasing at that
   * moment is skipped, not waited for. So daemons that find the same slots due split them between
   * them, each slot leased once, without a transaction that loses a race and runs again.
   */
  claimDue(keys: readonly string[], claim: LeaseClaim): Promise<ClaimedLeases>;
  /**
   * Tells every daemon on this store that `topic` changed: their `subscribe` listeners run soon
   * after (this daemon's at once). Call it once the write that made the change has resolved.
   */
  publish(topic: StoreTopic): Promise<void>;
  /**
   * Runs `listener` whenever any daemon on this store publishes `topic`, and also when the backend
   * may have missed a message (a lost connection came back). Returns the way to unsubscribe.
   */
  subscribe(topic: StoreTopic, listener: () => void): () => void;
}
