// The journal: JSON lines `{"seq":N,"m":[mutations]}` in numbered segments
// DIR/journal-<first seq>.jsonl. Appends go to one segment through one file handle, over zeros
// kept past its last record (zero-filled-space.ts); a compaction switches appends to a new
// segment so the segments it has covered can be deleted whole.
import { constants } from 'node:fs';
import { open, readdir, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, writeAll } from './fs-sync.js';
import { ZeroFilledSpace } from './zero-filled-space.js';
import type { AnyRow, Mutation } from './memory-tables.js';
import { StoreCorruptError } from './snapshot-file.js';
import { MAX_SERIES_MEMBERS, SERIES_PREFIX_LENGTH, seriesMemberId } from './new-id.js';
import { memberIndex, PACK_CODECS, packPrefix } from './packed-rows.js';
import { TABLE_SPECS, type TableName } from './tables.js';

export interface JournalRecord {
  seq: number;
  m: Mutation[];
}

export interface Segment {
  firstSeq: number;
  path: string;
}

const SEGMENT_RE = /^journal-(\d{16})\.jsonl$/;
const READ_CHUNK = 1 << 20;
const NEWLINE = 0x0a;

export function segmentPath(dir: string, firstSeq: number): string {
  return join(dir, `journal-${String(firstSeq).padStart(16, '0')}.jsonl`);
}

/**
 * The journal line of one transaction. A put that replaces a row is written as `set` of the
 * fields that changed, compared by identity (rows are never mutated, so an unchanged field holds
 * the same value): a session's status change does not rewrite its prompt, nor a trigger's counter
 * its filters. `replaced[i]` is the row mutation i replaced, if any. A stretch of puts or sets of rows
 * of one shape in one table (an event's sessions, their outcomes) is written as one `rows` entry
 * (see factorStretch), so what the rows share is serialised once.
 */
export function journalLine(
  seq: number,
  mutations: readonly Mutation[],
  replaced: readonly (AnyRow | undefined)[],
  /** per mutation, the fields an update set when it said them (no comparison needed) */
  patches: readonly (AnyRow | undefined)[] = [],
): string {
  // Grouped by table, in order within each: tables are independent, so replaying them one after
  // the other gives the same state, and an outcome's message and session rows form two stretches.
  const byTable = new Map<string, Mutation[]>();
  mutations.forEach((m, i) => {
    const prev = replaced[i];
    const patch = patches[i] ?? (m[0] === 'put' && prev !== undefined ? changedFields(prev, m[2], TABLE_SPECS[m[1]].key) : null);
    const group = byTable.get(m[1]);
    const e: Mutation = patch ? ['set', m[1], patch] : m;
    if (group) group.push(e);
    else byTable.set(m[1], [e]);
  });
  let effective: Mutation[] = [];
  if (byTable.size === 1) for (const group of byTable.values()) effective = group;
  else for (const group of byTable.values()) for (const m of group) effective.push(m);
  let out = `{"seq":${seq},"m":[`;
  let first = true;
  for (let i = 0; i < effective.length; ) {
    const m = effective[i];
    let end = i + 1;
    if (m[0] !== 'del') {
      const keys = factorableKeys(m[2]);
      if (keys) while (end < effective.length && sameShape(effective[end], m[0], m[1], keys)) end++;
      if (end - i >= 2) {
        out += (first ? '' : ',') + JSON.stringify(factorStretch(m[0], m[1], keys!, effective.slice(i, end) as RowMutation[]));
        first = false;
        i = end;
        continue;
      }
    }
    out += (first ? '' : ',') + JSON.stringify(m);
    first = false;
    i = end;
  }
  return `${out}]}\n`;
}

type RowMutation = Extract<Mutation, { 0: 'put' | 'set' }>;

/**
 * `["rows", op, table, common, keys, values]`: each row is `common` plus `keys[j]: values[r][j]`.
 * Replays as the puts or sets it stands for (expandRows).
 */
type RowsEntry = ['rows', 'put' | 'set', string, AnyRow, string[], unknown[][], KeySeries?];

/**
 * `[prefix, first]`: the rows' keys are the series members `first`, `first + 1`, ... of `prefix`
 * (IdSeries's ids: an event's sessions), so they are written once as this rather than per row.
 */
type KeySeries = [string, number];

