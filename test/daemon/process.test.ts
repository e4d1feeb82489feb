// The daemon as users run it: `svc daemon start` in its own process, stopped by signals,
// killed with SIGKILL mid-write, and read from the outside. (Its data folder's lock and a journal
// that cannot grow: data-folder.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox, spawnSvc, type CliSandbox, type SvcProcess } from '../helpers/cli.js';
import { requester } from '../helpers/daemon.js';
import { testStoreArgs } from '../helpers/test-store.js';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';

const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
const procs: SvcProcess[] = [];
const sandboxes: CliSandbox[] = [];

afterEach(async () => {
  for (const p of procs.splice(0)) p.kill();
  for (const s of sandboxes.splice(0)) await s.cleanup();
});

async function sandbox() {
  const s = await makeSandbox();
  sandboxes.push(s);
  return s;
}

async function startDaemonProcess(s: CliSandbox, dataDir: string, env: Record<string, string> = {}) {
  const p = spawnSvc(s, ['daemon', 'start', '--data', dataDir, ...(await testStoreArgs(dataDir)), '--port', '0', '--rate-limit', '100000'], { env });
  procs.push(p);
  const line = await p.waitForLine(READY);
  const url = READY.exec(line)![1];
  const adminToken = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  return { p, url, adminToken, admin: requester(url, adminToken) };
}

