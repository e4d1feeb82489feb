/** Runs at most `max` tasks at once; the rest wait in arrival order. */
export class Limiter {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(readonly max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError('Limiter needs max >= 1');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#active < this.max) this.#active++;
    // A finishing task hands its slot straight to the next waiter, so #active never overshoots.
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }
}
