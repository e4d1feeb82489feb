// The PostgreSQL store (CONTRACT §11): every table in one database that any number of daemons may
// share. A write transaction runs at SERIALIZABLE isolation, so whatever a callback read still
// holds when it commits, whichever daemon wrote meanwhile; one that lost a race (a serialisation
// failure, a deadlock, a unique key taken since it looked) simply runs again and then sees the
// winner's rows. Writes of one daemon also take turns, so they never race each other.
//
// Group commit: the writes that queued up while one transaction ran go together in the next, one
// after the other as they would alone, with one commit (and one wait for the WAL flush) for all.
// That is the same as running them in turn, each seeing the ones before. Should one of them throw,
// the transaction is rolled back and each runs alone, so its failure touches no other.
import type pg from 'pg';
import type { StoreLogger } from '../logger.js';
import {
  StoreUnavailableError,
  UnstorableValueError,
  type ClaimedLeases,
  type LeaseClaim,
  type RateCounterOptions,
  type ReadTx,
  type Store,
  type StoreTopic,
  type WriteOptions,
  type WriteTx,
} from '../store.js';
import { PgNotifications } from './notifications.js';
import { isRetryable, isUniqueViolation, isUnavailable, isUnstorableText, unavailable, uniqueViolationOf } from './errors.js';
import { migrate } from './migrate.js';
import { PgRateCounters } from './rate-windows.js';
import { createPool } from './pool.js';
import { redactUrl } from '../store-url.js';
import { applyPgRetention } from './retention.js';
import { TABLE_NAMES, type TableName } from '../tables.js';
import { buildStatements, type ColumnTypes, type Statements } from './statements.js';
import { ReadBatches } from './read-batches.js';
import { PgReadTx, PgWriteTx } from './transactions.js';

export interface OpenPostgresStoreOptions {
  url: string;
  logger: StoreLogger;
  /** events and finished sessions older than this are deleted (default 30) */
  retentionDays?: number;
  /** how often retention runs (default hourly, and once at start) */
  retentionIntervalMs?: number;
  now?: () => Date;
  /** pool size (default 10) */
  poolSize?: number;
}

/** Attempts of one write transaction that keeps losing races before it gives up (with a 503). */
const MAX_ATTEMPTS = 20;
const BEGIN = 'BEGIN ISOLATION LEVEL SERIALIZABLE';
/** Writes that share a transaction at most. */
const MAX_GROUP = 64;
const UNIQUE_RETRIES = 3;
const DAY_MS = 24 * 60 * 60 * 1000;

// Due schedule triggers whose lease is free, leased in one statement. It runs on its own (READ
// COMMITTED), not in a SERIALIZABLE transaction: SKIP LOCKED passes over the rows another daemon is
// leasing this moment instead of waiting for them, and a row leased and committed meanwhile is
// checked again as it now stands; so daemons that find the same slots due split them, without a
// transaction that loses and runs again. The keys not leased come back with their due state as the
// statement began, so the scheduler need not read them again.
const CLAIM_DUE = `
WITH due AS (
  SELECT id, lease_owner AS previous_owner FROM triggers
   WHERE id = ANY($1::uuid[]) AND kind = 'schedule' AND next_run_at <= $5
     AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until IS NULL OR lease_until <= $4)
   FOR UPDATE SKIP LOCKED
), leased AS (
  UPDATE triggers t SET lease_owner = $2, lease_until = $3 FROM due WHERE t.id = due.id
  RETURNING t.id, due.previous_owner
)
SELECT id, true AS leased, previous_owner, NULL::timestamptz AS next_run_at, NULL AS lease_owner, NULL::timestamptz AS lease_until FROM leased
UNION ALL
SELECT id, false, NULL, next_run_at, lease_owner, lease_until FROM triggers
 WHERE id = ANY($1::uuid[]) AND kind = 'schedule' AND id NOT IN (SELECT id FROM leased)`;

interface ClaimDueRow {
  id: string;
  leased: boolean;
  previous_owner: string | null;
  next_run_at: string | null;
  lease_owner: string | null;
  lease_until: string | null;
}

interface QueuedWrite {
  fn: (tx: WriteTx) => unknown;
  opts: WriteOptions;
  resolve(result: unknown): void;
  reject(err: unknown): void;
}