describe('svc daemon start as a process', () => {
  it('prints only the ready line on stdout and exits 0 on SIGTERM after finishing in-flight writes', async () => {
    const s = await sandbox();
    const { p, admin } = await startDaemonProcess(s, join(s.home, 'd1'));
    const writes = Array.from({ length: 20 }, (_, i) => admin('POST', '/admin/teams', { slug: `t${i}` }));
    p.child.kill('SIGTERM');
    const results = await Promise.allSettled(writes);
    const { code } = await p.exited;
    expect(code).toBe(0);
    expect(p.stdout().trim().split('\n')).toHaveLength(1);
    // whatever got a 201 must be there after a restart
    const acknowledged = results.filter((r) => r.status === 'fulfilled' && r.value.status === 201).length;
    const again = await startDaemonProcess(s, join(s.home, 'd1'));
    expect((await again.admin('GET', '/admin/teams')).body.data.length).toBeGreaterThanOrEqual(acknowledged);
  });

  it('keeps every acknowledged write across kill -9, and restarts at once without manual clean-up', async () => {
    const s = await sandbox();
    const dir = join(s.home, 'd3');
    const { p, admin } = await startDaemonProcess(s, dir);
    const acknowledged = new Set<string>();
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        const slug = `w${w}-${i}`;
        try {
          const res = await admin('POST', '/admin/teams', { slug });
          if (res.status === 201) acknowledged.add(slug);
        } catch {
          return; // connection dropped by the kill
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w));
    while (acknowledged.size < 150) await new Promise((r) => setTimeout(r, 5));
    p.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await p.exited;

    const again = await startDaemonProcess(s, dir);
    const slugs = new Set((await again.admin('GET', '/admin/teams')).body.data.map((t: { slug: string }) => t.slug));
    const missing = [...acknowledged].filter((slug) => !slugs.has(slug));
    expect(missing).toEqual([]);
  });

  it('never writes a key, the admin token or an env var value to its log', async () => {
    const s = await sandbox();
    const dir = join(s.home, 'd4');
    const { p, url, adminToken, admin } = await startDaemonProcess(s, dir, { SVC_LOG_LEVEL: 'debug' });
    await admin('POST', '/admin/teams', { slug: 'acme' });
    const key = (await admin('POST', '/admin/teams/acme/keys', {})).body.data.key as string;
    const api = requester(url, key);
    const value = 'sup3r-s3cret-value-for-log-test';
    expect((await api('PUT', '/teams/acme/env-vars/TOKEN', { value })).status).toBe(200);
    await api('PUT', '/teams/acme/env-vars/bad-name', { value });
    await api('PUT', '/teams/acme/env-vars/TOKEN', { value, unknown: value });
    await requester(url, key + 'x')('GET', '/teams/acme/env-vars');
    // Keys put where they do not belong: the URL (query and path) and a body field's name.
    // Neither the log nor the error quoted back may hold them.
    const echoed = [
      await api('GET', `/teams/acme/environments?api_key=${key}`),
      await requester(url, null)('GET', `/admin/teams?token=${adminToken}`),
      await api('GET', `/nope/${key}`),
      await api('GET', `/teams/acme/automations?cursor=${key}`),
      await api('PATCH', `/teams/acme/automations/00000000-0000-4000-8000-000000000000`, { [key]: 1 }),
      // Glued to other text, or with its prefix percent-encoded, as a URL may carry it.
      await api('GET', `/nope?api_key=Bearer%20${key}`),
      await api('GET', `/nope/svc%5Fteam%5F${key.slice('svc_team_'.length)}`),
      await api('GET', `/nope/abc${key}`),
      await api('PATCH', `/teams/acme/automations/00000000-0000-4000-8000-000000000000`, { [`key_${key}`]: 1 }),
      await requester(url, null)('GET', `/nope/%73vc_admin_${adminToken.slice('svc_admin_'.length)}`),
    ];
    expect(echoed.map((r) => r.status)).toEqual([400, 401, 404, 400, 400, 404, 404, 404, 400, 404]);
    for (const r of echoed) expect(JSON.stringify(r.body)).not.toContain(key.slice(12));
    for (const r of echoed) expect(JSON.stringify(r.body)).not.toContain(adminToken.slice(12));
    // A key sent as the Host header is logged masked too.
    await new Promise<void>((resolve, reject) => {
      const target = new URL(url);
      const req = httpRequest({ host: target.hostname, port: target.port, path: '/api/v1/health', headers: { host: key } }, (res) => res.resume().on('end', resolve));
      req.on('error', reject).end();
    });
    expect(echoed[2].body.error.message).toBe('no route GET /api/v1/nope/svc_team_[redacted]');
    p.child.kill('SIGTERM');
    await p.exited;
    const log = p.stderr() + p.stdout();
    expect(log.length).toBeGreaterThan(100);
    expect(log).toContain('/api/v1/teams/acme/environments?api_key=svc_team_[redacted]');
    for (const secret of [key, adminToken, value, key.slice(12), adminToken.slice(12)]) expect(log).not.toContain(secret);
  });

  it('logs a runner refusal it answers with 502 as one warning line, without a stack', async () => {
    const s = await sandbox();
    const dir = join(s.home, 'd5');
    const p = spawnSvc(s, ['daemon', 'start', '--data', dir, ...(await testStoreArgs(dir)), '--port', '0', '--runner', 'webhook', '--runner-url', 'http://127.0.0.1:9/turns'], {
      env: { SVC_RUNNER_SECRET: 'log-test-secret' },
    });
    procs.push(p);
    const url = READY.exec(await p.waitForLine(READY))![1];
    const admin = requester(url, (await readFile(join(dir, 'admin-token'), 'utf8')).trim());
    await admin('POST', '/admin/teams', { slug: 'acme' });
    const api = requester(url, (await admin('POST', '/admin/teams/acme/keys', {})).body.data.key);
    expect((await api('POST', '/teams/acme/automations', { name: 'A', prompt: 'p', event_type: 'deploy.finished' })).status).toBe(201);
    expect((await api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy.finished', id: 'e1' })).status).toBe(502);
    p.child.kill('SIGTERM');
    await p.exited;
    const lines = p.stderr().split('\n').filter((l) => l.includes('SESSION_START_FAILED'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 40, msg: 'request refused upstream', code: 'SESSION_START_FAILED' });
    expect(p.stderr()).not.toContain('"stack"');
  });
});
