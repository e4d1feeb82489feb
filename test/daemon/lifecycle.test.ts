import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/server.js';
import { createTeam, makeDataDir, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { testStoreFor } from '../helpers/test-store.js';

const running: TestDaemon[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.destroy().catch(() => undefined);
});

async function start(opts: Parameters<typeof startTestDaemon>[0] = {}) {
  const d = await startTestDaemon(opts);
  running.push(d);
  return d;
}

describe('daemon lifecycle', () => {
  it('keeps everything across a stop and a start on the same data folder', async () => {
    const dataDir = await makeDataDir();
    let d = await startTestDaemon({ dataDir });
    const { api, key } = await createTeam(d, 'acme');
    const a = (await api('POST', '/teams/acme/automations', { name: 'keep me', prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '0 9 * * 1' }] })).body.data;
    await api('PUT', '/teams/acme/env-vars/TOKEN', { value: 'v' });
    await d.close();

    d = await start({ dataDir });
    const again = d.as(key);
    expect((await again('GET', `/teams/acme/automations/${a.id}`)).body.data).toEqual(a);
    expect((await again('GET', '/teams/acme/env-vars')).body.data.map((v: { name: string }) => v.name)).toEqual(['TOKEN']);
  });

  it('writes the admin token once (0600) and reuses it; SVC_ADMIN_TOKEN overrides it', async () => {
    const dataDir = await makeDataDir();
    const first = await startTestDaemon({ dataDir });
    const token = first.adminToken;
    expect(token).toMatch(/^svc_admin_/);
    expect((await readFile(join(dataDir, 'admin-token'), 'utf8')).trim()).toBe(token);
    expect((await stat(join(dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);
    await first.close();
    const second = await start({ dataDir });
    expect(second.adminToken).toBe(token);
    await second.close();
    const custom = await start({ dataDir, adminToken: 'svc_admin_custom_token_for_this_test_0123456789' });
    expect((await custom.admin('GET', '/admin/teams')).status).toBe(200);
    expect((await custom.as(token)('GET', '/admin/teams')).status).toBe(401);
  });

  it('refuses an admin token without the svc_admin_ prefix, or with little or no secret after it', async () => {
    await expect(startDaemon({ dataDir: await makeDataDir(), port: 0, logLevel: 'silent', adminToken: 'plain' })).rejects.toThrow(/svc_admin_/);
    for (const adminToken of ['svc_admin_', 'svc_admin_short', 'svc_admin_has a space in it, long']) {
      await expect(startDaemon({ dataDir: await makeDataDir(), port: 0, logLevel: 'silent', adminToken }), adminToken).rejects.toThrow(/at least 16 characters after svc_admin_/);
    }
  });

  it('fails cleanly when the port is taken, releasing the data folder for the next start', async () => {
    const first = await start();
    const dataDir = await makeDataDir();
    await expect(startDaemon({ dataDir, store: await testStoreFor(dataDir), port: first.port, logLevel: 'silent' })).rejects.toThrow(/EADDRINUSE|in use/i);
    const retry = await start({ dataDir });
    expect((await retry.as(null)('GET', '/health')).status).toBe(200);
  });
});
