// What a daemon on the JSON-file store does with its data folder: it holds the folder's lock, so a
// second daemon on the folder is refused and a daemon whose lock is taken from it writes nothing
// more; and a journal that can no longer grow fails the requests that need it. (With PostgreSQL
// the folder holds only secrets and daemons share the database: the file project alone runs this.)
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/server.js';
import { makeSandbox, spawnSvc, SVC_BIN, type CliSandbox, type SvcProcess } from '../helpers/cli.js';
import { createTeam, requester, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
const running: TestDaemon[] = [];
const procs: SvcProcess[] = [];
const sandboxes: CliSandbox[] = [];

afterEach(async () => {
  for (const d of running.splice(0)) await d.destroy().catch(() => undefined);
  for (const p of procs.splice(0)) p.kill();
  for (const s of sandboxes.splice(0)) await s.cleanup();
});

async function start(opts: Parameters<typeof startTestDaemon>[0] = {}) {
  const d = await startTestDaemon(opts);
  running.push(d);
  return d;
}

async function sandbox() {
  const s = await makeSandbox();
  sandboxes.push(s);
  return s;
}

async function startDaemonProcess(s: CliSandbox, dataDir: string, env: Record<string, string> = {}) {
  const p = spawnSvc(s, ['daemon', 'start', '--data', dataDir, '--port', '0', '--rate-limit', '100000'], { env });
  procs.push(p);
  const line = await p.waitForLine(READY);
  const url = READY.exec(line)![1];
  const adminToken = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  return { p, url, adminToken, admin: requester(url, adminToken) };
}

describe('the data folder lock', () => {
  it('refuses a second daemon on the same data folder and leaves the first serving', async () => {
    const d = await start();
    await expect(startDaemon({ dataDir: d.dataDir, port: 0, logLevel: 'silent' })).rejects.toThrow(/in use|locked/i);
    expect((await d.as(null)('GET', '/health')).status).toBe(200);
  });

  it('a daemon whose data folder lock is taken from it writes nothing more, and /health says so with 503', async () => {
    const d = await start();
    const { api } = await createTeam(d, 'acme');
    expect((await d.as(null)('GET', '/health')).status).toBe(200);
    // what a second daemon taking the folder over would do to this one's lock
    await rm(join(d.dataDir, 'daemon.lock'), { recursive: true, force: true });
    const until = Date.now() + 20_000;
    let health = await d.as(null)('GET', '/health');
    while (health.status === 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      health = await d.as(null)('GET', '/health');
    }
    expect(health.status).toBe(503);
    expect(health.body.error.message).toContain('the data folder lock was lost');
    const write = await api('PUT', '/teams/acme/env-vars/AFTER', { value: 'not stored' });
    expect(write.status).toBe(500);
    // what it already held still reads
    expect((await api('GET', '/teams/acme/automations')).status).toBe(200);
  });

  it('refuses a second `svc daemon start` on the same data folder with a clear message and a non-zero exit', async () => {
    const s = await sandbox();
    const dir = join(s.home, 'd2');
    const first = await startDaemonProcess(s, dir);
    const second = spawnSvc(s, ['daemon', 'start', '--data', dir, '--port', '0']);
    procs.push(second);
    const { code } = await second.exited;
    expect(code).not.toBe(0);
    expect(second.stderr()).toMatch(/in use|locked/i);
    expect(second.stdout()).toBe('');
    expect((await first.admin('GET', '/admin/teams')).status).toBe(200);
  });
});

describe('a daemon whose journal can no longer be written', () => {
  it('answers 500 to every keyed request, never 429s for failed authentications (its key lookups fail, they guess nothing)', async () => {
    const s = await sandbox();
    const dataDir = join(s.home, 'full');
    // The shell's file-size limit (in KiB) makes a journal write past it fail with EFBIG, as a
    // full disk would; Node ignores the SIGXFSZ that comes with it.
    const child = spawn('/bin/sh', ['-c', 'ulimit -f 512 && exec "$0" "$@"', process.execPath, SVC_BIN, 'daemon', 'start', '--data', dataDir, '--port', '0', '--rate-limit', '100000', '--auth-failure-limit', '5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const m = READY.exec(out.split('\n')[0]);
        if (m) resolve(m[1]);
      });
      child.on('exit', () => reject(new Error('the daemon exited before it listened')));
    });
    try {
      const admin = requester(url, (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim());
      expect((await admin('POST', '/admin/teams', { slug: 'acme' })).status).toBe(201);
      const key = (await admin('POST', '/admin/teams/acme/keys', {})).body.data.key as string;
      const api = requester(url, key);
      // Prompts of 90 KiB until a write no longer fits under the limit.
      let status = 201;
      for (let i = 0; status === 201 && i < 20; i++) status = (await api('POST', '/teams/acme/automations', { name: `big ${i}`, prompt: 'x'.repeat(90_000), event_type: 'e' })).status;
      expect(status).toBe(500);
      // Far past the failed-authentication limit (5): still the store's 500, with its reason.
      for (let i = 0; i < 10; i++) {
        const res = await api('GET', '/teams/acme/automations');
        expect(res.status).toBe(500);
        expect(res.body.error.code).toBe('INTERNAL_ERROR');
      }
      expect((await admin('GET', '/admin/teams')).status).toBe(500);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
