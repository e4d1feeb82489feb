// Stores around the test's own store (the project's: file or PostgreSQL) that make happen, on
// demand, what a database shared by many writers does now and then: a write callback run again
// (RerunningStore), a lookup that misses a row another writer just stored (BlindStore), another
// request's write landing between a service's read and its write (InterposingStore).
import { rm } from 'node:fs/promises';
import { createLogger } from '../../daemon/logger.js';
import { generateMasterKey } from '../../daemon/secrets/secret-file.js';
import { buildServices, type Services } from '../../daemon/services.js';
import type { ClaimedLeases, LeaseClaim, ReadTx, Store, StoreTopic, WriteOptions, WriteTx } from '../../daemon/store/store.js';
import { TABLE_SPECS, type TableName } from '../../daemon/store/tables.js';
import { makeDataDir } from '../helpers/daemon.js';
import { dropTestStores, openTestStore } from '../helpers/test-store.js';

/** Passes everything to the store it wraps; subclasses change `write`. */
export class WrappedStore implements Store {
  constructor(readonly inner: Store) {}

  get kind() {
    return this.inner.kind;
  }

  get masterKeyCheck() {
    return this.inner.masterKeyCheck;
  }

  read<R>(fn: (tx: ReadTx) => Promise<R> | R): Promise<R> {
    return this.inner.read(fn);
  }

  write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts?: WriteOptions): Promise<R> {
    return this.inner.write(fn, opts);
  }

  compact(): Promise<void> {
    return this.inner.compact();
  }

  claimDue(keys: readonly string[], claim: LeaseClaim): Promise<ClaimedLeases> {
    return this.inner.claimDue(keys, claim);
  }

  publish(topic: StoreTopic): Promise<void> {
    return this.inner.publish(topic);
  }

  get openRateCounters() {
    return this.inner.openRateCounters?.bind(this.inner);
  }

  subscribe(topic: StoreTopic, listener: () => void): () => void {
    return this.inner.subscribe(topic, listener);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  failure(): Error | null {
    return this.inner.failure();
  }

  health(): Promise<Error | null> {
    return this.inner.health();
  }
}

const DISCARDED = Symbol('discarded');

/**
 * Runs every write callback twice, as a database may after a serialisation failure: the first
 * run's writes are rolled back (whatever it returned or threw), then the second run commits.
 */
export class RerunningStore extends WrappedStore {
  /** write callbacks run a second time */
  reruns = 0;

  override async write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts?: WriteOptions): Promise<R> {
    await this.inner
      .write(async (tx) => {
        await fn(tx);
        throw DISCARDED;
      })
      .catch(() => undefined);
    this.reruns++;
    return this.inner.write(fn, opts);
  }
}

/**
 * Write transactions whose equality lookups on `table` by all of `fields` find nothing, in the
 * first `runs` runs of write callbacks from now: as if the row were stored by another writer
 * after the lookup. The store's own uniqueness is then all that stands in the way of a second row.
 */
export class BlindStore extends WrappedStore {
  private blind: { table: TableName; fields: readonly string[]; runs: number } | undefined;

  blindTo(table: TableName, fields: readonly string[], runs = Number.POSITIVE_INFINITY): void {
    this.blind = { table, fields, runs };
  }

  override write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts?: WriteOptions): Promise<R> {
    return this.inner.write((tx) => {
      const blind = this.blind;
      if (!blind || blind.runs <= 0) return fn(tx);
      blind.runs--;
      const hides = (table: TableName, where: object | undefined) =>
        table === blind.table && where !== undefined && blind.fields.every((f) => (where as Record<string, unknown>)[f] !== undefined);
      const list: WriteTx['list'] = async (table, where) => (hides(table, where) ? [] : tx.list(table, where));
      return fn(new Proxy(tx, { get: (target, prop) => (prop === 'list' ? list : bound(target, prop)) }));
    }, opts);
  }
}

/** Runs `hook` before the `nth` write from now (1: the next one) starts, once. */
export class InterposingStore extends WrappedStore {
  private pending: { left: number; hook: () => Promise<void> } | undefined;

