// The daemon's log destination on a descriptor whose writes fail for good (EBADF here; EIO is what a
// closed terminal gives): logging there stops, and the flush at exit returns. Run in a child
// process: a flush that retried for ever would block the thread it runs on.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** the built module (npm test builds before it runs the tests) */
const LOGGER = new URL('../../dist/daemon/logger.js', import.meta.url).href;

function runChild(script: string) {
  return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    encoding: 'utf8',
    timeout: 15_000,
  });
}

describe('logDestination', () => {
  it('stops writing after a write fails for good; the flush at exit and the exit itself return', () => {
    const r = runChild(`
      import { openSync } from 'node:fs';
      const { logDestination, createLogger } = await import(${JSON.stringify(LOGGER)});
      const fd = openSync('/dev/null', 'r'); // open for reading: every write fails with EBADF
      const dest = logDestination(fd);
      let failed;
      dest.on('error', (err) => (failed = err.code));
      dest.write('first line\\n');
      setTimeout(() => {
        dest.write('second line\\n');
        dest.flushSync();
        process.stdout.write('write failed: ' + failed + '; flushed\\n');
        // pino's exit hook flushes the destination once more on the way out
        createLogger('info');
      }, 200);
    `);
    expect(r.error).toBeUndefined(); // not killed by the timeout
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('write failed: EBADF; flushed\n');
    expect(r.status).toBe(0);
  });
});
