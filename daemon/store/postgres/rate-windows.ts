// The rate limits' counters on PostgreSQL (Store.openRateCounters): one row per bucket and fixed
// window in rate_windows, bumped by an atomic upsert, so every daemon on the database counts into
// the same rows and a limit holds across all of them (CONTRACT §11).
//
// A busy daemon counts many requests at once. As reads do (read-batches.ts), the counts asked for
// in one turn of the event loop, and those asked for while a statement is in flight, go as one
// statement. It reads the buckets peeked at and those that hold hits back (HitOptions.unlessAt),
// then adds the hits not held back, summed per bucket (ON CONFLICT DO UPDATE touches a row once
// per statement). Each hit is then given its own exact count: the bucket's total less the hits
// asked for after it.
//
// Window boundaries come from the daemon's clock, not the database's: tests inject a clock, and
// leases already rely on daemons' clocks agreeing (NTP).
import type { StoreLogger } from '../logger.js';
import type { HitOptions, HitResult, RateCounterOptions, RateCounters, WindowCount } from '../store.js';
import { isRetryable } from './errors.js';
import type { Queryable } from './transactions.js';

export interface PgRateCountersOptions extends RateCounterOptions {
  logger: StoreLogger;
  /** how counts gather before they are sent (the end of the event loop's turn) */
  schedule?(fn: () => void): void;
}

interface Ask {
  bucket: string;
  /** requests counted; 0 for a peek */
  n: number;
  unlessAt: HitOptions['unlessAt'];
  resolve(w: HitResult): void;
  reject(err: unknown): void;
}

// $1 the window, $2 the buckets read (peeked, or holding hits back), then one element per hit:
// $3 its bucket, $4 its count, $5 and $6 the bucket and limit that hold it back (or null).
// Every part reads the snapshot the statement started from, so `seen` is the count before this
// statement's hits, as a peek sent first would have been; the code below decides from the same
// rows which hits were held back. The hits go in bucket order, so two daemons' statements lock
// shared rows in one order and never deadlock.
const COUNT = {
  name: 'svc_rate_windows_count',
  text: `
WITH seen AS (
  SELECT bucket, hits FROM rate_windows WHERE window_start = $1::timestamptz AND bucket = ANY($2::text[])
), counted AS (
  SELECT a.bucket, sum(a.n)::int AS n
  FROM unnest($3::text[], $4::int[], $5::text[], $6::int[]) AS a(bucket, n, held_by, held_at)
  LEFT JOIN seen s ON s.bucket = a.held_by
  WHERE a.held_by IS NULL OR coalesce(s.hits, 0) < a.held_at
  GROUP BY a.bucket ORDER BY a.bucket
), hit AS (
  INSERT INTO rate_windows AS w (bucket, window_start, hits)
  SELECT bucket, $1::timestamptz, n FROM counted
  ON CONFLICT (bucket, window_start) DO UPDATE SET hits = w.hits + EXCLUDED.hits
  RETURNING w.bucket, w.hits
)
SELECT false AS seen, bucket, hits FROM hit
UNION ALL
SELECT true, bucket, hits FROM seen`,
};

/** Tries of a count that keeps meeting a deadlock (not expected, with rows locked in order). */
const MAX_TRIES = 3;

/** Old windows deleted per statement: a short statement each, holding few locks. */
const CLEANUP_BATCH = 1000;
// Every daemon cleans up: rows another one is deleting are skipped, not waited for.
const CLEANUP = {
  name: 'svc_rate_windows_cleanup',
  text: `DELETE FROM rate_windows WHERE (bucket, window_start) IN (
  SELECT bucket, window_start FROM rate_windows WHERE window_start < $1::timestamptz LIMIT ${CLEANUP_BATCH} FOR UPDATE SKIP LOCKED)`,
};

export class PgRateCounters implements RateCounters {
  private pending: Ask[] = [];
  private scheduled = false;
  private sending = false;
  private readonly timer: NodeJS.Timeout;
  private cleaning = false;

  /** `db`: the pool, its errors already turned into the store's (StoreUnavailableError) */
  constructor(
    private readonly db: Queryable,
    private readonly opts: PgRateCountersOptions,
  ) {
    this.timer = setInterval(() => void this.cleanUpLogged(), opts.windowMs);
    this.timer.unref();
  }

