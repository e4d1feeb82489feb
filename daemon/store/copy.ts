// `svc daemon copy` (CONTRACT §11): a whole store into an empty one, between any two backends.
// Rows are copied as they are (keys, timestamps, counters, sealed values), table by table in the
// order lists read them, in batches; the counts are checked before the copy is kept. Both ends are
// held while it runs: a folder by its data-folder lock (a running daemon's refuses the copy, and
// no daemon starts on either folder meanwhile), a database by one transaction on each side.
import { readdir, realpath, rm, rmdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { makeFolder } from '../make-folder.js';
import { listSegments } from './journal-file.js';
import { openStore, type JournalStore } from './journal-store.js';
import { acquireDataDirLock, DataDirLockedError } from './lock.js';
import type { StoreLogger } from './logger.js';
import { snapshotPathIn } from './snapshot-file.js';
import { StoreUnavailableError, type StoreKind } from './store.js';
import { isPostgresUrl, redactUrl } from './store-url.js';
import { TABLE_NAMES, type TableName, type Tables } from './tables.js';

/**
 * The tables a copy carries: all but `instances`, the daemons running on a store, and
 * `session_turns`, the turns those daemons run, which are not its data (sessions they claimed are
 * taken up by the first daemon to start on the copy, their turns in flight counted as dead).
 */
export const COPIED_TABLES: readonly TableName[] = TABLE_NAMES.filter((t) => t !== 'instances' && t !== 'session_turns');

/** Why a copy did not start; nothing was written anywhere. */
export type CopyRefusal = 'same-store' | 'source-missing' | 'source-in-use' | 'target-in-use' | 'target-not-empty';

export class CopyRefusedError extends Error {
  constructor(
    readonly reason: CopyRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'CopyRefusedError';
  }
}

/** The target does not hold what was read from the source; the copy was undone. */
export class CopyCountMismatchError extends Error {
  constructor(readonly mismatches: { table: TableName; source: number; copied: number; target: number }[]) {
    super(
      `the copy was undone: the target's counts do not match the source's (${mismatches
        .map((m) => `${m.table}: source ${m.source}, copied ${m.copied}, target ${m.target}`)
        .join('; ')})`,
    );
    this.name = 'CopyCountMismatchError';
  }
}

/** A PostgreSQL end could not be reached (or logged in to). */
export class StoreUnreachableError extends StoreUnavailableError {
  constructor(
    /** the URL without its password */
    readonly store: string,
    readonly reason: string,
  ) {
    super(`cannot reach the PostgreSQL database at ${store}: ${reason}`);
    this.name = 'StoreUnreachableError';
  }
}

export interface CopyOptions {
  /** a data folder, or a postgres:// URL */
  from: string;
  to: string;
  logger: StoreLogger;
  /** told after each table */
  onTable?: (table: TableName, rows: number) => void;
  /** rows per batch read and written (default 1000) */
  batchRows?: number;
}

export interface StoreEnd {
  kind: StoreKind;
  /** the folder (absolute) or the URL without its password */
  store: string;
}

export interface CopyResult {
  from: StoreEnd;
  to: StoreEnd;
  /** rows of each table, as counted in both stores */
  tables: Record<TableName, number>;
  rows: number;
  /**
   * The master key's check value (CONTRACT §11) on a PostgreSQL target: `copied` from a PostgreSQL
   * source, or `first_start` (recorded by the first daemon that starts on the target, with the key
   * it is given). `not_used` on a folder, where the key is checked against the env var values.
   */
  master_key_check: 'copied' | 'first_start' | 'not_used';
}

/** What the copy reads: every row of each table in list order, from one unchanging state. */
export interface CopySource {
  readonly end: StoreEnd;
  count(table: TableName): Promise<number>;
  /** the table's rows in the order lists read them (insertion order), `batchRows` at most at a time */
  batches<T extends TableName>(table: T, batchRows: number): AsyncIterable<Tables[T][]>;
  /** the recorded master key check value (PostgreSQL), or null */
  masterKeyCheck(): Promise<string | null>;
  close(): Promise<void>;
}

/** What the copy writes: appended rows keep the order they are given in. */
export interface CopyTarget {
  readonly end: StoreEnd;
  count(table: TableName): Promise<number>;
  append<T extends TableName>(table: T, rows: readonly Tables[T][]): Promise<void>;
  /** null where the store keeps none (a folder) */
  masterKeyCheck(): Promise<string | null>;
  recordMasterKeyCheck(value: string): Promise<void>;
  /** keeps the copy: durable once this resolves */
  commit(): Promise<void>;
  /** leaves the target as empty as it was found */
  abandon(): Promise<void>;
}

const DEFAULT_BATCH_ROWS = 1000;
/**
 * Retention while the copy holds a store: none. A copy keeps every row it reads, and the target's
 * first daemon applies its own retention setting.
 */
export const KEEP_EVERYTHING_DAYS = 365_000;

export async function copyStore(opts: CopyOptions): Promise<CopyResult> {
  await refuseSameStore(opts.from, opts.to);
  const source = isPostgresUrl(opts.from) ? await (await import('./copy-postgres.js')).openPostgresSource(opts.from, opts.logger) : await openFileSource(opts.from, opts.logger);
  let target: CopyTarget;
  try {
    target = isPostgresUrl(opts.to) ? await (await import('./copy-postgres.js')).openPostgresTarget(opts.to, opts.logger) : await openFileTarget(opts.to, opts.logger);
  } catch (err) {
    await source.close().catch(() => undefined);
    throw err;
  }
  try {
    const result = await copyAll(source, target, opts);
    await target.commit();
    return result;
  } catch (err) {
    await target.abandon().catch((e: Error) => opts.logger.error({ err: { message: e.message } }, 'could not undo the partial copy'));
    throw err;
  } finally {
    // Held until the copy is kept: no daemon starts on the source meanwhile.
    await source.close();
  }
}

async function copyAll(source: CopySource, target: CopyTarget, opts: CopyOptions): Promise<CopyResult> {
  const sourceCheck = await source.masterKeyCheck();
  const targetCheck = await target.masterKeyCheck();
  if (targetCheck !== null && targetCheck !== sourceCheck) {
    throw new CopyRefusedError(
      'target-not-empty',
      sourceCheck === null
        ? `${target.end.store} already records a master key (a daemon has started on it), which may not be the one the source's env var values are sealed with: copy into a database no daemon has started on`
        : `${target.end.store} records another master key than ${source.end.store}: copy into a database no daemon has started on`,
    );
  }
  const batchRows = opts.batchRows ?? DEFAULT_BATCH_ROWS;
  const tables = {} as Record<TableName, number>;
  const mismatches: CopyCountMismatchError['mismatches'] = [];
  for (const table of COPIED_TABLES) {
    const expected = await source.count(table);
    let copied = 0;
    for await (const batch of source.batches(table, batchRows)) {
      await target.append(table, batch);
      copied += batch.length;
    }
    const stored = await target.count(table);
    if (copied !== expected || stored !== expected) mismatches.push({ table, source: expected, copied, target: stored });
    tables[table] = stored;
    opts.onTable?.(table, stored);
  }
  if (mismatches.length > 0) throw new CopyCountMismatchError(mismatches);
  let masterKeyCheck: CopyResult['master_key_check'] = 'not_used';
  if (target.end.kind === 'postgres') {
    masterKeyCheck = sourceCheck === null ? 'first_start' : 'copied';
    if (sourceCheck !== null && targetCheck === null) await target.recordMasterKeyCheck(sourceCheck);
  }
  return { from: source.end, to: target.end, tables, rows: Object.values(tables).reduce((a, b) => a + b, 0), master_key_check: masterKeyCheck };
}

async function refuseSameStore(from: string, to: string): Promise<void> {
  const same = isPostgresUrl(from) && isPostgresUrl(to) ? sameDatabase(from, to) : !isPostgresUrl(from) && !isPostgresUrl(to) && (await realPath(from)) === (await realPath(to));
  if (same) throw new CopyRefusedError('same-store', `--from and --to name the same store (${isPostgresUrl(from) ? redactUrl(from) : resolve(from)})`);
}

function sameDatabase(a: string, b: string): boolean {
  const key = (url: string) => {
    try {
      const u = new URL(url);
      return `${u.hostname.toLowerCase()}:${u.port || '5432'}${u.pathname || '/'}`;
    } catch {
      return url;
    }
  };
  return key(a) === key(b);
}

/** The folder's real path where it exists (a symlink names the folder it points to), else its absolute path. */
const realPath = (dir: string): Promise<string> => realpath(dir).catch(() => resolve(dir));

/** Whether the folder holds a JSON-file store: a snapshot or journal segments. */
async function holdsFileStore(dir: string): Promise<boolean> {
  if (await stat(snapshotPathIn(dir)).catch(() => null)) return true;
  return (await listSegments(dir)).length > 0;
}

const SILENT_INFO = (logger: StoreLogger): StoreLogger => ({ info: () => undefined, warn: logger.warn, error: logger.error });

/**
 * Locks `dir` for the copy. A lock lost meanwhile (its folder removed by hand) fails the copy at
 * its end, before anything is kept: a daemon may have started on the folder since.
 */
async function lockFolder(dir: string, inUse: 'source-in-use' | 'target-in-use', logger: StoreLogger) {
  let lost: Error | null = null;
  try {
    const release = await acquireDataDirLock(dir, { logger, onLost: (err) => (lost = err) });
    return {
      release,
      assertHeld() {
        if (lost) throw new Error(`the lock on ${dir} was lost during the copy (${lost.message}): another process may be using the folder`);
      },
    };
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    throw new CopyRefusedError(
      inUse,
      `${dir} is in use by a running svc daemon (pid ${err.pid ?? 'unknown'}): stop it, then copy` +
        (inUse === 'source-in-use' ? ' (what it writes during a copy would be missing from the copy)' : ''),
    );
  }
}

async function openFileSource(from: string, logger: StoreLogger): Promise<CopySource> {
  const dir = resolve(from);
  const st = await stat(dir).catch(() => null);
  if (!st?.isDirectory() || !(await holdsFileStore(dir))) {
    throw new CopyRefusedError('source-missing', `${dir} ${st?.isDirectory() ? 'holds no svc data (no snapshot.json or journal)' : st ? 'is not a folder' : 'does not exist'}`);
  }
  const lock = await lockFolder(dir, 'source-in-use', logger);
  // Opened at the first read, once the target has been found empty: a refused copy leaves the
  // source's files as they were (opening replays the journal, and closing writes a snapshot).
  let opening: Promise<JournalStore> | undefined;
  const store = () => (opening ??= openStore({ dataDir: dir, logger: SILENT_INFO(logger), retentionDays: KEEP_EVERYTHING_DAYS }));
  return {
    end: { kind: 'file', store: dir },
    count: async (table) => (await store()).read((tx) => tx.count(table)),
    async *batches(table, batchRows) {
      // The file store holds every row in memory already; a table's list is the only copy made.
      const rows = await (await store()).read((tx) => tx.list(table));
      for (let at = 0; at < rows.length; at += batchRows) yield rows.slice(at, at + batchRows);
      lock.assertHeld();
    },
    masterKeyCheck: async () => null,
    async close() {
      try {
        if (opening) await (await opening.catch(() => null))?.close();
      } finally {
        await lock.release();
      }
    },
  };
}

/** A journal line is one JS string: batches whose rows are large are written in smaller parts. */
const MAX_WRITE_CHARS = 16 * 1024 * 1024;

async function openFileTarget(to: string, logger: StoreLogger): Promise<CopyTarget> {
  const dir = resolve(to);
  const st = await stat(dir).catch(() => null);
  if (st && !st.isDirectory()) throw new CopyRefusedError('target-not-empty', `${dir} is a file, not a folder`);
  await makeFolder(dir, 0o700);
  const lock = await lockFolder(dir, 'target-in-use', logger).catch(async (err: unknown) => {
    if (!st) await rmdir(dir).catch(() => undefined);
    throw err;
  });
  let store: JournalStore;
  try {
    store = await openStore({ dataDir: dir, logger: SILENT_INFO(logger), retentionDays: KEEP_EVERYTHING_DAYS });
  } catch (err) {
    await lock.release();
    throw err;
  }
  const held = await store.read(async (tx) => {
    const counts = await Promise.all(COPIED_TABLES.map(async (t) => [t, await tx.count(t)] as const));
    return counts.filter(([, n]) => n > 0);
  });
  if (held.length > 0) {
    await store.close();
    await lock.release();
    throw new CopyRefusedError('target-not-empty', `${dir} is not empty (${held.map(([t, n]) => `${n} ${t}`).join(', ')}): copy into an empty or new folder`);
  }
  return {
    end: { kind: 'file', store: dir },
    count: (table) => store.read((tx) => tx.count(table)),
    async append(table, rows) {
      for (const part of partsBySize(rows, MAX_WRITE_CHARS)) {
        await store.write((tx) => {
          for (const row of part) tx.put(table, row);
        });
      }
    },
    masterKeyCheck: async () => null,
    recordMasterKeyCheck: async () => undefined,
    async commit() {
      lock.assertHeld();
      try {
        // Writes a snapshot of everything copied, so the first start reads it rather than replaying the journal.
        await store.close();
      } finally {
        await lock.release();
      }
    },
    async abandon() {
      try {
        await store.close();
        // The folder held no rows before: without its store files it is as empty again.
        for (const name of await readdir(dir)) {
          if (name === 'snapshot.json' || name === 'snapshot.json.tmp' || /^journal-\d{16}\.jsonl$/.test(name)) await rm(resolve(dir, name), { force: true });
        }
      } finally {
        await lock.release();
        if (!st) await rmdir(dir).catch(() => undefined);
      }
    },
  };
}

/** `rows` in consecutive parts whose JSON stays under `maxChars` (a larger row is a part of its own). */
function* partsBySize<T>(rows: readonly T[], maxChars: number): Generator<T[]> {
  let part: T[] = [];
  let chars = 0;
  for (const row of rows) {
    const size = JSON.stringify(row).length;
    if (part.length > 0 && chars + size > maxChars) {
      yield part;
      part = [];
      chars = 0;
    }
    part.push(row);
    chars += size;
  }
  if (part.length > 0) yield part;
}