export class PostgresStore implements Store {
  readonly kind = 'postgres' as const;
  /** writes waiting for the transaction under way to end */
  private queued: QueuedWrite[] = [];
  /** the loop that runs queued writes, while there are any */
  private writing: Promise<void> | undefined;
  private readonly sql: Statements;
  /** a connection with a transaction begun for the next write, while the one before commits */
  private begun: Promise<pg.PoolClient> | undefined;
  private readonly readTx: PgReadTx;
  readonly notifications: PgNotifications;
  private lostSince: Error | null = null;
  private retentionTimer: NodeJS.Timeout | undefined;
  private readonly rateCounters: PgRateCounters[] = [];
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: OpenPostgresStoreOptions,
    columnTypes: ColumnTypes = {},
  ) {
    this.sql = buildStatements(columnTypes);
    // Reads outside a transaction gather over a turn of the event loop, each gathering sent on a
    // pooled connection of its own.
    const gathered = new ReadBatches(this.sql, {
      schedule: setImmediate,
      connection: async () => {
        const client = await this.pool.connect();
        // (a connection is dropped only when it broke; a statement's error leaves it usable)
        return { db: client, done: (err) => client.release(err !== undefined && isUnavailable(err) ? err : undefined) };
      },
    });
    this.readTx = new PgReadTx({ query: (config) => this.pool.query(config) }, this.sql, gathered);
    this.notifications = new PgNotifications({ url: opts.url, query: (text, values) => this.pool.query(text, values), logger: opts.logger });
  }

  async claimDue(keys: readonly string[], claim: LeaseClaim): Promise<ClaimedLeases> {
    this.assertOpen();
    const out: ClaimedLeases = { claimed: [], takenOver: 0, passed: new Map() };
    if (keys.length === 0) return out;
    const { rows } = await this.guard(() => this.retried(() => this.pool.query<ClaimDueRow>(CLAIM_DUE, [keys, claim.owner, claim.until, claim.now, claim.dueBy])));
    for (const r of rows) {
      if (!r.leased) {
        out.passed.set(r.id, { next_run_at: r.next_run_at, lease_owner: r.lease_owner, lease_until: r.lease_until });
        continue;
      }
      out.claimed.push(r.id);
      if (r.previous_owner !== null && r.previous_owner !== claim.owner) out.takenOver++;
    }
    return out;
  }

  publish(topic: StoreTopic): Promise<void> {
    return this.notifications.publish(topic);
  }

  subscribe(topic: StoreTopic, listener: () => void): () => void {
    return this.notifications.subscribe(topic, listener);
  }

  /** Runs a statement again after a serialisation failure or deadlock (a database whose default isolation is stricter). */
  private async retried<R>(fn: () => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (!isRetryable(err) || attempt >= MAX_ATTEMPTS) throw err;
        await pause(attempt);
      }
    }
  }

  async read<R>(fn: (tx: ReadTx) => Promise<R> | R): Promise<R> {
    this.assertOpen();
    return this.guard(async () => fn(this.readTx));
  }

  write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts: WriteOptions = {}): Promise<R> {
    this.assertOpen();
    return new Promise<R>((resolve, reject) => {
      this.queued.push({ fn, opts, resolve: resolve as (r: unknown) => void, reject });
      this.writing ??= this.writeQueued();
    });
  }

  /** Runs the queued writes, those queued together in one transaction, until none is left. */
  private async writeQueued(): Promise<void> {
    // (after the caller's turn: a write queued in the same turn joins the first group)
    await Promise.resolve();
    while (this.queued.length > 0) {
      const group = this.queued.splice(0, MAX_GROUP);
      if (group.length === 1) await this.writeAlone(group[0]);
      else await this.writeGroup(group);
    }
    this.writing = undefined;
  }

  private async writeAlone(w: QueuedWrite): Promise<void> {
    try {
      w.resolve(await this.guard(() => this.transaction((tx) => w.fn(tx), w.opts.wait === 'applied', false)));
    } catch (err) {
      w.reject(err);
    }
  }

  private async writeGroup(group: QueuedWrite[]): Promise<void> {
    let results: unknown[];
    try {
      // Durable unless every one of them may do without (see WriteOptions).
      const applied = group.every((w) => w.opts.wait === 'applied');
      results = await this.guard(() =>
        this.transaction(
          async (tx) => {
            const out: unknown[] = [];
            for (const w of group) out.push(await w.fn(tx));
            return out;
          },
          applied,
          true,
        ),
      );
    } catch (err) {
      if (err instanceof StoreUnavailableError) {
        for (const w of group) w.reject(err);
        return;
      }
      // One of them failed, broke a unique key or lost a race with another daemon: each on its
      // own, so the others go ahead.
      for (const w of group) await this.writeAlone(w);
      return;
    }
    group.forEach((w, i) => w.resolve(results[i]));
  }

  /**
   * Runs `fn` in a SERIALIZABLE transaction. Alone (`grouped` false), it runs again after a
   * serialisation failure or deadlock, and after a unique violation too, as the key may have been
   * taken since.
   */
  private async transaction<R>(fn: (tx: WriteTx) => Promise<R> | R, applied: boolean, grouped: boolean): Promise<R> {
    let uniqueRetries = 0;
    for (let attempt = 1; ; attempt++) {
      const begun = this.begun;
      this.begun = undefined;
      const client = await (begun ?? this.pool.connect());
      let broken: Error | undefined;
      try {
        if (!begun) await client.query(BEGIN);
        // A write whose loss in a crash the next start repairs need not wait for the WAL flush.
        if (applied) await client.query('SET LOCAL synchronous_commit = off');
        const tx = new PgWriteTx(client, this.sql, this.readTx);
        const result = await fn(tx);
        const flushed = tx.flush();
        // Writes are waiting: the next transaction begins while this one commits, a round trip
        // less between them (its snapshot is taken by its first statement, after this commit).
        if (this.queued.length > 0) this.begin();
        // Sent behind the last writes without waiting for them. Should one fail, the transaction
        // is aborted and COMMIT only ends it (PostgreSQL answers ROLLBACK); the failure is thrown.
        const committed = client.query('COMMIT');
        await Promise.all([flushed, committed]);
        return result;
      } catch (err) {
        if (isUnavailable(err)) broken = err as Error;
        else await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        // A group is not run again as a whole: writeGroup runs its writes one by one, so a
        // conflict costs only the write it concerns and a big group cannot lose race after race.
        const again = !grouped && (isRetryable(err) || (isUniqueViolation(err) && uniqueRetries++ < UNIQUE_RETRIES));
        if (!again || attempt >= MAX_ATTEMPTS) {
          if (isUniqueViolation(err)) throw uniqueViolationOf(err);
          if (isRetryable(err) && !grouped) throw new StoreUnavailableError('the database kept refusing the write under contention; try again');
          throw err;
        }
        await pause(attempt);
      } finally {
        client.release(broken);
      }
    }
  }

  /** Begins a transaction on a connection of its own, for the next write to take. */
  private begin(): void {
    if (this.begun) return;
    const begun = this.pool.connect().then(async (client) => {
      try {
        await client.query(BEGIN);
        return client;
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
    });
    // (a failure is the next write's, which awaits it)
    begun.catch(() => undefined);
    this.begun = begun;
  }

  /** Database errors as the services know them; marks the database lost or back. */
  private async guard<R>(fn: () => Promise<R>): Promise<R> {
    try {
      const result = await fn();
      this.lostSince = null;
      return result;
    } catch (err) {
      if (isUnavailable(err)) {
        if (!this.lostSince) this.opts.logger.error({ err: { message: (err as Error).message, code: (err as { code?: string }).code } }, 'the database cannot be reached');
        this.lostSince = unavailable(err);
        throw this.lostSince;
      }
      if (isUnstorableText(err)) throw new UnstorableValueError('a text value holds a NUL character (\\u0000) or an invalid Unicode sequence, which PostgreSQL cannot store');
      throw err;
    }
  }

  async compact(): Promise<void> {
    await this.applyRetention();
  }

  failure(): Error | null {
    return this.lostSince;
  }

  /** Asks the database: the answer /health gives. */
  async health(): Promise<Error | null> {
    try {
      await this.guard(() => this.pool.query('SELECT 1'));
      return null;
    } catch (err) {
      return err instanceof StoreUnavailableError ? err : (err as Error);
    }
  }

  /** The master key's check value (CONTRACT §11), recorded by the first daemon that started on the database. */
  readonly masterKeyCheck = {
    read: (): Promise<string | null> =>
      this.guard(async () => {
        const { rows } = await this.pool.query("SELECT value FROM svc_meta WHERE key = 'master_key_check'");
        return rows.length === 0 ? null : (rows[0].value as string);
      }),
    /** Records `value` unless a value is there already; returns the one that is (whichever daemon stored first). */
    record: (value: string): Promise<string> =>
      this.guard(async () => {
        await this.pool.query("INSERT INTO svc_meta (key, value) VALUES ('master_key_check', $1) ON CONFLICT (key) DO NOTHING", [value]);
        const { rows } = await this.pool.query("SELECT value FROM svc_meta WHERE key = 'master_key_check'");
        return rows[0].value as string;
      }),
  };

  /** Counters in rate_windows, which every daemon on the database shares (see rate-windows.ts). */
  openRateCounters(opts: RateCounterOptions): PgRateCounters {
    const counters = new PgRateCounters(
      {
        query: async (config) => {
          this.assertOpen();
          return this.guard(() => this.pool.query(config));
        },
      },
      { ...opts, logger: this.opts.logger },
    );
    this.rateCounters.push(counters);
    return counters;
  }

  /** Deletes what retention drops; logged when anything went. */
  async applyRetention(): Promise<void> {
    const days = this.opts.retentionDays ?? 30;
    const now = (this.opts.now ?? (() => new Date()))();
    const result = await this.guard(() => applyPgRetention({ query: (c) => this.pool.query(c) }, new Date(now.getTime() - days * DAY_MS)));
    if (result.events + result.deliveries + result.sessions > 0) this.opts.logger.info({ retention: result }, 'retention deleted old events, deliveries and sessions');
  }

  startRetention(): void {
    const run = () =>
      this.applyRetention().catch((err: Error) => this.opts.logger.warn({ err: { message: err.message } }, 'retention failed; it runs again later'));
    void run();
    this.retentionTimer = setInterval(run, this.opts.retentionIntervalMs ?? 60 * 60 * 1000);
    this.retentionTimer.unref();
  }

  /** What the connection pool holds now, for /metrics: connections in all, idle ones, and requests waiting for one. */
  poolCounts(): { total: number; idle: number; waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.retentionTimer);
    for (const c of this.rateCounters) c.close();
    // Writes under way or queued finish first.
    while (this.writing) await this.writing;
    await this.notifications.close();
    await this.begun?.then((client) => client.release(), () => undefined);
    await this.pool.end();
  }

  private assertOpen(): void {
    if (this.closed) throw new StoreUnavailableError('the store is closed');
  }
}

