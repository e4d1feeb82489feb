// Zero-filled space ahead of a journal segment's last record. A synced write that grows its file
// also has the file system commit the new size and block map (on ext4, a journal commit per
// write); one that overwrites blocks the file already has on disk flushes only its data. So the
// segment being appended to is filled with zeros, synced, some way past its last record, and
// records overwrite the zeros: PostgreSQL fills each WAL segment with zeros before using it for
// the same reason (wal_init_zero). What it saved when measured is in docs/benchmarks.md.
// Readers take zero bytes from a line start to the end of the file as unused space (readSegment).
import type { FileHandle } from 'node:fs/promises';

/** The first fill; each one after is twice the last, up to MAX_FILL: an idle store writes little. */
export const FIRST_FILL = 64 * 1024;
export const MAX_FILL = 4 * 1024 * 1024;

export class ZeroFilledSpace {
  /** the file holds zeros (or records) up to here */
  private filledTo: number;
  /** the fill under way: it writes zeros from `from` on */
  private filling: { from: number; done: Promise<void> } | null = null;
  private nextFill = FIRST_FILL;
  /** a fill starts once less than this is left: half the last fill (before the first, when none is) */
  private lowWater = 1;
  /** a fill failed (a full disk): records grow the file from then on, as appends would */
  private stopped = false;

  constructor(
    private readonly handle: FileHandle,
    /** the file's size when opened: what lies past the last record is zeros (the store cut anything else) */
    fileSize: number,
    /** writes through the handle and returns once the bytes are durable */
    private readonly syncedWrite: (handle: FileHandle, buf: Buffer, position: number) => Promise<void>,
  ) {
    this.filledTo = fileSize;
  }

  /**
   * Call before writing `length` bytes of records at `end`: waits for a fill that would write
   * zeros where they go. Records then never meet a fill's zeros after them.
   */
  async beforeWrite(end: number, length: number): Promise<void> {
    if (this.filling && end + length > this.filling.from) await this.filling.done;
  }

  /**
   * Call once records reach `end`: starts the next fill when less than half the last one is
   * left, so fills grow with the records written, not with the writes.
   */
  afterWrite(end: number): void {
    if (this.filling || this.stopped || this.filledTo - end >= this.lowWater) return;
    const from = Math.max(this.filledTo, end);
    const size = this.nextFill;
    this.nextFill = Math.min(MAX_FILL, size * 2);
    this.lowWater = size / 2;
    const done = this.syncedWrite(this.handle, Buffer.alloc(size), from).then(
      () => {
        this.filledTo = from + size;
      },
      () => {
        this.stopped = true;
      },
    );
    this.filling = { from, done: done.finally(() => (this.filling = null)) };
  }

  /** Waits for the fill under way, if any (before the handle closes). */
  async settle(): Promise<void> {
    await this.filling?.done;
  }
}
