// Fixed one-minute windows (CONTRACT §9): what a window's count means for a limit, and the counters
// of a daemon that holds its store alone. On a store that daemons share, the store counts
// (Store.openRateCounters), so a limit holds across all of them.
import type { FastifyReply } from 'fastify';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { HitOptions, HitResult, RateCounterOptions, RateCounters, Store, WindowCount } from '../store/store.js';

const RATE_WINDOW_MS = 60_000;

/**
 * One set of counters for every limit, their buckets told apart by a prefix: the store's where
 * daemons share it, so each limit holds across them (CONTRACT §11).
 */
export function openRateCounters(store: Store, clock: Clock): RateCounters {
  const options = { windowMs: RATE_WINDOW_MS, now: () => clock().getTime() };
  return store.openRateCounters?.(options) ?? new MemoryRateCounters(options);
}

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets */
  resetAt: number;
  allowed: boolean;
}

/** The state after a hit: the request that made `count` is within the limit while count <= limit. */
export const afterHit = (limit: number, w: WindowCount): WindowState => stateOf(limit, w, w.count <= limit);

/** The state a peek sees: one more request fits while count < limit. */
export const beforeHit = (limit: number, w: WindowCount): WindowState => stateOf(limit, w, w.count < limit);

const stateOf = (limit: number, w: WindowCount, allowed: boolean): WindowState => ({
  limit,
  remaining: Math.max(0, limit - w.count),
  resetAt: Math.ceil(w.resetAtMs / 1000),
  allowed,
});

/**
 * Counters in memory, for a daemon that holds its store alone (the JSON-file store): exact, since
 * no other daemon serves its clients. A restart resets them, which only ever errs on the side of
 * letting a client through.
 */
export class MemoryRateCounters implements RateCounters {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(private readonly opts: RateCounterOptions) {}

  async hit(bucket: string, { n = 1, unlessAt }: HitOptions = {}): Promise<HitResult> {
    this.roll();
    const resetAtMs = this.windowStart + this.opts.windowMs;
    if (unlessAt) {
      const held = this.counts.get(unlessAt.bucket) ?? 0;
      if (held >= unlessAt.limit) return { counted: false, count: held, resetAtMs };
    }
    const count = (this.counts.get(bucket) ?? 0) + n;
    this.counts.set(bucket, count);
    return { counted: true, count, resetAtMs };
  }

  async peek(bucket: string): Promise<WindowCount> {
    this.roll();
    return { count: this.counts.get(bucket) ?? 0, resetAtMs: this.windowStart + this.opts.windowMs };
  }

  // Whole windows aligned to the clock: every counter resets together, so the map never grows
  // past one window's worth of clients.
  private roll(): void {
    const { windowMs } = this.opts;
    const start = Math.floor(this.opts.now() / windowMs) * windowMs;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts = new Map();
    }
  }
}

export function setRateHeaders(reply: FastifyReply, w: WindowState): void {
  reply.header('X-RateLimit-Limit', String(w.limit));
  reply.header('X-RateLimit-Remaining', String(w.remaining));
  reply.header('X-RateLimit-Reset', String(w.resetAt));
}

/** The 429 of a window that is over its limit, with Retry-After set on the reply. */
export function rateLimited(reply: FastifyReply, w: WindowState, nowMs: number, message: string): ApiError {
  const retryAfter = Math.max(1, w.resetAt - Math.floor(nowMs / 1000));
  reply.header('Retry-After', String(retryAfter));
  return new ApiError('RATE_LIMITED', `${message}; retry after ${retryAfter}s`);
}
