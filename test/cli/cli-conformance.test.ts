// The CLI against the letter of CONTRACT.md and docs/cli.md, where it once differed: each case
// runs the real bin/svc.js against a real daemon (or, where only one shows it, a stand-in server).
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileStore } from '../../cli/credentials/file-store.js';
import { KeychainUnavailable, systemKeychain, type Keychain } from '../../cli/credentials/keychain.js';
import { credentialStore } from '../../cli/credentials/store.js';
import { envFor, loginSvc, makeSandbox, runSvc, type CliSandbox } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { plainText, ptyAvailable, runInPty } from '../helpers/pty.js';

let d: TestDaemon;
let sandbox: CliSandbox;
let team: Awaited<ReturnType<typeof createTeam>>;

beforeAll(async () => {
  [d, sandbox] = await Promise.all([startTestDaemon(), makeSandbox()]);
  team = await createTeam(d, 'audit');
});
afterAll(async () => {
  await d?.destroy();
  await sandbox?.cleanup();
});

describe('svc auth status --check with a project key from the environment', () => {
  it('checks it against SVC_PROJECT_ID, as the project commands use it', async () => {
    const p = await d.admin('POST', '/admin/teams/audit/projects', { name: 'Web' });
    const k = await d.admin('POST', `/admin/projects/${p.body.data.id}/key`);
    const env = { ...envFor({ url: d.url, key: k.body.data.key, team: 'audit' }), SVC_PROJECT_ID: p.body.data.id };
    expect((await runSvc(sandbox, ['projects', 'get', '--json'], { env })).code).toBe(0);

    const r = await runSvc(sandbox, ['auth', 'status', '--check', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().keys.project).toEqual({ prefix: k.body.data.key.slice(0, 12), source: 'env:SVC_API_KEY', project_id: p.body.data.id, valid: true });
  });

  it('does not call a project key refused when no project is known; it says it could not check it', async () => {
    const p = await d.admin('POST', '/admin/teams/audit/projects', { name: 'Api' });
    const k = await d.admin('POST', `/admin/projects/${p.body.data.id}/key`);
    const r = await runSvc(sandbox, ['auth', 'status', '--check', '--json'], { env: envFor({ url: d.url, key: k.body.data.key, team: 'audit' }) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().keys.project).toEqual({ prefix: k.body.data.key.slice(0, 12), source: 'env:SVC_API_KEY' });
    expect(r.stderr).toContain('the project key was not checked');
  });
});

describe('a URL where some other web server answers', () => {
  let other: Server;
  let url: string;
  beforeAll(async () => {
    // `/s404/...` answers 404, and so on; anything else 200.
    other = createServer((req, res) => {
      res.writeHead(Number(/^\/s(\d{3})\//.exec(req.url ?? '')?.[1] ?? 200), { 'content-type': 'text/html' });
      res.end('<html>not svc</html>');
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    other.closeAllConnections();
    await new Promise((r) => other.close(r));
  });

  it('is a failure to reach the daemon (exit 7, a message naming the URL), not a crash or an empty success', async () => {
    const env = envFor({ url, key: team.key, team: 'audit' });
    for (const args of [['automations', 'list'], ['events', 'send', '--type', 'x'], ['skills', 'scan', 'https://github.com/a/b']]) {
      const r = await runSvc(sandbox, args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toContain(`cannot reach ${url}`);
      expect(r.stderr).toContain("is this the svc daemon's URL?");
      expect(r.stderr).not.toMatch(/Cannot read properties/);
    }
    const json = await runSvc(sandbox, ['automations', 'list', '--json'], { env });
    expect(json.code).toBe(7);
    expect(json.stdout).toBe('');
    // `svc api` takes any JSON or plain text, but a web page is no answer of the API's.
    for (const args of [['api', '/teams/{team}/automations'], ['api', '-X', 'POST', '/teams/{team}/webhooks/events', '-f', 'event_type=x']]) {
      const r = await runSvc(sandbox, args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(7);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain("is this the svc daemon's URL?");
    }
  });

  it('reads its 401, 404 or 409 as the wrong URL (exit 7), not as a bad key, a missing team or a conflict', async () => {
    for (const status of [401, 404, 409]) {
      const env = envFor({ url: `${url}/s${status}`, key: team.key, team: 'audit' });
      const r = await runSvc(sandbox, ['automations', 'list', '--json'], { env });
      expect(r.code, `${status}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toContain(`it answered HTTP ${status} without the svc API's error envelope: is this the svc daemon's URL?`);
    }
    // A 5xx outside the envelope (a proxy whose daemon is down): exit 7, saying so once.
    const bad = await runSvc(sandbox, ['events', 'send', '--type', 'x'], { env: envFor({ url: `${url}/s502`, key: team.key, team: 'audit' }) });
    expect(bad.code, bad.stderr).toBe(7);
    expect(bad.stderr).toBe("error: the server at the URL answered HTTP 502 without the svc API's error envelope: a proxy whose daemon is down, or not the svc daemon's URL\n");
    const login = await runSvc(sandbox, ['login', '--url', `${url}/s404`, '--team', 'audit', '--key-stdin', '--insecure-storage'], { input: team.key });
    expect(login.code, login.stderr).toBe(7);
    expect(login.stderr).not.toContain('not found');
  });

  it('does not make auth status --check say the key works', async () => {
    const r = await runSvc(sandbox, ['auth', 'status', '--check'], { env: envFor({ url, key: team.key, team: 'audit' }) });
    expect(r.code).toBe(7);
    expect(r.stdout).not.toContain('works');
  });
});

describe('svc api', () => {
  const env = () => envFor({ url: d.url, key: team.key, team: 'audit' });

  it('prints a route outside the {data} envelope whole (the OpenAPI document)', async () => {
    const r = await runSvc(sandbox, ['api', '/openapi.json', '--as', 'none'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ openapi: expect.any(String), paths: expect.any(Object) });
  });

  it('prints a plain-text route as it came: /metrics, with the admin token it needs, sent by default', async () => {
    const r = await runSvc(sandbox, ['api', '/metrics'], { env: { ...env(), SVC_ADMIN_TOKEN: d.adminToken } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^# HELP svc_/m);
    expect(r.stdout).toMatch(/^svc_http_requests_total\{/m);
  });

  it('--as none on a route that needs a key: exit 3, saying no key was sent rather than to log in again', async () => {
    const r = await runSvc(sandbox, ['api', '/teams/{team}/environments', '--as', 'none'], { env: env() });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('No key was sent (--as none): this route needs one.');
    expect(r.stderr).not.toContain('svc login');
    expect(r.stderr).not.toContain('SVC_API_KEY');
  });

  it('gives the next cursor as &cursor= when the path already has a query', async () => {
    for (const name of ['one', 'two']) {
      await team.api('POST', '/teams/audit/automations', { name, prompt: 'p', triggers: [{ kind: 'event', event_type: 'x' }] });
    }
    const r = await runSvc(sandbox, ['api', '/teams/{team}/automations?limit=1'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/add &cursor=\S+ to the path/);
  });

  it('sends -f fields of a GET as query parameters, as typed, as gh does', async () => {
    const r = await runSvc(sandbox, ['api', '-X', 'GET', '/teams/{team}/automations', '-f', 'limit=1'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toHaveLength(1);
    const bad = await runSvc(sandbox, ['api', '-X', 'GET', '/teams/{team}/automations', '-f', 'limt=1'], { env: env() });
    expect(bad.code).toBe(5);
    expect(bad.stderr).toContain('querystring.limt is not an allowed property');
  });
});

describe.skipIf(!ptyAvailable())('a profile whose default output is JSON, on a terminal', () => {
  it('still opens the screens (only --json keeps them closed)', async () => {
    const sb = await makeSandbox();
    try {
      await loginSvc(sb, { url: d.url, team: 'audit', key: team.key, profile: 'js' });
      expect((await runSvc(sb, ['login', '--profile', 'js', '--output', 'json', '--key-stdin'], { input: team.key })).code).toBe(0);
      const r = await runInPty(sb, ['--profile', 'js'], { answers: [{ when: /connected/, send: 'q' }] });
      const text = plainText(r.output);
      expect(text).not.toContain('the screens need a terminal');
      expect(text).toContain('team audit');
      expect(r.code).toBe(0);
    } finally {
      await sb.cleanup();
    }
  });
});

/** An in-memory keychain: what the OS keychain does, for the store's own rules. */
function memoryKeychain(): Keychain & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    get: async (account) => entries.get(account) ?? null,
    set: async (account, secret) => void entries.set(account, secret),
    delete: async (account) => entries.delete(account),
  };
}

describe('--insecure-storage after a keychain login', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-audit-store-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stores the new key in the file and the old keychain key no longer shadows it', async () => {
    const keychain = memoryKeychain();
    const store = credentialStore(keychain, fileStore(dir));
    await store.save('p', 'team', 'svc_team_old');
    expect(keychain.entries.get('p')).toBe('svc_team_old');
    const saved = await store.save('p', 'team', 'svc_team_new', { insecure: true });
    expect(saved.where).toBe('file');
    expect(await store.read('p', 'team')).toMatchObject({ found: { key: 'svc_team_new', source: 'file' } });
    expect(keychain.entries.has('p')).toBe(false);
  });

  it('still stores in the file when the keychain cannot be reached to clear it', async () => {
    const down: Keychain = {
      get: async () => {
        throw new KeychainUnavailable('no bus');
      },
      set: async () => {
        throw new KeychainUnavailable('no bus');
      },
      delete: async () => {
        throw new KeychainUnavailable('no bus');
      },
    };
    const store = credentialStore(down, fileStore(dir));
    expect(await store.save('q', 'team', 'svc_team_q', { insecure: true })).toMatchObject({ where: 'file' });
    expect((await store.read('q', 'team')).found).toEqual({ key: 'svc_team_q', source: 'file' });
  });
});

async function secretServiceReachable(): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  try {
    await systemKeychain({ service: 'svc-test-probe' }).get('probe');
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!(await secretServiceReachable()))('--insecure-storage with the real keychain', () => {
  it('svc login --insecure-storage replaces a key stored in the keychain by an earlier login', async () => {
    const sb = await makeSandbox({ keychain: 'system' });
    const profile = `audit-${process.pid}-${Date.now().toString(36)}`;
    try {
      const second = await d.admin('POST', '/admin/teams/audit/keys', { name: 'second' });
      const login = ['login', '--profile', profile, '--url', d.url, '--team', 'audit', '--key-stdin'];
      expect((await runSvc(sb, login, { input: team.key })).stderr).toContain('in the keychain');
      const r = await runSvc(sb, [...login, '--insecure-storage'], { input: second.body.data.key });
      expect(r.code, r.stderr).toBe(0);
      const s = await runSvc(sb, ['auth', 'status', '--profile', profile, '--json']);
      expect(s.json().keys.team).toEqual({ prefix: second.body.data.key.slice(0, 12), source: 'file' });
    } finally {
      await runSvc(sb, ['logout', '--profile', profile]);
      await sb.cleanup();
    }
  });
});
