// Items that arrive in the same turn of the event loop, gathered per key and handed on together:
// a busy daemon reads many requests per turn, and their writes can share one transaction.

export interface Batched {
  done: { reject(err: unknown): void };
}

export class TurnBatches<T extends Batched> {
  private readonly pending = new Map<string, T[]>();

  /**
   * `run` gets a key's items of one turn, at most `max` at a time, and settles each item's
   * `done`; when it throws, every item of that batch is rejected with the error.
   */
  constructor(
    private readonly max: number,
    private readonly run: (batch: T[]) => Promise<void>,
  ) {}

  add(key: string, item: T): void {
    const queue = this.pending.get(key);
    if (queue) {
      queue.push(item);
      return;
    }
    this.pending.set(key, [item]);
    setImmediate(() => {
      const queued = this.pending.get(key)!;
      this.pending.delete(key);
      for (let i = 0; i < queued.length; i += this.max) {
        const batch = queued.slice(i, i + this.max);
        this.run(batch).catch((err: unknown) => {
          for (const item of batch) item.done.reject(err);
        });
      }
    });
  }
}
