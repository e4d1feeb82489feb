// The JSON journal store: all state in memory, every committed transaction appended to the
// journal and fsynced before write() resolves, and a compacted snapshot written now and then so
// startup replays only a bounded tail. The cost of a write follows the size of the change: only
// the transaction's mutations are serialised, and group commit shares one fsync among all the
// writes waiting for it.
import { stat } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Low } from 'lowdb';
import { makeFolder } from '../make-folder.js';
import { JournalWriter, journalLine, listSegments, readSegment, truncateSegment } from './journal-file.js';
import type { StoreLogger } from './logger.js';
import { MemoryTables, OverlayTx, type Mutation, type TablesData } from './memory-tables.js';
import { DROPPED_TABLES, migrate, SCHEMA_VERSION, type Migration, type RawTables } from './migrations.js';
import { Mutex } from './mutex.js';
import { applyRetention, type RetentionResult } from './retention.js';
import { SnapshotFile, snapshotPathIn, StoreCorruptError, type SnapshotData } from './snapshot-file.js';
import { defaultSnapshotRunner, type SnapshotRunner } from './snapshot-runner.js';
import type { ClaimedLeases, IndexQuery, LeaseClaim, PageQuery, ReadTx, Store, StoreTopic, WriteOptions, WriteTx } from './store.js';
import { claimDueIn } from './claim-due.js';
import { LocalTopics } from './topics.js';
import { indexedPart, pageOfList } from './page-of-list.js';
import { TABLE_SPECS, type TableName, type Tables } from './tables.js';

export interface OpenStoreOptions {
  dataDir: string;
  logger: StoreLogger;
  /**
   * journal bytes since the last snapshot that trigger a compaction (default 64 MiB), or the size
   * of that snapshot when it is larger: rewriting the snapshot then costs no more than the writes
   * it folds in, however large the data grows, and a restart replays at most that much journal
   */
  compactThresholdBytes?: number;
  /** events and finished sessions older than this are dropped at compaction (default 30) */
  retentionDays?: number;
  now?: () => Date;
  /** for tests of the migration step; defaults to the real list */
  migrations?: readonly Migration[];
  /** how compactions build the snapshot (default: a worker thread, see snapshot-runner.ts) */
  snapshotRunner?: SnapshotRunner;
  /**
   * how often retention runs on its own (default hourly): a quiet daemon that never fills the
   * journal or stops would otherwise keep data past `retentionDays`
   */
  retentionIntervalMs?: number;
}

export interface StoreStats {
  /** sequence number of the last committed transaction */
  seq: number;
  /** sequence number the snapshot on disk covers */
  snapshotSeq: number;
  /** journal bytes written since that snapshot */
  journalBytes: number;
  /** size of that snapshot file */
  snapshotBytes: number;
  /** committed transactions that reached the journal in this process */
  commits: number;
  /** synced journal writes in this process (fewer than commits under group commit) */
  syncs: number;
  compactions: number;
  /** whether a compaction is under way (or queued) right now */
  compacting: boolean;
  /** how long the last compaction held writes back while it captured the state */
  lastCaptureMs: number | null;
}

const DEFAULT_COMPACT_BYTES = 64 * 1024 * 1024;
const DEFAULT_RETENTION_DAYS = 30;
const DEFAULT_RETENTION_INTERVAL_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;
/** after a failed background compaction, wait this long before trying again */
const COMPACT_RETRY_MS = 30_000;

export class StoreClosedError extends Error {}

class MemoryReadTx implements ReadTx {
  constructor(private readonly mem: MemoryTables) {}

  async get<T extends TableName>(table: T, key: string): Promise<Tables[T] | undefined> {
    return this.mem.get(table, key);
  }

  async getMany<T extends TableName>(table: T, keys: readonly string[]): Promise<(Tables[T] | undefined)[]> {
    const rows = this.mem.table(table);
    return keys.map((k) => rows.get(k) as Tables[T] | undefined);
  }

  async list<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<Tables[T][]> {
    return this.mem.list(table, where);
  }

  async count<T extends TableName>(table: T, where?: IndexQuery<T>): Promise<number> {
    if (!where || Object.keys(where).length === 0) return this.mem.table(table).size;
    return this.mem.list(table, where).length;
  }

