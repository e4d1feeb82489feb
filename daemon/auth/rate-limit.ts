// Fixed one-minute windows per key (CONTRACT §9). Counters live in memory: a restart resets
// them, which only ever errs on the side of letting a client through.

export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets */
  resetAt: number;
  allowed: boolean;
}

export class FixedWindowLimiter {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts one request for `id` and says whether it is within the limit. */
  hit(id: string): WindowState {
    this.roll();
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.set(id, count);
    return this.state(count);
  }

  /** Whether `id` is already over the limit, without counting a request. */
  peek(id: string): WindowState {
    this.roll();
    return this.state(this.counts.get(id) ?? 0, true);
  }

  private state(count: number, peek = false): WindowState {
    return {
      limit: this.limit,
      remaining: Math.max(0, this.limit - count),
      resetAt: Math.ceil((this.windowStart + this.windowMs) / 1000),
      allowed: peek ? count < this.limit : count <= this.limit,
    };
  }

  // Whole windows aligned to the clock: every counter resets together, so the map never grows
  // past one window's worth of clients.
  private roll(): void {
    const start = Math.floor(this.now() / this.windowMs) * this.windowMs;
    if (start !== this.windowStart) {
      this.windowStart = start;
      this.counts = new Map();
    }
  }
}
