// What svc does when its output cannot be written: a reader that left (`| head -1`) is no
// failure, but output lost to a full disk is, or a script would read exit 0 and an empty file.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SVC_BIN } from '../helpers/cli.js';

function run(stdout: 'pipe' | number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, '--help'], { stdio: ['ignore', stdout, 'pipe'] });
    // The reader leaves before svc writes anything.
    child.stdout?.destroy();
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('output that cannot be written', () => {
  it('lost to a full disk (/dev/full): exit 1, and stderr says the output is lost', async () => {
    const full = openSync('/dev/full', 'w');
    try {
      const { code, stderr } = await run(full);
      expect(code).toBe(1);
      expect(stderr).toBe('error: could not write the output to stdout (ENOSPC): it is lost\n');
    } finally {
      closeSync(full);
    }
  });

  it('to a reader that left: exit 0, nothing on stderr', async () => {
    const { code, stderr } = await run('pipe');
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('errors on stderr to a reader that left (`2>&1 | true`): the exit code is still the error\'s', async () => {
    for (const [args, expected] of [
      [['automations', 'list', '--bogus'], 2],
      [['--url', 'http://127.0.0.1:9', '--team', 'acme', 'automations', 'list'], 3],
    ] as const) {
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [SVC_BIN, ...args], {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, SVC_CONFIG_DIR: '/nonexistent/svc-test', SVC_API_KEY: '', DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent' },
        });
        child.stderr!.destroy();
        child.on('error', reject);
        child.on('close', resolve);
      });
      expect(code, args.join(' ')).toBe(expected);
    }
  });
});