/** The row's keys when it can be written in a `rows` entry: no undefined values (JSON has none). */
function factorableKeys(row: AnyRow): string[] | null {
  const keys = Object.keys(row);
  for (const k of keys) if (row[k] === undefined) return null;
  return keys;
}

function sameShape(m: Mutation, op: string, table: string, keys: string[]): boolean {
  if (m[0] !== op || m[1] !== table) return false;
  const row = m[2] as AnyRow;
  let n = 0;
  for (const k in row) {
    if (row[k] === undefined || k !== keys[n]) return false;
    n++;
  }
  return n === keys.length;
}

/**
 * What all rows of the stretch hold alike (same value or same object) is written once. Rows of a
 * table whose rows may be packed (packed-rows.ts) are first compared by its codec: when they all hold
 * the first one's shared fields, only the others are compared one field at a time.
 */
function factorStretch(op: 'put' | 'set', table: string, keys: string[], stretch: RowMutation[]): RowsEntry {
  const first = stretch[0][2];
  const codec = op === 'put' ? PACK_CODECS[table as TableName] : undefined;
  const shared = codec && stretch.every((m) => codec.fits(first, m[2])) ? codec.shared : undefined;
  const common: AnyRow = {};
  const varying: string[] = [];
  for (const k of keys) {
    const v = first[k];
    if (shared?.has(k) || stretch.every((m) => m[2][k] === v)) common[k] = v;
    else varying.push(k);
  }
  const keyField = TABLE_SPECS[table as TableName].key;
  const keySeries = codec ? membersInOrder(stretch, keyField) : undefined;
  const written = keySeries ? varying.filter((k) => k !== keyField) : varying;
  const values = packed(stretch, (m) => rowValues(m[2], written));
  return keySeries ? ['rows', op, table, common, written, values, keySeries] : ['rows', op, table, common, written, values];
}

/** The KeySeries of the rows' keys when they are consecutive members of one series of ids, else undefined. */
function membersInOrder(stretch: RowMutation[], keyField: string): KeySeries | undefined {
  const first = stretch[0][2][keyField] as string;
  const from = memberIndex(first);
  if (from < 0 || from + stretch.length > MAX_SERIES_MEMBERS) return undefined;
  const prefix = packPrefix(first);
  for (let r = 1; r < stretch.length; r++) {
    const k = stretch[r][2][keyField] as string;
    if (memberIndex(k) !== from + r || !k.startsWith(prefix)) return undefined;
  }
  return [prefix, from];
}

/** The row's values of `keys`, in that order. */
function rowValues(row: AnyRow, keys: readonly string[]): unknown[] {
  const values: unknown[] = [];
  for (const k of keys) values.push(row[k]);
  return values;
}

/**
 * `items.map(fn)`, built by push: map can hand back a holey array here, and V8 (11, Node 20)
 * serialises holey arrays through its slow generic path.
 */
function packed<T, R>(items: readonly T[], fn: (item: T) => R): R[] {
  const out: R[] = [];
  for (const item of items) out.push(fn(item));
  return out;
}

/** A journal record's mutations as the tables apply them: `rows` entries become their puts and sets. */
export function expandRows(entries: readonly unknown[]): Mutation[] {
  const out: Mutation[] = [];
  for (const e of entries) {
    if (!Array.isArray(e) || e[0] !== 'rows') {
      out.push(e as Mutation);
      continue;
    }
    const [, op, table, common, keys, values, keySeries] = e as RowsEntry;
    if ((op !== 'put' && op !== 'set') || !Array.isArray(keys) || !Array.isArray(values) || typeof common !== 'object' || common === null) {
      throw new Error('malformed rows entry');
    }
    if (keySeries !== undefined && (!Array.isArray(keySeries) || typeof keySeries[0] !== 'string' || keySeries[0].length !== SERIES_PREFIX_LENGTH || !Number.isInteger(keySeries[1]) || keySeries[1] < 0 || keySeries[1] + values.length > MAX_SERIES_MEMBERS || !Object.hasOwn(TABLE_SPECS, table))) {
      throw new Error('malformed rows entry');
    }
    const keyField = keySeries ? TABLE_SPECS[table as TableName].key : '';
    values.forEach((v, r) => {
      if (!Array.isArray(v) || v.length !== keys.length) throw new Error('malformed rows entry');
      const row: AnyRow = { ...common };
      for (let j = 0; j < keys.length; j++) row[keys[j]] = v[j];
      if (keySeries) row[keyField] = seriesMemberId(keySeries[0], keySeries[1] + r);
      out.push([op, table as RowMutation[1], row]);
    });
  }
  return out;
}

