// The rate limits' counters on PostgreSQL (Store.openRateCounters): one row per bucket and fixed
// window in rate_windows, bumped by an atomic upsert, so every daemon on the database counts into
// the same rows and a limit holds across all of them (CONTRACT §11).
//
// A busy daemon counts many requests at once. As reads do (read-batches.ts), the counts asked for
// in one turn of the event loop, and those asked for while a statement is in flight, go as one
// statement: the hits summed per bucket (ON CONFLICT DO UPDATE touches a row once per statement),
// the peeks read beside them. Each hit is then given its own exact count: the bucket's total less
// the hits asked for after it.
//
// Window boundaries come from the daemon's clock, not the database's: tests inject a clock, and
// leases already rely on daemons' clocks agreeing (NTP).
import type { StoreLogger } from '../logger.js';
import type { RateCounterOptions, RateCounters, WindowCount } from '../store.js';
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
  resolve(w: WindowCount): void;
  reject(err: unknown): void;
}

// The hits go in bucket order, so two daemons' statements lock shared rows in one order and never
// deadlock. The peeks read the snapshot the statement started from: before its own hits.
const COUNT = {
  name: 'svc_rate_windows_count',
  text: `
WITH hit AS (
  INSERT INTO rate_windows AS w (bucket, window_start, hits)
  SELECT bucket, $1::timestamptz, n FROM unnest($2::text[], $3::int[]) AS t(bucket, n)
  ON CONFLICT (bucket, window_start) DO UPDATE SET hits = w.hits + EXCLUDED.hits
  RETURNING w.bucket, w.hits
)
SELECT false AS peek, bucket, hits FROM hit
UNION ALL
SELECT true, bucket, hits FROM rate_windows WHERE window_start = $1::timestamptz AND bucket = ANY($4::text[])`,
};

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

  hit(bucket: string, n = 1): Promise<WindowCount> {
    return this.ask(bucket, n);
  }

  peek(bucket: string): Promise<WindowCount> {
    return this.ask(bucket, 0);
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

  private ask(bucket: string, n: number): Promise<WindowCount> {
    const promise = new Promise<WindowCount>((resolve, reject) => this.pending.push({ bucket, n, resolve, reject }));
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
    const totals = new Map<string, number>();
    const peeked = new Set<string>();
    for (const a of asks) {
      if (a.n > 0) totals.set(a.bucket, (totals.get(a.bucket) ?? 0) + a.n);
      else peeked.add(a.bucket);
    }
    const buckets = [...totals.keys()].sort();
    let rows: { peek: boolean; bucket: string; hits: number }[];
    try {
      ({ rows } = await this.db.query({ ...COUNT, values: [new Date(start).toISOString(), buckets, buckets.map((b) => totals.get(b)!), [...peeked]] }));
    } catch (err) {
      for (const a of asks) a.reject(err);
      return;
    }
    const counted = new Map<string, number>();
    const seen = new Map<string, number>();
    for (const r of rows) (r.peek ? seen : counted).set(r.bucket, r.hits);
    // The last hit of a bucket gets its total; each earlier one, that less the hits after it.
    for (let i = asks.length - 1; i >= 0; i--) {
      const a = asks[i];
      if (a.n === 0) {
        a.resolve({ count: seen.get(a.bucket) ?? 0, resetAtMs });
        continue;
      }
      const count = counted.get(a.bucket)!;
      counted.set(a.bucket, count - a.n);
      a.resolve({ count, resetAtMs });
    }
  }
}