/** Backs off a little, with jitter, before running a transaction that lost a race again. */
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));

/** Connects, migrates (CONTRACT §11) and returns the store; a database that cannot be reached is a clear error. */
export async function openPostgresStore(opts: OpenPostgresStoreOptions): Promise<PostgresStore> {
  const pool = createPool({ url: opts.url, max: opts.poolSize });
  // An idle connection the server drops must not take the daemon down: the next query reconnects.
  pool.on('error', (err) => opts.logger.warn({ err: { message: err.message } }, 'a database connection was lost'));
  // So must one lost while checked out between two statements: the next statement on it fails
  // (a 503), and the pool discards it when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  let columnTypes: ColumnTypes;
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`cannot reach the PostgreSQL database at ${redactUrl(opts.url)}: ${(err as Error).message}`);
  }
  try {
    const { rows } = await client.query<{ v: number }>("SELECT current_setting('server_version_num')::int AS v");
    if (rows[0].v < 150000) throw new Error(`svc needs PostgreSQL 15 or newer; ${redactUrl(opts.url)} runs ${Math.floor(rows[0].v / 10000)}`);
    const { from, to } = await migrate(client);
    if (from !== to) opts.logger.info({ from, to }, 'database schema migrated');
    columnTypes = await readColumnTypes(client);
  } catch (err) {
    client.release();
    await pool.end().catch(() => undefined);
    throw err;
  }
  client.release();
  const store = new PostgresStore(pool, opts, columnTypes);
  await store.notifications.start();
  store.startRetention();
  return store;
}

/** The store's tables' column types, as the migrated schema has them. */
async function readColumnTypes(client: pg.PoolClient): Promise<ColumnTypes> {
  const { rows } = await client.query<{ table: TableName; column: string; type: string }>(
    `SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.oid = ANY($1::regclass[]) AND a.attnum > 0 AND NOT a.attisdropped`,
    [TABLE_NAMES],
  );
  const types: ColumnTypes = {};
  for (const r of rows) (types[r.table] ??= {})[r.column] = r.type;
  return types;
}