/**
 * The key and the fields of `next` that differ from `prev`; null when a field is dropped or set
 * to undefined, which JSON cannot say as a patch (the whole row is written then).
 */
function changedFields(prev: AnyRow, next: AnyRow, keyField: string): AnyRow | null {
  const patch: AnyRow = { [keyField]: next[keyField] };
  for (const k in prev) if (!Object.hasOwn(next, k) && prev[k] !== undefined) return null;
  for (const k in next) {
    const v = next[k];
    if (v === prev[k]) continue;
    if (v === undefined) return null;
    patch[k] = v;
  }
  return patch;
}

/** The journal segments in DIR, oldest first. */
export async function listSegments(dir: string): Promise<Segment[]> {
  const out: Segment[] = [];
  for (const name of await readdir(dir)) {
    const m = SEGMENT_RE.exec(name);
    if (m) out.push({ firstSeq: Number(m[1]), path: join(dir, name) });
  }
  return out.sort((a, b) => a.firstSeq - b.firstSeq);
}

export interface SegmentReadResult {
  /** bytes up to the end of the last complete, valid line */
  goodBytes: number;
  /** set when the segment ends in an incomplete or unparsable line, which was not delivered */
  torn: { line: number; bytes: number } | null;
}

function parseRecord(text: string): JournalRecord | null {
  try {
    const rec = JSON.parse(text) as JournalRecord;
    if (rec && typeof rec === 'object' && Number.isInteger(rec.seq) && Array.isArray(rec.m)) return { seq: rec.seq, m: expandRows(rec.m) };
  } catch {
    // reported by the caller with the line number
  }
  return null;
}

/**
 * Streams a segment's records to `onRecord` in order. Zeros from a line start to the end of the
 * file are space kept for later records (ZeroFilledSpace), not a line. A bad line followed by
 * anything else is corruption and throws. What a crash mid-append leaves is reported as torn (the
 * caller decides whether that is allowed where it sits): an incomplete last line, or a complete
 * one holding NUL bytes (a power loss can persist a line's last block before its middle ones,
 * which read as zeros). A complete last line damaged otherwise was written whole, so it is
 * corruption too.
 */
export async function readSegment(path: string, onRecord: (rec: JournalRecord, line: number) => void): Promise<SegmentReadResult> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(READ_CHUNK);
    let carry: Buffer[] = [];
    let pos = 0;
    let goodBytes = 0;
    let lineNo = 0;
    let bad: { line: number; zeros: boolean } | null = null;
    /** where the lines end: the end of the file, or where its unused zeros start */
    let end = -1;
    const corrupt = (line: number) =>
      new StoreCorruptError(
        `journal ${path} line ${line} is not a valid journal record and is not the last line, so it is not ` +
          'a torn append: the daemon will not start. The file is left untouched.',
      );
    scan: for (;;) {
      const { bytesRead } = await handle.read(buf, 0, READ_CHUNK, pos);
      if (bytesRead === 0) break;
      let start = 0;
      for (;;) {
        if (carry.length === 0 && start < bytesRead && buf[start] === 0 && (await zerosToEnd(handle, buf, start, bytesRead, pos))) {
          end = pos + start;
          break scan;
        }
        const nl = buf.indexOf(NEWLINE, start);
        if (nl === -1 || nl >= bytesRead) break;
        lineNo++;
        if (bad) throw corrupt(bad.line);
        const text = carry.length
          ? Buffer.concat([...carry, buf.subarray(start, nl)]).toString('utf8')
          : buf.toString('utf8', start, nl);
        carry = [];
        const rec = parseRecord(text);
        if (rec) {
          onRecord(rec, lineNo);
          goodBytes = pos + nl + 1;
        } else {
          bad = { line: lineNo, zeros: text.includes('\u0000') };
        }
        start = nl + 1;
      }
      if (start < bytesRead) {
        if (bad) throw corrupt(bad.line);
        carry.push(Buffer.from(buf.subarray(start, bytesRead)));
      }
      pos += bytesRead;
    }
    if (end < 0) end = pos;
    if (bad && !bad.zeros) {
      throw new StoreCorruptError(
        `journal ${path} line ${bad.line} is not a valid journal record, though it was written whole (it ends in a newline), ` +
          'so it is not a torn append: the daemon will not start. The file is left untouched.',
      );
    }
    if (bad) return { goodBytes, torn: { line: bad.line, bytes: end - goodBytes } };
    if (carry.length) return { goodBytes, torn: { line: lineNo + 1, bytes: end - goodBytes } };
    return { goodBytes, torn: null };
  } finally {
    await handle.close();
  }
}

