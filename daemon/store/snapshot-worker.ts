// Worker thread entry: builds one snapshot (snapshot-build.ts) and exits; an error ends the
// worker with it, which the store reports as a failed compaction.
import { workerData } from 'node:worker_threads';
import { buildSnapshot, type SnapshotJob } from './snapshot-build.js';

await buildSnapshot(workerData as SnapshotJob);
