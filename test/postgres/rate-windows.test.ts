// The rate limits' counters on PostgreSQL (daemon/store/postgres/rate-windows.ts), against a real
// server: exact counts under concurrency, from one store and from several sharing the database,
// windows that start afresh, the cleanup of old windows, and a database that went away.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../daemon/store/postgres/postgres-store.js';
import { createPool } from '../../daemon/store/postgres/pool.js';
import { PgRateCounters } from '../../daemon/store/postgres/rate-windows.js';
import { StoreUnavailableError } from '../../daemon/store/store.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';

const silent = { info() {}, warn() {}, error() {} };
const WINDOW = 60_000;
/** a window's start, so tests never straddle a boundary by accident */
const T0 = Date.UTC(2026, 10, 28, 10, 0, 0);

let cluster: PostgresCluster;
let databases = 0;
const stores: PostgresStore[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 60_000);

afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
  await cluster?.destroy();
});

async function database(): Promise<{ name: string; url: string }> {
  const name = `rate_${++databases}`;
  return { name, url: await cluster.createDatabase(name) };
}

async function open(url: string): Promise<PostgresStore> {
  const store = await openPostgresStore({ url, logger: silent });
  stores.push(store);
  return store;
}

/** Counters on `store`, with a clock the test moves. */
const countersOn = (store: PostgresStore, clock: { now: number }) => store.openRateCounters({ windowMs: WINDOW, now: () => clock.now });

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('PostgreSQL rate counters', () => {
  it('200 concurrent hits on one bucket from one store get counts 1..200, each once, in one statement', async () => {
    const { url } = await database();
    await open(url);
    const pool = createPool({ url });
    let statements = 0;
    const counters = new PgRateCounters(
      {
        query: (config) => {
          statements++;
          return pool.query(config);
        },
      },
      { windowMs: WINDOW, now: () => T0 + 1000, logger: silent },
    );
    try {
      const counts = (await Promise.all(Array.from({ length: 200 }, () => counters.hit('key:a')))).map((w) => w.count);
      expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      // Asked in one turn: one statement for all of them, each still told its own count in order.
      expect(statements).toBe(1);
      expect(counts).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      counters.close();
      await pool.end();
    }
  });

  it('200 hits on one bucket spread over four stores and many turns get counts 1..200, each once', async () => {
    const { url } = await database();
    const clock = { now: T0 + 5000 };
    const daemons = await Promise.all([open(url), open(url), open(url), open(url)]);
    const counters = daemons.map((s) => countersOn(s, clock));
    const hits: Promise<{ count: number }>[] = [];
    for (let i = 0; i < 200; i++) {
      hits.push(counters[i % 4].hit('key:shared'));
      // a few at a time, so the stores' statements overlap rather than going once each
      if (i % 7 === 0) await turn();
    }
    const counts = (await Promise.all(hits)).map((w) => w.count).sort((a, b) => a - b);
    expect(counts).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect((await counters[2].peek('key:shared')).count).toBe(200);
  });

  it('counts hits of several requests at once, peeks without counting, and buckets apart', async () => {
    const { url } = await database();
    const clock = { now: T0 + 10_000 };
    const counters = countersOn(await open(url), clock);
    const [a, peek, b, c] = await Promise.all([counters.hit('fail:10.0.0.1', { n: 3 }), counters.peek('fail:10.0.0.1'), counters.hit('fail:10.0.0.1'), counters.hit('key:x')]);
    // (a peek sent with hits sees the count before them)
    expect([a.count, peek.count, b.count, c.count]).toEqual([3, 0, 4, 1]);
    expect(await counters.peek('fail:10.0.0.1')).toEqual({ count: 4, resetAtMs: T0 + WINDOW });
    expect((await counters.peek('fail:10.0.0.2')).count).toBe(0);
  });

  it('holds a hit back, counting nothing, once the bucket it names has reached its limit as the statement starts', async () => {
    const { url } = await database();
    const clock = { now: T0 + 15_000 };
    const counters = countersOn(await open(url), clock);
    const failures = { bucket: 'fail:10.0.0.9', limit: 3 };
    // Sent together: each sees the count before the statement, so all three are counted.
    const first = await Promise.all([1, 2, 3].map(() => counters.hit(failures.bucket, { unlessAt: failures })));
    expect(first.map((r) => [r.counted, r.count])).toEqual([[true, 1], [true, 2], [true, 3]]);
    // Past the limit now: a key's hit from that address and another failure are both held back.
    const [key, failure, other] = await Promise.all([
      counters.hit('key:k', { unlessAt: failures }),
      counters.hit(failures.bucket, { unlessAt: failures }),
      counters.hit('key:k', { unlessAt: { bucket: 'fail:10.0.0.10', limit: 3 } }),
    ]);
    expect(key).toEqual({ counted: false, count: 3, resetAtMs: T0 + WINDOW });
    expect(failure).toEqual({ counted: false, count: 3, resetAtMs: T0 + WINDOW });
    expect(other).toEqual({ counted: true, count: 1, resetAtMs: T0 + WINDOW });
    expect((await counters.peek('key:k')).count).toBe(1);
    expect((await counters.peek(failures.bucket)).count).toBe(3);
  });

  it('starts a new window at 1, with its own reset time', async () => {
    const { url } = await database();
    const clock = { now: T0 + 59_999 };
    const counters = countersOn(await open(url), clock);
    await counters.hit('key:a');
    expect((await counters.hit('key:a')).count).toBe(2);
    clock.now = T0 + WINDOW;
    expect(await counters.peek('key:a')).toEqual({ count: 0, resetAtMs: T0 + 2 * WINDOW });
    expect(await counters.hit('key:a')).toEqual({ counted: true, count: 1, resetAtMs: T0 + 2 * WINDOW });
  });

  it('cleanup deletes the windows before the previous one, and nothing newer', async () => {
    const { name, url } = await database();
    const clock = { now: T0 };
    const store = await open(url);
    const counters = countersOn(store, clock);
    // 1,500 buckets three windows back (more than one delete batch), some two back, one each after
    for (let i = 0; i < 1500; i++) void counters.hit(`key:old-${i}`);
    await counters.hit('key:old');
    clock.now = T0 + WINDOW;
    await counters.hit('key:older');
    clock.now = T0 + 2 * WINDOW;
    await counters.hit('key:previous');
    clock.now = T0 + 3 * WINDOW + 30_000;
    await counters.hit('key:current');

    const deleted = await counters.deleteOldWindows();
    expect(deleted).toBe(1502);
    const { rows } = await cluster.query(name, 'SELECT bucket FROM rate_windows ORDER BY bucket');
    expect(rows.map((r) => r.bucket)).toEqual(['key:current', 'key:previous']);
    expect((await counters.peek('key:current')).count).toBe(1);
    expect(await counters.deleteOldWindows()).toBe(0);
  });

  it('keeps its table UNLOGGED', async () => {
    const { name, url } = await database();
    await open(url);
    const { rows } = await cluster.query(name, "SELECT relpersistence FROM pg_class WHERE relname = 'rate_windows'");
    expect(rows).toEqual([{ relpersistence: 'u' }]);
  });

  // Last: it stops the server.
  it('rejects with StoreUnavailableError while the database cannot be reached, and counts again once it is back', async () => {
    const { url } = await database();
    const clock = { now: T0 + 20_000 };
    const counters = countersOn(await open(url), clock);
    expect((await counters.hit('key:a')).count).toBe(1);
    await cluster.stop();
    try {
      await expect(counters.hit('key:a')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(counters.peek('fail:1.2.3.4')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await cluster.start();
    }
    expect((await counters.hit('key:a')).count).toBe(2);
  }, 60_000);
});
