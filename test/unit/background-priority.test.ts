// Snapshot builds run at background priority (daemon/store/background-priority.ts): on Linux the
// worker thread that calls it drops to nice 19 and the daemon's event loop keeps its priority.
// The worker is the compiled module (npm test builds first), as the daemon runs it.
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE } from '../../daemon/store/background-priority.js';
import { REPO_ROOT } from '../helpers/cli.js';

const COMPILED = pathToFileURL(join(REPO_ROOT, 'dist', 'daemon', 'store', 'background-priority.js')).href;

/** What a worker thread that called runInBackground() reports of its own priority. */
function priorityInWorker(): Promise<{ lowered: boolean; priority: number }> {
  const code = `
    import { getPriority } from 'node:os';
    import { parentPort } from 'node:worker_threads';
    const { runInBackground } = await import(${JSON.stringify(COMPILED)});
    const lowered = runInBackground();
    parentPort.postMessage({ lowered, priority: getPriority() });
  `;
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
    worker.once('message', (m) => resolve(m as { lowered: boolean; priority: number }));
    worker.once('error', reject);
  });
}

describe('background priority', () => {
  it('lowers the worker thread that asks where threads have their own nice value (Linux), and never the daemon thread', async () => {
    const before = getPriority();
    const seen = await priorityInWorker();
    // Elsewhere the nice value is the whole process's: lowering it would slow the daemon too.
    expect(seen).toEqual(process.platform === 'linux' ? { lowered: true, priority: BACKGROUND_NICE } : { lowered: false, priority: before });
    expect(getPriority()).toBe(before);
  });
});