const ZERO_BLOCK = Buffer.alloc(64 * 1024);

/** Whether bytes `from` to `to` of `buf` are all zero. */
function allZero(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i += ZERO_BLOCK.length) {
    const n = Math.min(to - i, ZERO_BLOCK.length);
    if (buf.compare(ZERO_BLOCK, 0, n, i, i + n) !== 0) return false;
  }
  return true;
}

/** Whether the file holds nothing but zeros from `start` in `buf` on (`buf` holds `bytesRead` bytes from file position `pos`). */
async function zerosToEnd(handle: FileHandle, buf: Buffer, start: number, bytesRead: number, pos: number): Promise<boolean> {
  if (!allZero(buf, start, bytesRead)) return false;
  const rest = Buffer.allocUnsafe(READ_CHUNK);
  for (let at = pos + bytesRead; ; ) {
    const { bytesRead: n } = await handle.read(rest, 0, READ_CHUNK, at);
    if (n === 0) return true;
    if (!allZero(rest, 0, n)) return false;
    at += n;
  }
}

/** Cuts a torn tail off so later appends start on a clean line. */
export async function truncateSegment(path: string, bytes: number): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    await handle.truncate(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * How segments are opened for writing. With O_DSYNC (where the platform has it) each write
 * returns once its data is on disk, as a write followed by fdatasync would: one trip through
 * libuv's thread pool per group commit instead of two (docs/benchmarks.md has the comparison).
 * PostgreSQL's `wal_sync_method = open_datasync` is the same choice. Without it: fdatasync.
 * Not O_APPEND: records go at the end of the last one, over the zeros of ZeroFilledSpace.
 */
const SYNCED_WRITE = constants.O_DSYNC === undefined ? null : constants.O_WRONLY | constants.O_CREAT | constants.O_DSYNC;

const openSegment = (dir: string, firstSeq: number) => open(segmentPath(dir, firstSeq), SYNCED_WRITE ?? constants.O_WRONLY | constants.O_CREAT, 0o600);

/** Writes `buf` from `position` on, and returns once it is on disk. */
async function writeDurably(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  await writeAll(handle, buf, position);
  if (SYNCED_WRITE === null) await handle.datasync();
}

/** A segment open for writing: its handle, where its records end, and the zeros kept past them. */
class OpenSegment {
  private readonly space: ZeroFilledSpace;

  private constructor(
    readonly handle: FileHandle,
    readonly firstSeq: number,
    /** the end of its last record: the next one goes here */
    private end: number,
    fileSize: number,
  ) {
    this.space = new ZeroFilledSpace(handle, fileSize, writeDurably);
  }

  /** Opens (or creates) the segment starting at `firstSeq` whose records end at `end`; its folder is synced so a new file is durable. */
  static async open(dir: string, firstSeq: number, end: number): Promise<OpenSegment> {
    const handle = await openSegment(dir, firstSeq);
    try {
      const { size } = await handle.stat();
      await fsyncDir(dir);
      return new OpenSegment(handle, firstSeq, end, size);
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Writes records after the last, and returns once they are on disk. */
  async write(buf: Buffer): Promise<void> {
    await this.space.beforeWrite(this.end, buf.length);
    await writeDurably(this.handle, buf, this.end);
    this.end += buf.length;
    this.space.afterWrite(this.end);
  }

  /**
   * Closes the file. The zeros past the last record stay: cutting them at a stop would also cut
   * what another daemon wrote there, were the data folder taken over (its lock lost).
   */
  async close(): Promise<void> {
    try {
      await this.space.settle();
    } finally {
      await this.handle.close();
    }
  }
}

type Pending =
  | { kind: 'line'; buf: Buffer; resolve: () => void; reject: (err: Error) => void }
  | { kind: 'rotate'; firstSeq: number; resolve: () => void; reject: (err: Error) => void };

/**
 * Appends lines with group commit: while one synced write is in flight, later lines queue, and
 * the next synced write carries all of them. A line's promise resolves once it is on disk.
 * After a failed write or sync the journal refuses everything: what reached the file is unknown.
 */
export class JournalWriter {
  private queue: Pending[] = [];
  private running = false;
  private failure: Error | null = null;
  private drained: (() => void)[] = [];
  /** synced writes made (O_DSYNC writes, or write + fdatasync), for tests and benchmarks */
  syncs = 0;

  private constructor(
    private readonly dir: string,
    private segment: OpenSegment,
  ) {}

  /** Appends to the segment starting at `firstSeq` (created when new), whose records end at `end`. */
  static async open(dir: string, firstSeq: number, end: number): Promise<JournalWriter> {
    return new JournalWriter(dir, await OpenSegment.open(dir, firstSeq, end));
  }

  get firstSeq(): number {
    return this.segment.firstSeq;
  }

  get failed(): Error | null {
    return this.failure;
  }

  /** `line` is one whole journal line, newline included, already encoded. */
  append(line: Buffer): Promise<void> {
    return this.enqueue((resolve, reject) => ({ kind: 'line', buf: line, resolve, reject }));
  }

  /** Lines appended after this call go to a new segment starting at `firstSeq`. */
  rotate(firstSeq: number): Promise<void> {
    return this.enqueue((resolve, reject) => ({ kind: 'rotate', firstSeq, resolve, reject }));
  }

  /** Deletes the segments before the current one whose records all precede `firstSeq`. */
  async removeSegmentsBefore(firstSeq: number): Promise<number> {
    const segments = await listSegments(this.dir);
    let removed = 0;
    for (let i = 0; i < segments.length - 1; i++) {
      const next = segments[i + 1];
      if (segments[i].firstSeq === this.segment.firstSeq || next.firstSeq > firstSeq) break;
      await rm(segments[i].path, { force: true });
      removed++;
    }
    if (removed > 0) await fsyncDir(this.dir);
    return removed;
  }

  /** Waits for everything queued, then closes the file. */
  async close(): Promise<void> {
    if (this.running) await new Promise<void>((resolve) => this.drained.push(resolve));
    await this.segment.close();
  }

  private enqueue(make: (resolve: () => void, reject: (err: Error) => void) => Pending): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const done = new Promise<void>((resolve, reject) => this.queue.push(make(resolve, reject)));
    if (!this.running) {
      this.running = true;
      void this.run();
    }
    return done;
  }

  private async run(): Promise<void> {
    // Lines committed in the same tick share the first write.
    await null;
    while (this.queue.length > 0) {
      const rotateAt = this.queue.findIndex((p) => p.kind === 'rotate');
      const lines = this.queue.splice(0, rotateAt === -1 ? this.queue.length : rotateAt) as Extract<Pending, { kind: 'line' }>[];
      if (lines.length > 0) {
        try {
          await this.segment.write(lines.length === 1 ? lines[0].buf : Buffer.concat(lines.map((l) => l.buf)));
          this.syncs++;
        } catch (err) {
          this.fail(err as Error, lines);
          break;
        }
        for (const l of lines) l.resolve();
      }
      const next = this.queue[0];
      if (next?.kind === 'rotate') {
        this.queue.shift();
        try {
          await this.switchTo(next.firstSeq);
          next.resolve();
        } catch (err) {
          // The old segment is still good; only this compaction fails.
          next.reject(err as Error);
        }
      }
    }
    this.running = false;
    for (const resolve of this.drained.splice(0)) resolve();
  }

  private async switchTo(firstSeq: number): Promise<void> {
    if (firstSeq === this.segment.firstSeq) return;
    const old = this.segment;
    this.segment = await OpenSegment.open(this.dir, firstSeq, 0);
    await old.close();
  }

  private fail(err: Error, inFlight: Pending[]): void {
    this.failure = new Error(`journal write failed (${err.message}); the store accepts no more writes`, { cause: err });
    for (const p of [...inFlight, ...this.queue.splice(0)]) p.reject(this.failure);
  }
}
