// Builds the next snapshot from files alone: the last snapshot, plus the journal records after
// it up to `seq`, less what retention drops at `cutoff`. The daemon's own state at `seq` is the
// same rows (it is that snapshot and those records), so the result is what dumping memory would
// write, without the event loop serialising every row. Runs in a worker thread (snapshot-worker.ts).
import { listSegments, readSegment } from './journal-file.js';
import { MemoryTables, type TablesData } from './memory-tables.js';
import type { RawTables } from './migrations.js';
import { applyRetention } from './retention.js';
import { SnapshotFile, snapshotPathIn, StoreCorruptError } from './snapshot-file.js';

export interface SnapshotJob {
  dataDir: string;
  schemaVersion: number;
  /** the journal record the new snapshot includes, all before it too */
  seq: number;
  /** retention cutoff (ISO), the one the daemon applied to its memory at `seq` */
  cutoff: string;
}

export async function buildSnapshot(job: SnapshotJob): Promise<void> {
  const file = new SnapshotFile(snapshotPathIn(job.dataDir));
  const previous = await file.read();
  const mem = new MemoryTables();
  if (previous) mem.load(previous.tables as unknown as Partial<TablesData>);
  let at = previous?.seq ?? 0;
  for (const segment of await listSegments(job.dataDir)) {
    if (segment.firstSeq > job.seq) break;
    await readSegment(segment.path, (rec, line) => {
      if (rec.seq <= at || rec.seq > job.seq) return;
      if (rec.seq !== at + 1) throw new StoreCorruptError(`journal ${segment.path} line ${line} has seq ${rec.seq} where ${at + 1} was expected`);
      mem.apply(rec.m);
      at = rec.seq;
    });
  }
  if (at !== job.seq) throw new StoreCorruptError(`the journal ends at seq ${at}, before the snapshot's seq ${job.seq}`);
  applyRetention(mem, new Date(job.cutoff));
  await file.write({ schema_version: job.schemaVersion, seq: job.seq, tables: mem.snapshotTables() as unknown as RawTables });
}
