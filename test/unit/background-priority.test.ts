// Snapshot builds run at background priority (daemon/store/background-priority.ts): on Linux the
// worker thread that calls it drops to nice 19 and the daemon's event loop keeps its priority.
// The worker is the compiled module (npm test builds first), as the daemon runs it.
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICE, runInBackground } from '../../daemon/store/background-priority.js';
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
  it.runIf(process.platform === 'linux')('lowers the worker thread that asks, and not the daemon thread', async () => {
    const before = getPriority();
    const seen = await priorityInWorker();
    expect(seen).toEqual({ lowered: true, priority: BACKGROUND_NICE });
    expect(getPriority()).toBe(before);
  });

  it('changes nothing where the nice value is the whole process', () => {
    const before = getPriority();
    expect(runInBackground('darwin')).toBe(false);
    expect(runInBackground('win32')).toBe(false);
    expect(getPriority()).toBe(before);
  });
});
