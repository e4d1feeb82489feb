// Worker thread entry: builds one snapshot (snapshot-build.ts) and exits; an error ends the
// worker with it, which the store reports as a failed compaction. It runs at background priority,
// so requests keep the CPU while it works.
import { workerData } from 'node:worker_threads';
import { runInBackground } from './background-priority.js';
import { buildSnapshot, type SnapshotJob } from './snapshot-build.js';

runInBackground();
await buildSnapshot(workerData as SnapshotJob);
