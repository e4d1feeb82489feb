/**
 * Runs at most `max` tasks at once, and at most `perLane` of one lane (the scanning team), so one
 * team's scans of a repository that never answers cannot hold every slot for the whole timeout.
 * Lanes with waiting tasks take turns; within a lane, tasks run in arrival order.
 */
export class Limiter {
  #active = 0;
  readonly #activeByLane = new Map<string, number>();
  /** lanes with waiting tasks, in the order they get their next turn */
  readonly #waiting = new Map<string, (() => void)[]>();

  constructor(
    readonly max: number,
    readonly perLane = max,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('Limiter needs max >= 1');
    if (!Number.isInteger(perLane) || perLane < 1 || perLane > max) throw new RangeError('Limiter needs 1 <= perLane <= max');
  }

  async run<T>(lane: string, task: () => Promise<T>): Promise<T> {
    if (this.#waiting.has(lane) || !this.#hasRoom(lane)) {
      await new Promise<void>((resolve) => {
        const queue = this.#waiting.get(lane);
        if (queue) queue.push(resolve);
        else this.#waiting.set(lane, [resolve]);
      });
    } else {
      this.#take(lane);
    }
    try {
      return await task();
    } finally {
      this.#active--;
      const left = this.#activeByLane.get(lane)! - 1;
      if (left === 0) this.#activeByLane.delete(lane);
      else this.#activeByLane.set(lane, left);
      this.#startWaiting();
    }
  }

  #hasRoom(lane: string): boolean {
    return this.#active < this.max && (this.#activeByLane.get(lane) ?? 0) < this.perLane;
  }

  #take(lane: string): void {
    this.#active++;
    this.#activeByLane.set(lane, (this.#activeByLane.get(lane) ?? 0) + 1);
  }

  /** Starts waiting tasks while there is room, one lane's turn after another's. */
  #startWaiting(): void {
    let started = true;
    while (started && this.#active < this.max) {
      started = false;
      for (const [lane, queue] of this.#waiting) {
        if (!this.#hasRoom(lane)) continue;
        const next = queue.shift()!;
        // To the back of the line, if it has more: the next slot goes to another lane first.
        this.#waiting.delete(lane);
        if (queue.length > 0) this.#waiting.set(lane, queue);
        this.#take(lane);
        next();
        started = true;
        break;
      }
    }
  }
}