  async page<T extends TableName>(table: T, query: PageQuery<T>): Promise<Tables[T][]> {
    return pageOfList(this.mem.list(table, indexedPart(query.where) as IndexQuery<T>), TABLE_SPECS[table].key as keyof Tables[T], query);
  }
}

/** Refuses a transaction whose mutations could not be replayed, before any of it is applied. */
function checkMutations(mutations: readonly Mutation[]): void {
  for (const m of mutations) {
    if (!Object.hasOwn(TABLE_SPECS, m[1])) throw new Error(`unknown table ${String(m[1])}`);
    if (m[0] === 'put' || m[0] === 'set') {
      const key = m[2]?.[TABLE_SPECS[m[1]].key];
      if (typeof key !== 'string' || key === '') throw new Error(`${m[1]} row without a string ${TABLE_SPECS[m[1]].key}`);
    } else if (m[0] !== 'del') {
      throw new Error(`unknown mutation ${String(m[0])}`);
    } else if (typeof m[2] !== 'string') {
      throw new Error(`${m[1]} delete without a key`);
    }
  }
}

export class JournalStore implements Store {
  readonly kind = 'file' as const;
  private readonly mutex = new Mutex();
  private readonly readTx: MemoryReadTx;
  private readonly thresholdBytes: number;
  private readonly retentionMs: number;
  private readonly now: () => Date;
  private readonly schemaVersion: number;
  private readonly buildSnapshot: SnapshotRunner;
  private journalBytes: number;
  private commits = 0;
  private compactions = 0;
  private lastCaptureMs: number | null = null;
  private compaction: Promise<void> | null = null;
  private compactRetryAt = 0;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | null = null;
  private failureLogged = false;
  /** set by refuseWrites(): the store takes no more writes, though what it holds is on disk */
  private refusal: Error | null = null;
  private readonly retentionTimer: NodeJS.Timeout;
  private readonly topics = new LocalTopics();

  constructor(
    private readonly mem: MemoryTables,
    private readonly journal: JournalWriter,
    private readonly dataDir: string,
    private readonly logger: StoreLogger,
    private seq: number,
    private snapshotSeq: number,
    journalBytes: number,
    private snapshotBytes: number,
    opts: OpenStoreOptions,
  ) {
    this.readTx = new MemoryReadTx(mem);
    this.journalBytes = journalBytes;
    this.thresholdBytes = opts.compactThresholdBytes ?? DEFAULT_COMPACT_BYTES;
    this.retentionMs = (opts.retentionDays ?? DEFAULT_RETENTION_DAYS) * DAY_MS;
    this.now = opts.now ?? (() => new Date());
    this.schemaVersion = opts.migrations ? opts.migrations.length + 1 : SCHEMA_VERSION;
    this.buildSnapshot = opts.snapshotRunner ?? defaultSnapshotRunner();
    // Retention runs at each compaction; this pass writes a snapshot only when data has aged out.
    this.retentionTimer = setInterval(() => {
      if (this.state !== 'open' || this.compaction || this.failure()) return;
      this.scheduleCompaction({ onlyIfPruned: true }).catch((err: Error) => this.logger.error({ err }, 'scheduled retention pass failed; will retry'));
    }, opts.retentionIntervalMs ?? DEFAULT_RETENTION_INTERVAL_MS);
    this.retentionTimer.unref();
  }

  async read<R>(fn: (tx: ReadTx) => Promise<R> | R): Promise<R> {
    if (this.state === 'closed') throw new StoreClosedError('the store is closed');
    // A write is applied in memory before its journal line is on disk: once a journal write has
    // failed, memory may hold a write that was refused, so nothing is read from it any more.
    if (this.journal.failed) throw this.journal.failed;
    return fn(this.readTx);
  }

  async health(): Promise<Error | null> {
    return this.failure();
  }

  failure(): Error | null {
    return this.journal.failed ?? this.refusal;
  }

  /** Takes no more writes from now on (the data folder lock was lost: another process may write). */
  refuseWrites(reason: Error): void {
    this.refusal ??= reason;
  }

