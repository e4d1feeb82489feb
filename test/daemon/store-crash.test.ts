// Crash safety: a child process writes as fast as it can (many writes in flight, compactions
// happening) and prints each write once it resolved; it is killed with SIGKILL mid-stream. On
// reopening, every acknowledged write must be there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { openStore } from '../../daemon/store/index.js';
import { captureLogger } from './store-child/logger.js';
import { runChild, type Child } from './store-child/spawn.js';

const dirs: string[] = [];
const children: Child[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await c.exited;
  }
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

test('every write acknowledged before a SIGKILL is present after reopening, across repeated crashes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-crash-'));
  dirs.push(dir);
  const acked: string[] = [];

  for (const [round, killAfter] of [150, 400, 250].entries()) {
    // A small threshold makes compactions (rotate, snapshot, delete) part of what gets interrupted.
    const child = runChild('crash-writer.ts', [dir, '8', String(32 * 1024)]);
    children.push(child);
    await child.waitFor(/^ready$/);
    const countAcks = () => child.lines.filter((l) => l.startsWith('ack ')).length;
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (countAcks() >= killAfter) {
          clearInterval(poll);
          resolve();
        }
      }, 5);
    });
    child.proc.kill('SIGKILL');
    expect((await child.exited).signal).toBe('SIGKILL');
    const ackedNow = child.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
    expect(ackedNow.length).toBeGreaterThanOrEqual(killAfter);
    acked.push(...ackedNow);

    const { logger } = captureLogger();
    const store = await openStore({ dataDir: dir, logger });
    const missing: string[] = [];
    await store.read(async (tx) => {
      for (const id of acked) {
        if (!(await tx.get('sessions', id)) || !(await tx.get('messages', `m-${id}`))) missing.push(id);
      }
    });
    expect(missing).toEqual([]);
    // The first child compacted on its own before dying (its snapshot is what this open loaded).
    if (round === 0) expect(store.stats().snapshotSeq).toBeGreaterThan(0);
    // Closing writes a snapshot in between crashes, as a daemon restart would.
    await store.close();
  }
});