  hit(bucket: string, { n = 1, unlessAt }: HitOptions = {}): Promise<HitResult> {
    return this.ask(bucket, n, unlessAt);
  }

  async peek(bucket: string): Promise<WindowCount> {
    const { count, resetAtMs } = await this.ask(bucket, 0, undefined);
    return { count, resetAtMs };
  }

  /**
   * Deletes the windows before the previous one, a batch at a time; returns how many rows went.
   * The previous window stays for a daemon whose clock runs a little behind.
   */
  async deleteOldWindows(): Promise<number> {
    const cutoff = new Date(this.windowStart() - this.opts.windowMs).toISOString();
    let deleted = 0;
    for (;;) {
      const { rowCount } = await this.db.query({ ...CLEANUP, values: [cutoff] });
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < CLEANUP_BATCH) return deleted;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }

  private async cleanUpLogged(): Promise<void> {
    if (this.cleaning) return;
    this.cleaning = true;
    try {
      await this.deleteOldWindows();
    } catch (err) {
      this.opts.logger.warn({ err: { message: (err as Error).message } }, 'deleting old rate-limit windows failed; it runs again later');
    } finally {
      this.cleaning = false;
    }
  }

  private windowStart(): number {
    return Math.floor(this.opts.now() / this.opts.windowMs) * this.opts.windowMs;
  }

  private ask(bucket: string, n: number, unlessAt: HitOptions['unlessAt']): Promise<HitResult> {
    const promise = new Promise<HitResult>((resolve, reject) => this.pending.push({ bucket, n, unlessAt, resolve, reject }));
    // While a statement is in flight, counts wait for it to end and then go together.
    if (!this.scheduled && !this.sending) {
      this.scheduled = true;
      (this.opts.schedule ?? setImmediate)(() => void this.send());
    }
    return promise;
  }

  private async send(): Promise<void> {
    this.scheduled = false;
    this.sending = true;
    const asks = this.pending;
    this.pending = [];
    try {
      await this.count(asks);
    } finally {
      this.sending = false;
      if (this.pending.length > 0) void this.send();
    }
  }

  private async count(asks: Ask[]): Promise<void> {
    const start = this.windowStart();
    const resetAtMs = start + this.opts.windowMs;
    const read = new Set<string>();
    const hits = asks.filter((a) => a.n > 0);
    for (const a of asks) {
      if (a.n === 0) read.add(a.bucket);
      else if (a.unlessAt) read.add(a.unlessAt.bucket);
    }
    const values = [
      new Date(start).toISOString(),
      [...read],
      hits.map((a) => a.bucket),
      hits.map((a) => a.n),
      hits.map((a) => a.unlessAt?.bucket ?? null),
      hits.map((a) => a.unlessAt?.limit ?? null),
    ];
    let rows: { seen: boolean; bucket: string; hits: number }[];
    for (let tries = 1; ; tries++) {
      try {
        ({ rows } = await this.db.query({ ...COUNT, values }));
        break;
      } catch (err) {
        // (a statement that failed changed nothing: sent again, it counts each hit once)
        if (isRetryable(err) && tries < MAX_TRIES) continue;
        for (const a of asks) a.reject(err);
        return;
      }
    }
    const counted = new Map<string, number>();
    const seen = new Map<string, number>();
    for (const r of rows) (r.seen ? seen : counted).set(r.bucket, r.hits);
    // The last hit of a bucket gets its total; each earlier one, that less the hits after it.
    for (let i = asks.length - 1; i >= 0; i--) {
      const a = asks[i];
      if (a.n === 0) {
        a.resolve({ counted: false, count: seen.get(a.bucket) ?? 0, resetAtMs });
        continue;
      }
      if (a.unlessAt) {
        const held = seen.get(a.unlessAt.bucket) ?? 0;
        if (held >= a.unlessAt.limit) {
          a.resolve({ counted: false, count: held, resetAtMs });
          continue;
        }
      }
      const count = counted.get(a.bucket)!;
      counted.set(a.bucket, count - a.n);
      a.resolve({ counted: true, count, resetAtMs });
    }
  }
}
