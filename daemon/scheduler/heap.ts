// A binary min-heap of due times. The scheduler keeps one entry per trigger it may have to fire
// and looks only at the top, so arming the timer is O(1) and taking a due slot O(log n).

export interface HeapEntry {
  /** epoch ms when the entry becomes due */
  at: number;
  id: string;
}

export class DueHeap {
  private items: HeapEntry[] = [];

  get size(): number {
    return this.items.length;
  }

  /** Replaces the contents in O(n). */
  reset(entries: HeapEntry[]): void {
    this.items = entries.slice();
    for (let i = (this.items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  peek(): HeapEntry | undefined {
    return this.items[0];
  }

  push(entry: HeapEntry): void {
    this.items.push(entry);
    this.up(this.items.length - 1);
  }

  pop(): HeapEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(i: number): void {
    const items = this.items;
    const entry = items[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, items[parent])) break;
      items[i] = items[parent];
      i = parent;
    }
    items[i] = entry;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const entry = items[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(items[child + 1], items[child])) child++;
      if (!before(items[child], entry)) break;
      items[i] = items[child];
      i = child;
    }
    items[i] = entry;
  }
}

// Ties broken by id so the firing order of a burst is stable from run to run.
const before = (a: HeapEntry, b: HeapEntry) => a.at < b.at || (a.at === b.at && a.id < b.id);