  async write<R>(fn: (tx: WriteTx) => Promise<R> | R, opts: WriteOptions = {}): Promise<R> {
    this.assertWritable(this.state !== 'open');
    const release = await this.mutex.lock();
    let durable: Promise<void> | undefined;
    let result: R;
    try {
      this.assertWritable(this.state === 'closed');
      const tx = new OverlayTx(this.mem);
      result = await fn(tx);
      if (tx.mutations.length > 0) durable = this.commit(tx);
    } finally {
      // The next transaction may run while this one waits for its fsync.
      release();
    }
    if (durable) {
      const logged = durable.catch((err: unknown) => {
        if (!this.failureLogged) {
          this.failureLogged = true;
          this.logger.error({ err }, 'journal write failed; the store refuses further writes until the daemon restarts');
        }
        throw err;
      });
      if (opts.wait === 'applied') logged.catch(() => undefined);
      else await logged;
    }
    return result;
  }

  compact(): Promise<void> {
    return this.scheduleCompaction();
  }

  claimDue(keys: readonly string[], claim: LeaseClaim): Promise<ClaimedLeases> {
    return this.write((tx) => claimDueIn(tx, keys, claim));
  }

  // One daemon holds the data folder: its own listeners are all there are.
  async publish(topic: StoreTopic): Promise<void> {
    this.topics.emit(topic);
  }

