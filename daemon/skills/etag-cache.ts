export interface EtagEntry<T> {
  etag: string;
  value: T;
}

/** A small least-recently-used map of GitHub answers by URL, for If-None-Match requests. */
export class EtagCache<T> {
  readonly #entries = new Map<string, EtagEntry<T>>();

  constructor(readonly maxEntries = 500) {}

  get(key: string): EtagEntry<T> | undefined {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: EtagEntry<T>): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }

  get size(): number {
    return this.#entries.size;
  }
}
