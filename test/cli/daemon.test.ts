// svc daemon start and svc dev as real processes: the one stdout line, clean exit on signals,
// the data-folder lock, defaults from the environment and the platform data folder, and the dev
// team and profile that `svc dev` prepares. `svc daemon start` runs on the test project's store
// (test-store.ts); `svc dev` always keeps its state in its data folder.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSvc, type SvcProcess, useSandboxedProcesses } from '../helpers/cli.js';
import { requester } from '../helpers/daemon.js';
import { plainText, ptyAvailable, type PtyProcess, spawnInPty } from '../helpers/pty.js';
import { modulesLoadedBy, packagesAmong } from '../helpers/module-trace.js';
import { testStoreArgs, testStoreFor, testStoreKind } from '../helpers/test-store.js';

const LISTENING = /^svc daemon listening on (http:\/\/127\.0\.0\.1:(\d+)\/api\/v1)$/;

const cli = useSandboxedProcesses();

function start(args: string[], env?: Record<string, string | undefined>) {
  return cli.spawn(args, { env: { SVC_LOG_LEVEL: 'warn', ...env } });
}

async function listening(p: SvcProcess): Promise<string> {
  const line = await p.waitForLine(LISTENING);
  return LISTENING.exec(line)![1];
}

describe('svc daemon start', () => {
  it('prints exactly one stdout line with the real port, serves, and exits 0 on SIGTERM', async () => {
    const dir = join(cli.sb.home, 'd1');
    const p = start(['daemon', 'start', '--port', '0', '--data', dir, ...(await testStoreArgs(dir))]);
    const url = await listening(p);
    const health = await requester(url, null)('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.data.status).toBe('ok');
    p.child.kill('SIGTERM');
    expect(await p.exited).toEqual({ code: 0, signal: null });
    expect(p.stdout()).toBe(`svc daemon listening on ${url}\n`);
    expect(p.stderr()).toContain('Daemon stopped.');
  });

  it('under --json prints one JSON line instead: the url, data folder, store, runner and pid', async () => {
    const dir = join(cli.sb.home, 'dj');
    const store = await testStoreFor(dir);
    const p = start(['daemon', 'start', '--port', '0', '--data', dir, ...(store === undefined ? [] : ['--store', store]), '--json']);
    const line = await p.waitForLine(/^\{/);
    const ready = JSON.parse(line);
    // the store: the data folder, or the PostgreSQL URL with its password masked
    const shown = store === undefined ? dir : Object.assign(new URL(store), { password: '***' }).toString();
    expect(ready).toEqual({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/), data_dir: dir, store: shown, runner: 'record', pid: p.child.pid });
    expect((await requester(ready.url, null)('GET', '/health')).status).toBe(200);
    p.child.kill('SIGTERM');
    expect((await p.exited).code).toBe(0);
    expect(p.stdout()).toBe(`${line}\n`);
  });

  it('exits 0 on SIGINT too', async () => {
    const dir = join(cli.sb.home, 'd2');
    const p = start(['daemon', 'start', '--port', '0', '--data', dir, ...(await testStoreArgs(dir))]);
    await listening(p);
    p.child.kill('SIGINT');
    expect((await p.exited).code).toBe(0);
  });

  it('a second daemon on the same data folder refuses to start with a clear message, the first keeps serving', async () => {
    // The JSON-file store's lock, so on the file store in both projects: daemons share a database.
    const dir = join(cli.sb.home, 'd3');
    const first = start(['daemon', 'start', '--port', '0', '--data', dir]);
    const url = await listening(first);
    const second = await runSvc(cli.sb, ['daemon', 'start', '--port', '0', '--data', dir]);
    expect(second.code).not.toBe(0);
    expect(second.stdout).toBe('');
    expect(second.stderr).toMatch(/in use|locked/);
    expect((await requester(url, null)('GET', '/health')).status).toBe(200);
  });

  it('exits 1 naming the error for a data folder that cannot be made, under /proc too (where Node alone would try forever)', async () => {
    for (const dir of ['/proc/svc-no-such-folder', join(cli.sb.home, 'd3-file', 'sub')]) {
      if (dir.includes('d3-file')) await writeFile(join(cli.sb.home, 'd3-file'), 'x');
      const r = await runSvc(cli.sb, ['daemon', 'start', '--port', '0', '--data', dir], { timeoutMs: 15_000 });
      expect([r.code, r.signal], dir).toEqual([1, null]);
      expect(r.stderr).toMatch(/ENOENT|ENOTDIR/);
    }
  });

  it('defaults to the user data folder for svc ($XDG_DATA_HOME/svc)', async () => {
    const p = start(['daemon', 'start', '--port', '0', ...(await testStoreArgs(cli.sb.dataDir))]);
    await listening(p);
    expect((await stat(join(cli.sb.dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);
  });

  it('takes SVC_DATA_DIR, SVC_PORT and SVC_ADMIN_TOKEN from the environment, flags over them', async () => {
    const token = 'svc_admin_fromtheenvironment0000000000000';
    const p = start(['daemon', 'start', '--data', join(cli.sb.home, 'flag-dir'), ...(await testStoreArgs(join(cli.sb.home, 'flag-dir')))], { SVC_DATA_DIR: join(cli.sb.home, 'env-dir'), SVC_PORT: '0', SVC_ADMIN_TOKEN: token });
    const url = await listening(p);
    expect((await requester(url, token)('GET', '/admin/teams')).status).toBe(200);
    await expect(stat(join(cli.sb.home, 'flag-dir'))).resolves.toBeTruthy();
    await expect(stat(join(cli.sb.home, 'env-dir'))).rejects.toThrow();
  });

  it('loads the PostgreSQL driver only for a PostgreSQL store, and undici only once a scan or a webhook turn needs it', async () => {
    const dir = join(cli.sb.home, 'd-modules');
    const run = await modulesLoadedBy(cli.sb, { SVC_LOG_LEVEL: 'warn' }, ['daemon', 'start', '--port', '0', '--data', dir, ...(await testStoreArgs(dir))], LISTENING);
    expect(run.status, run.stderr).toBe(0);
    expect(packagesAmong(run.modules, ['fastify']).length).toBeGreaterThan(0); // the trace works
    expect(packagesAmong(run.modules, ['undici'])).toEqual([]);
    expect(packagesAmong(run.modules, ['pg']).length > 0).toBe(testStoreKind() === 'postgres');
  });
});

describe('svc dev', () => {
  it('starts a daemon with team dev and a working key in profile dev, and says how to use it', async () => {
    const p = start(['dev', '--port', '0']);
    const url = await listening(p);
    await p.waitForStderr(/Ctrl-C stops the daemon/);
    expect(p.stdout()).toBe(`svc daemon listening on ${url}\n`);
    expect(p.stderr()).toContain('svc --profile dev automations list');
    expect(p.stderr()).toContain(`Data folder: ${join(cli.sb.dataDir, 'dev')}`);

    const status = await runSvc(cli.sb, ['--profile', 'dev', 'auth', 'status', '--json', '--check']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({ profile: 'dev', url, team: 'dev', keys: { team: { valid: true }, admin: { valid: true } } });
    const envs = await runSvc(cli.sb, ['--profile', 'dev', 'api', '/teams/{team}/environments']);
    expect(envs.code).toBe(0);
    expect(envs.json().map((e: { slug: string }) => e.slug)).toContain('default');

    const token = (await readFile(join(cli.sb.dataDir, 'dev', 'admin-token'), 'utf8')).trim();
    p.child.kill('SIGINT');
    expect((await p.exited).code).toBe(0);
    expect(p.stdout()).not.toContain(token);
    expect(p.stderr()).not.toContain(token);
  });

  it('under --json prints one JSON line once team and profile are ready, without the key', async () => {
    const p = start(['dev', '--port', '0', '--json']);
    const ready = JSON.parse(await p.waitForLine(/^\{/));
    expect(ready).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/),
      data_dir: join(cli.sb.dataDir, 'dev'),
      store: join(cli.sb.dataDir, 'dev'),
      runner: 'record',
      pid: p.child.pid,
      team: 'dev',
      profile: 'dev',
      key_prefix: expect.stringMatching(/^svc_team_/),
      key_created: true,
    });
    // The profile works as soon as the line is out.
    expect((await runSvc(cli.sb, ['--profile', 'dev', 'automations', 'list', '--json'])).code).toBe(0);
    // The terminal it ran in closed: it stops as on Ctrl-C.
    p.child.kill('SIGHUP');
    expect((await p.exited).code).toBe(0);
    expect(p.stderr()).toContain('Received SIGHUP: stopping the daemon');
    expect(p.stdout().split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('keeps a key that still works on restart instead of creating another', async () => {
    const first = start(['dev', '--port', '0']);
    await listening(first);
    await first.waitForStderr(/Ctrl-C stops the daemon/);
    expect(first.stderr()).toContain('now holds a new key');
    first.child.kill('SIGTERM');
    await first.exited;

    const second = start(['dev', '--port', '0']);
    const url = await listening(second);
    await second.waitForStderr(/Ctrl-C stops the daemon/);
    expect(second.stderr()).toContain('holds a working key');
    const token = (await readFile(join(cli.sb.dataDir, 'dev', 'admin-token'), 'utf8')).trim();
    const keys = await requester(url, token)('GET', '/admin/teams/dev/keys');
    expect(keys.body.data).toHaveLength(1);
  });

  it('replaces a stored key the daemon no longer accepts', async () => {
    const first = start(['dev', '--port', '0']);
    const url = await listening(first);
    await first.waitForStderr(/Ctrl-C stops the daemon/);
    const token = (await readFile(join(cli.sb.dataDir, 'dev', 'admin-token'), 'utf8')).trim();
    const admin = requester(url, token);
    const [key] = (await admin('GET', '/admin/teams/dev/keys')).body.data;
    await admin('DELETE', `/admin/teams/dev/keys/${key.id}`);
    first.child.kill('SIGTERM');
    await first.exited;

    const second = start(['dev', '--port', '0']);
    await listening(second);
    await second.waitForStderr(/Ctrl-C stops the daemon/);
    expect(second.stderr()).toContain('now holds a new key');
    expect((await runSvc(cli.sb, ['--profile', 'dev', 'auth', 'status', '--check'])).code).toBe(0);
  });

  it('ignores SVC_DATA_DIR and SVC_STORE, which name the real daemon\'s store', async () => {
    const p = start(['dev', '--port', '0'], { SVC_DATA_DIR: join(cli.sb.home, 'real'), SVC_STORE: join(cli.sb.home, 'real-store') });
    await listening(p);
    await p.waitForStderr(/Ctrl-C stops the daemon/);
    await expect(stat(join(cli.sb.home, 'real'))).rejects.toThrow();
    await expect(stat(join(cli.sb.home, 'real-store'))).rejects.toThrow();
  });
});

describe.skipIf(!ptyAvailable())('svc dev log lines', () => {
  const ptys: PtyProcess[] = [];
  afterEach(async () => {
    for (const p of ptys.splice(0)) await p.closeTerminal();
  });
  const onTerminal = (args: string[]) => {
    const p = spawnInPty(cli.sb, ['dev', '--port', '0', ...args], { env: { SVC_LOG_LEVEL: 'info' } });
    ptys.push(p);
    return p;
  };
  const urlShown = async (p: PtyProcess) => /listening on (http:\/\/\S+\/api\/v1)/.exec(plainText(await p.waitFor(/listening on http:\/\/\S+\/api\/v1\s/)))![1];
  const adminToken = async () => (await readFile(join(cli.sb.dataDir, 'dev', 'admin-token'), 'utf8')).trim();
  // The human line of a request: local time, method, path, status, milliseconds.
  const line = (method: string, path: string, status: number) => new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${method} ${path.replace(/[?]/g, '\\?')} ${status} \\d+ms$`, 'm');

  it('on a terminal prints one readable line per request after the banner, 4xx in yellow, health checks left out, no JSON and no key', async () => {
    const p = onTerminal([]);
    const url = await urlShown(p);
    await p.waitFor(/Ctrl-C stops the daemon/);
    const token = await adminToken();
    expect((await requester(url, null)('GET', '/health')).status).toBe(200);
    expect((await requester(url, token)('GET', '/admin/teams')).status).toBe(200);
    expect((await requester(url, 'svc_team_notarealkey0000000000')('POST', '/teams/dev/webhooks/events', { event_type: 'x' })).status).toBe(401);
    await p.waitFor(line('POST', '/api/v1/teams/dev/webhooks/events', 401));
    const shown = plainText(p.output());
    expect(shown).toMatch(line('GET', '/api/v1/admin/teams', 200));
    // The 401 stands out: the request and its status in yellow.
    expect(p.output()).toContain('\u001b[33mPOST /api/v1/teams/dev/webhooks/events 401\u001b[39m');
    expect(shown).not.toMatch(/health/);
    expect(shown).not.toContain('{"level"');
    expect(shown).not.toContain(token);
    expect(shown).not.toContain('notarealkey');
    // svc dev's own set-up requests (its team and key) are not a person's requests.
    expect(shown).not.toMatch(/POST \/api\/v1\/admin\/teams/);
    // The banner comes before the first request line.
    expect(shown.indexOf('Ctrl-C stops the daemon')).toBeLessThan(shown.search(line('GET', '/api/v1/admin/teams', 200)));
    p.type('\u0003');
    const end = await p.exited;
    expect(end.code).toBe(0);
    expect(plainText(end.output)).toContain('Daemon stopped.');
  });

  it('--log-format json on a terminal keeps the JSON log lines', async () => {
    const p = onTerminal(['--log-format', 'json']);
    const url = await urlShown(p);
    await p.waitFor(/Ctrl-C stops the daemon/);
    expect((await requester(url, await adminToken())('GET', '/admin/teams')).status).toBe(200);
    await p.waitFor(/"url":"\/api\/v1\/admin\/teams"[\s\S]*"msg":"request completed"/);
    expect(plainText(p.output())).not.toMatch(line('GET', '/api/v1/admin/teams', 200));
    // Its terminal goes away: svc dev stops rather than living on without it, whatever it
    // was logging when its writes there began to fail. Waiting for the process, not for its
    // port to close, also keeps its last writes out of the sandbox's removal.
    await expect(p.closeTerminal()).resolves.toBeUndefined();
  });

  it('with stdout piped prints the JSON log lines on stderr, as before', async () => {
    const p = cli.spawn(['dev', '--port', '0'], { env: { SVC_LOG_LEVEL: 'info' } });
    const url = await listening(p);
    await p.waitForStderr(/Ctrl-C stops the daemon/);
    expect((await requester(url, await adminToken())('GET', '/admin/teams')).status).toBe(200);
    const incoming = JSON.parse(await p.waitForStderr(/\{[^\n]*"method":"GET","url":"\/api\/v1\/admin\/teams"[^\n]*\}/));
    expect(incoming).toMatchObject({ level: 30, msg: 'incoming request', req: { method: 'GET', url: '/api/v1/admin/teams' } });
    const completed = JSON.parse(await p.waitForStderr(new RegExp(`\\{[^\\n]*"reqId":"${incoming.reqId}"[^\\n]*"msg":"request completed"\\}`)));
    expect(completed).toMatchObject({ level: 30, res: { statusCode: 200 }, responseTime: expect.any(Number) });
    expect(p.stderr()).not.toMatch(line('GET', '/api/v1/admin/teams', 200));
  });
});