  subscribe(topic: StoreTopic, listener: () => void): () => void {
    return this.topics.subscribe(topic, listener);
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Counters for tests and benchmarks. */
  stats(): StoreStats {
    return {
      seq: this.seq,
      snapshotSeq: this.snapshotSeq,
      journalBytes: this.journalBytes,
      snapshotBytes: this.snapshotBytes,
      commits: this.commits,
      syncs: this.journal.syncs,
      compactions: this.compactions,
      compacting: this.compaction !== null,
      lastCaptureMs: this.lastCaptureMs,
    };
  }

  private get snapshotPath(): string {
    return snapshotPathIn(this.dataDir);
  }

  private assertWritable(closed: boolean): void {
    if (closed) throw new StoreClosedError('the store is closed');
    const failure = this.failure();
    if (failure) throw failure;
  }

  /** Runs under the write mutex: serialise, apply, queue. Never awaits. */
  private commit(tx: OverlayTx): Promise<void> {
    const mutations = tx.mutations;
    checkMutations(mutations);
    const seq = this.seq + 1;
    // Encoded once here: its length is the byte count, and the writer only concatenates.
    const line = Buffer.from(journalLine(seq, mutations, tx.replaced, tx.patches), 'utf8');
    this.seq = seq;
    this.mem.apply(mutations, tx.replaced);
    this.commits++;
    this.journalBytes += line.length;
    const durable = this.journal.append(line);
    if (this.journalBytes >= Math.max(this.thresholdBytes, this.snapshotBytes) && !this.compaction && this.state === 'open' && Date.now() >= this.compactRetryAt) {
      this.scheduleCompaction().catch((err: Error) => {
        this.compactRetryAt = Date.now() + COMPACT_RETRY_MS;
        this.logger.error({ err }, 'store compaction failed; the journal keeps every write, will retry');
      });
    }
    return durable;
  }

  /** Compactions run one after another; an explicit one waits for a running one, then runs. */
  private scheduleCompaction(opts: { onlyIfPruned?: boolean } = {}): Promise<void> {
    const run = (this.compaction ?? Promise.resolve()).catch(() => undefined).then(() => this.runCompaction(opts.onlyIfPruned === true));
    const tracked = run.finally(() => {
      if (this.compaction === tracked) this.compaction = null;
    });
    this.compaction = tracked;
    return tracked;
  }

  /** `onlyIfPruned`: a retention pass, which writes nothing when nothing aged out. */
  private async runCompaction(onlyIfPruned = false): Promise<void> {
    const started = Date.now();
    let seq: number;
    let bytesAtCapture: number;
    let cutoff: Date;
    let pruned: RetentionResult;
    let rotated: Promise<void>;
    let captureMs: number;
    const release = await this.mutex.lock();
    const captureStarted = performance.now();
    try {
      // (without the lock another daemon may own the folder: a snapshot and the segments it
      // removes would be written over what that daemon journals, whose writes were lost that way)
      const failed = this.failure();
      if (failed) throw failed;
      // The snapshot is of the state at `seq`, pruned at `cutoff` as memory is here; it is built
      // from the files (the last snapshot and the journal up to `seq`) while writes go on.
      cutoff = new Date(this.now().getTime() - this.retentionMs);
      pruned = applyRetention(this.mem, cutoff);
      const prunedAny = pruned.events + pruned.deliveries + pruned.sessions + pruned.messages > 0;
      if (!prunedAny && (onlyIfPruned || this.seq === this.snapshotSeq)) return;
      seq = this.seq;
      bytesAtCapture = this.journalBytes;
      rotated = this.journal.rotate(seq + 1);
    } finally {
      captureMs = performance.now() - captureStarted;
      release();
    }
    // Every record up to `seq` is on disk once the journal has moved on to the next segment.
    await rotated;
    await this.buildSnapshot({ dataDir: this.dataDir, schemaVersion: this.schemaVersion, seq, cutoff: cutoff.toISOString() });
    this.snapshotBytes = await fileSize(this.snapshotPath);
    const removed = await this.journal.removeSegmentsBefore(seq + 1);
    this.snapshotSeq = seq;
    this.journalBytes -= bytesAtCapture;
    this.compactions++;
    this.lastCaptureMs = captureMs;
    this.logger.info(
      { seq, ms: Date.now() - started, captureMs: Math.round(captureMs * 10) / 10, pruned, removedSegments: removed },
      'store snapshot written',
    );
  }

  private async shutdown(): Promise<void> {
    this.state = 'closing';
    clearInterval(this.retentionTimer);
    try {
      // (a store that lost its lock or failed a journal write leaves the files as they are)
      if (!this.failure()) await this.scheduleCompaction();
    } catch (err) {
      this.logger.error({ err }, 'final store snapshot failed; the journal keeps every write');
    }
    const release = await this.mutex.lock();
    this.state = 'closed';
    release();
    await this.journal.close();
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** A journal line of an older schema, less its mutations of tables a later version removed. */
function withoutDroppedTables(mutations: Mutation[], version: number): Mutation[] {
  return mutations.filter((m) => {
    const droppedIn = DROPPED_TABLES.get(m[1]);
    return droppedIn === undefined || version >= droppedIn;
  });
}

function wrapReplayError(err: unknown, path: string, line: number): Error {
  if (err instanceof StoreCorruptError) return err;
  return new StoreCorruptError(`journal ${path} line ${line} cannot be replayed (${(err as Error).message}); the daemon will not start.`);
}

/**
 * Opens the store in `dataDir` (created if missing): loads the snapshot, replays the journal after
 * it, and is ready for writes. The caller holds the data-folder lock (see lock.ts) first: nothing
 * here guards against a second process.
 */
export async function openStore(opts: OpenStoreOptions): Promise<JournalStore> {
  const dir = opts.dataDir;
  const logger = opts.logger;
  const steps = opts.migrations;
  const target = steps ? steps.length + 1 : SCHEMA_VERSION;
  await makeFolder(dir, 0o700);

  const snapshotFile = new SnapshotFile(snapshotPathIn(dir));
  const snapshot = new Low<SnapshotData>(snapshotFile, { schema_version: target, seq: 0, tables: {} });
  const snapData = await snapshotFile.read();
  const version = snapData?.schema_version ?? target;
  const snapshotSeq = snapData?.seq ?? 0;
  // Refuse a newer or nonsensical version before touching anything else.
  if (version > target || version < 1 || !Number.isInteger(version)) migrate({}, version, snapshotFile.path, steps);

  let mem = new MemoryTables();
  if (snapData) mem.load(snapData.tables as unknown as Partial<TablesData>);

  const segments = await listSegments(dir);
  // Without a snapshot the journal must start at the first record; one that starts later was
  // preceded by a snapshot that is gone (moved aside, lost), and starting would lose its data.
  if (!snapData && segments.length > 0 && segments[0].firstSeq > 1) {
    throw new StoreCorruptError(
      `${snapshotFile.path} is missing, but the journal starts at record ${segments[0].firstSeq} (${segments[0].path}): ` +
        `records 1 to ${segments[0].firstSeq - 1} were in that snapshot. Put it back (or restore it from a backup); ` +
        'the daemon will not start without it. The files are left untouched.',
    );
  }
  let seq = snapshotSeq;
  let journalBytes = 0;
  let replayed = 0;
  /** the newest record in the journal, covered by the snapshot or not (0: none) */
  let lastRecord = 0;
  /** where the newest segment's records end: appends continue there, over its unused zeros */
  let lastSegmentEnd = 0;
  for (let i = 0; i < segments.length; i++) {
    const { path } = segments[i];
    const next = segments[i + 1];
    const result = await readSegment(path, (rec, line) => {
      lastRecord = rec.seq;
      if (rec.seq <= snapshotSeq) return;
      if (rec.seq !== seq + 1) {
        throw new StoreCorruptError(
          `journal ${path} line ${line} has seq ${rec.seq} where ${seq + 1} was expected: records are missing ` +
            `(the snapshot covers seq ${snapshotSeq}); the daemon will not start.`,
        );
      }
      try {
        const mutations = version < target ? withoutDroppedTables(rec.m, version) : rec.m;
        checkMutations(mutations);
        mem.apply(mutations);
      } catch (err) {
        throw wrapReplayError(err, path, line);
      }
      seq = rec.seq;
      replayed++;
    });
    if (result.torn) {
      if (next) {
        throw new StoreCorruptError(
          `journal ${path} line ${result.torn.line} is damaged but a newer journal segment follows it, so it is not ` +
            'a torn last append: the daemon will not start. The files are left untouched.',
        );
      }
      logger.warn(
        { file: path, line: result.torn.line, bytes: result.torn.bytes },
        'dropping a torn last journal line (a crash mid-append; that write was never acknowledged)',
      );
      await truncateSegment(path, result.goodBytes);
    }
    // Segments wholly covered by the snapshot are deleted below and do not count.
    if (!next || next.firstSeq > snapshotSeq + 1) journalBytes += result.goodBytes;
    if (!next) lastSegmentEnd = result.goodBytes;
  }
  // A compaction moves the journal past the snapshot's seq before it writes the snapshot, and
  // removes only segments the snapshot covers: a journal whose newest record is older than the
  // snapshot did not come with it (a snapshot from another folder, or a journal cut back), and
  // replaying nothing of it would drop its records, then a compaction delete them.
  if (lastRecord > 0 && lastRecord < snapshotSeq) {
    throw new StoreCorruptError(
      `${snapshotFile.path} covers records up to ${snapshotSeq}, but the journal ends at record ${lastRecord}: the snapshot is ` +
        'not of this journal (copied from another data folder?) or the journal lost its newest segment. The daemon will not ' +
        'start; the files are left untouched.',
    );
  }
  await snapshotFile.removeLeftovers();

  let migrated = false;
  if (version < target) {
    const tables = migrate(mem.dump() as unknown as RawTables, version, snapshotFile.path, steps);
    mem = new MemoryTables();
    mem.load(tables as unknown as Partial<TablesData>);
    migrated = true;
    logger.info({ from: version, to: target }, 'store data migrated');
  }

  // A fresh folder gets a snapshot at once so the journal's schema version is never a guess;
  // migrated data gets one so no journal segment mixes versions.
  let coveredSeq = snapshotSeq;
  let firstSeq = segments.at(-1)?.firstSeq ?? snapshotSeq + 1;
  if (!snapData || migrated) {
    snapshot.data = { schema_version: target, seq, tables: mem.snapshotTables() as unknown as RawTables };
    await snapshot.write();
    snapshot.data = { schema_version: target, seq, tables: {} };
    coveredSeq = seq;
    if (firstSeq <= seq) firstSeq = seq + 1;
    journalBytes = 0;
  }

  const journal = await JournalWriter.open(dir, firstSeq, firstSeq === segments.at(-1)?.firstSeq ? lastSegmentEnd : 0);
  try {
    await journal.removeSegmentsBefore(coveredSeq + 1);
  } catch (err) {
    await journal.close();
    throw err;
  }
  logger.info({ seq, snapshotSeq: coveredSeq, replayed, segments: segments.length }, 'store opened');
  return new JournalStore(mem, journal, dir, logger, seq, coveredSeq, journalBytes, await fileSize(snapshotFile.path), opts);
}
