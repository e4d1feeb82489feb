// Runs a snapshot build off the event loop: in a worker thread when the compiled worker is there
// (the daemon as built and installed), in this thread otherwise (the test runner, which loads the
// TypeScript sources and has no compiled worker beside them).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { buildSnapshot, type SnapshotJob } from './snapshot-build.js';

export type SnapshotRunner = (job: SnapshotJob) => Promise<void>;

const WORKER_URL = new URL('./snapshot-worker.js', import.meta.url);

export function defaultSnapshotRunner(): SnapshotRunner {
  return existsSync(fileURLToPath(WORKER_URL)) ? inWorker : buildSnapshot;
}

export function inWorker(job: SnapshotJob): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, { workerData: job });
    let failed: Error | null = null;
    worker.once('error', (err) => (failed = err));
    worker.once('exit', (code) => {
      if (failed) reject(failed);
      else if (code !== 0) reject(new Error(`the snapshot worker exited with code ${code}`));
      else resolve();
    });
  });
}