  beforeWrite(nth: number, hook: () => Promise<void>): void {
    this.pending = { left: nth, hook };
  }

  override async write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts?: WriteOptions): Promise<R> {
    const p = this.pending;
    if (p && --p.left === 0) {
      // (gone before it runs: the hook's own writes pass straight through)
      this.pending = undefined;
      await p.hook();
    }
    return this.inner.write(fn, opts);
  }
}

/** The counters services keep, by table. */
const COUNTERS: Partial<Record<TableName, string>> = { triggers: 'total_runs', automations: 'consecutive_failures' };

/**
 * Notes every write that raises a counter (COUNTERS) by writing its new value, as a put of a row
 * read before or an update, rather than by WriteTx.increment: on a database shared by many
 * writers, such a write loses the runs another counted meanwhile. Resets (to 0) are plain writes.
 */
export class CounterWatchStore extends WrappedStore {
  /** `table.field of key: was -> now` per write that raised a counter by value */
  readonly raisedByValue: string[] = [];

  override write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts?: WriteOptions): Promise<R> {
    return this.inner.write((tx) => {
      /** counters of the rows this run read, by `table key` */
      const seen = new Map<string, number>();
      const note = (table: TableName, row: object | undefined) => {
        const field = COUNTERS[table];
        if (field && row) seen.set(`${table} ${(row as Record<string, unknown>)[keyOf(table)]}`, (row as Record<string, number>)[field]);
        return row;
      };
      const check = (table: TableName, key: string, was: number | undefined, fields: object) => {
        const field = COUNTERS[table];
        const now = field === undefined ? undefined : (fields as Record<string, unknown>)[field];
        if (typeof now === 'number' && was !== undefined && now > was) this.raisedByValue.push(`${table}.${field} of ${key}: ${was} -> ${now}`);
      };
      const watched: Partial<WriteTx> = {
        get: async (table, key) => note(table, await tx.get(table, key)) as never,
        getMany: async (table, keys) => (await tx.getMany(table, keys)).map((r) => note(table, r)) as never,
        list: async (table, where) => (await tx.list(table, where)).map((r) => note(table, r)) as never,
        put: (table, row) => {
          const key = (row as unknown as Record<string, string>)[keyOf(table)];
          check(table, key, seen.get(`${table} ${key}`), row);
          tx.put(table, row);
        },
        update: async (table, key, fields) => {
          const before = await tx.get(table, key);
          const field = COUNTERS[table];
          check(table, key, field && before ? (before as unknown as Record<string, number>)[field] : undefined, fields);
          return tx.update(table, key, fields);
        },
      };
      return fn(new Proxy(tx, { get: (target, prop) => (prop in watched ? watched[prop as keyof WriteTx] : bound(target, prop)) }));
    }, opts);
  }
}

const keyOf = (table: TableName) => TABLE_SPECS[table].key as string;

function bound(target: object, prop: string | symbol): unknown {
  const v = (target as Record<string | symbol, unknown>)[prop];
  return typeof v === 'function' ? (v as (...args: unknown[]) => unknown).bind(target) : v;
}

export interface InProcessDaemon<S extends Store> {
  store: S;
  services: Services;
  /** stops the services, closes the store, removes the folder and its database */
  close(): Promise<void>;
}

export interface InProcessOptions {
  runner?: 'record' | 'webhook';
  runnerUrl?: string;
  clock?: () => Date;
}

/** The daemon's services in this process over `wrap(the project's store)`, with a team `acme`. */
export async function inProcess<S extends Store>(wrap: (store: Store) => S, opts: InProcessOptions = {}): Promise<InProcessDaemon<S>> {
  const dataDir = await makeDataDir();
  const logger = createLogger('silent');
  const inner = await openTestStore(dataDir);
  const store = wrap(inner);
  const runner = opts.runner ?? 'record';
  const options = { dataDir, masterKey: generateMasterKey(), runner, runnerUrl: opts.runnerUrl, runnerSecret: 's' };
  const services = buildServices({ store, clock: opts.clock ?? (() => new Date()), options, logger });
  return {
    store,
    services,
    async close() {
      await services.stop();
      await inner.close();
      await dropTestStores(dataDir);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
