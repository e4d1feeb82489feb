// The compacted snapshot, DIR/snapshot.json, read and written through lowdb with an adapter that
// never leaves a half-written file behind: temp file, fsync, rename, fsync the folder. Rows are
// serialised in bounded chunks with a write between them, so a large snapshot does not hold the
// event loop for its whole length.
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { fsyncDir, writeAll } from './fs-sync.js';
import type { RawTables } from './migrations.js';
import { NotSnapshotLines, readSnapshotLines } from './snapshot-lines.js';
import { expandRunEntries, PACK_CODECS } from './packed-rows.js';
import { TABLE_SPECS, type TableName } from './tables.js';

export interface SnapshotData {
  schema_version: number;
  /** the journal sequence number the tables include, all lines up to and including it */
  seq: number;
  tables: RawTables;
}

/** The data folder holds something the store must not guess about; startup stops. */
export class StoreCorruptError extends Error {}

// Small enough that one chunk's JSON.stringify holds writes back by about a millisecond.
const CHUNK_CHARS = 256 * 1024;

/** Where a data folder keeps its snapshot. */
export const snapshotPathIn = (dataDir: string) => join(dataDir, 'snapshot.json');

/**
 * Snapshots larger than this are read a line at a time (see snapshot-lines.ts): a JS string
 * cannot hold much more than 512 MiB. Smaller ones are parsed whole, which is quicker.
 */
export const READ_BY_LINES_ABOVE_BYTES = 256 * 1024 * 1024;

/**
 * What is wrong with the first row that is not one (a hand edit, a damaged copy), or null: a row
 * is an object holding its table's key as a non-empty string. Checked at load, where a bad row
 * would otherwise stop startup with a TypeError that names neither the file nor the row.
 */
function firstBadRow(tables: Record<string, unknown[]>): string | null {
  for (const [name, rows] of Object.entries(tables)) {
    const key = Object.hasOwn(TABLE_SPECS, name) ? TABLE_SPECS[name as keyof typeof TABLE_SPECS].key : undefined;
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      if (row === null || typeof row !== 'object' || Array.isArray(row)) return `row ${i} of table ${name} is ${row === null ? 'null' : Array.isArray(row) ? 'an array' : `a ${typeof row}`}, not an object`;
      if (key === undefined) continue;
      const k = (row as Record<string, unknown>)[key];
      if (typeof k !== 'string' || k === '') return `row ${i} of table ${name} has no ${key} (its key)`;
    }
  }
  return null;
}

export class SnapshotFile implements Adapter<SnapshotData> {
  readonly tempPath: string;

  constructor(
    readonly path: string,
    private readonly readByLinesAboveBytes = READ_BY_LINES_ABOVE_BYTES,
  ) {
    this.tempPath = `${path}.tmp`;
  }

  async read(): Promise<SnapshotData | null> {
    let data: unknown;
    try {
      data = (await stat(this.path)).size > this.readByLinesAboveBytes ? await readSnapshotLines(this.path) : JSON.parse(await readFile(this.path, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if (!(err instanceof SyntaxError) && !(err instanceof NotSnapshotLines)) throw err;
      throw new StoreCorruptError(
        `snapshot ${this.path} is not valid JSON (${(err as Error).message}); the daemon will not start. ` +
          'The file is left untouched: restore it from a backup. (Moving it aside starts from the journal alone, which the ' +
          'daemon does only when the journal holds every record since the first.)',
      );
    }
    const snap = data as Partial<SnapshotData> | null;
    if (
      !snap ||
      typeof snap !== 'object' ||
      typeof snap.schema_version !== 'number' ||
      !Number.isInteger(snap.seq) ||
      (snap.seq as number) < 0 ||
      !snap.tables ||
      typeof snap.tables !== 'object' ||
      Object.values(snap.tables).some((rows) => !Array.isArray(rows))
    ) {
      throw new StoreCorruptError(
        `snapshot ${this.path} is not an svc snapshot (expected {schema_version, seq, tables}); the daemon will not start. ` +
          'The file is left untouched.',
      );
    }
    // (the tables whose rows may be packed: their snapshot may hold pack entries)
    for (const name of Object.keys(PACK_CODECS) as TableName[]) {
      const items = snap.tables[name];
      if (!items) continue;
      try {
        snap.tables[name] = expandRunEntries(name, items) as Record<string, unknown>[];
      } catch (err) {
        throw new StoreCorruptError(`snapshot ${this.path}: table ${name}: ${(err as Error).message}; the daemon will not start. The file is left untouched.`);
      }
    }
    const bad = firstBadRow(snap.tables);
    if (bad) {
      throw new StoreCorruptError(
        `snapshot ${this.path}: ${bad}; the daemon will not start. The file is left untouched: restore it from a backup.`,
      );
    }
    return snap as SnapshotData;
  }

  async write(data: SnapshotData): Promise<void> {
    try {
      await this.writeTemp(data);
    } catch (err) {
      // A half-written temp file (a full disk, say) would only take the room the journal needs.
      await rm(this.tempPath, { force: true }).catch(() => undefined);
      throw err;
    }
    await rename(this.tempPath, this.path);
    await fsyncDir(dirname(this.path));
  }

  private async writeTemp(data: SnapshotData): Promise<void> {
    const handle = await open(this.tempPath, 'w', 0o600);
    try {
      let parts: string[] = [];
      let size = 0;
      const flush = async () => {
        await writeAll(handle, Buffer.from(parts.join(''), 'utf8'));
        parts = [];
        size = 0;
      };
      parts.push(`{"schema_version":${JSON.stringify(data.schema_version)},"seq":${JSON.stringify(data.seq)},"tables":{`);
      let firstTable = true;
      for (const [name, rows] of Object.entries(data.tables)) {
        parts.push(`${firstTable ? '' : ','}\n${JSON.stringify(name)}:[`);
        firstTable = false;
        for (let i = 0; i < rows.length; i++) {
          const line = `${i === 0 ? '' : ','}\n${JSON.stringify(rows[i])}`;
          parts.push(line);
          size += line.length;
          if (size >= CHUNK_CHARS) await flush();
        }
        parts.push(']');
      }
      parts.push('\n}}\n');
      await flush();
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /** A temp file left by a crash mid-write holds nothing the real snapshot and journal lack. */
  async removeLeftovers(): Promise<void> {
    await rm(this.tempPath, { force: true });
  }
}
