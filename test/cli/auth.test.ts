// svc login / logout / auth status against a real daemon, with no keychain reachable (the sandbox
// points D-Bus nowhere), so keys go to the 0600 file; keychain.test.ts covers the Secret Service.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliSandbox, envFor, loginSvc, makeSandbox, runSvc } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let daemon: TestDaemon;
let team: Awaited<ReturnType<typeof createTeam>>;
let sb: CliSandbox;

beforeAll(async () => {
  daemon = await startTestDaemon();
  team = await createTeam(daemon, 'acme');
});
afterAll(async () => {
  await daemon.destroy();
});
beforeEach(async () => {
  sb = await makeSandbox();
});
afterEach(async () => {
  await sb.cleanup();
});

const credentialsFile = () => join(sb.configDir, 'credentials.json');
const noSecrets = (text: string) => {
  expect(text).not.toContain(team.key);
  expect(text).not.toContain(daemon.adminToken);
};

describe('svc login', () => {
  it('checks the key, stores it in a 0600 file when no keychain answers, and says so', async () => {
    const r = await runSvc(sb, ['login', '--url', daemon.url, '--team', 'acme', '--key-stdin'], { input: `${team.key}\n` });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no keychain answered');
    expect(r.stderr).toContain(credentialsFile());
    expect(r.stderr).toContain(team.key.slice(0, 12));
    noSecrets(r.stderr);
    expect((await stat(credentialsFile())).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(credentialsFile(), 'utf8')).keys).toEqual({ default: team.key });
    const config = JSON.parse(await readFile(join(sb.configDir, 'config.json'), 'utf8'));
    expect(config.profiles.default).toEqual({ url: daemon.url, team: 'acme' });
  });

  it('keeps every profile and key when several logins run at once (parallel CI jobs)', async () => {
    const profiles = Array.from({ length: 6 }, (_, i) => `job${i}`);
    const runs = await Promise.all(
      profiles.map((p) => runSvc(sb, ['login', '--profile', p, '--url', daemon.url, '--team', 'acme', '--key-stdin'], { input: `${team.key}\n` })),
    );
    expect(runs.map((r) => r.code)).toEqual(profiles.map(() => 0));
    const config = JSON.parse(await readFile(join(sb.configDir, 'config.json'), 'utf8'));
    expect(Object.keys(config.profiles).sort()).toEqual(profiles);
    expect(Object.keys(JSON.parse(await readFile(credentialsFile(), 'utf8')).keys).sort()).toEqual(profiles);
  });

  it('refuses to write over a config.json that does not parse, and other commands say they ignore it', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    const broken = (await readFile(join(sb.configDir, 'config.json'), 'utf8')).replace(/}\s*$/, ', oops');
    await writeFile(join(sb.configDir, 'config.json'), broken);
    const r = await runSvc(sb, ['login', '--profile', 'other', '--url', daemon.url, '--team', 'acme', '--key-stdin'], { input: `${team.key}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(sb.configDir, 'config.json')} is not valid JSON`);
    expect(r.stderr).toContain('fix or remove it; nothing was changed');
    expect(await readFile(join(sb.configDir, 'config.json'), 'utf8')).toBe(broken);
    expect(Object.keys(JSON.parse(await readFile(credentialsFile(), 'utf8')).keys)).toEqual(['default']);
    const list = await runSvc(sb, ['automations', 'list', '--json'], { env: envFor({ url: daemon.url, key: team.key, team: 'acme' }) });
    expect(list.code).toBe(0);
    expect(list.stderr).toContain(`svc: warning: ${join(sb.configDir, 'config.json')} is not valid JSON (`);
    expect(list.stderr.match(/its settings are ignored/g)).toHaveLength(1);
  });

  it('refuses to write over a credentials.json that does not parse, and says its keys are ignored', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key, profile: 'ci' });
    const broken = (await readFile(credentialsFile(), 'utf8')).replace(/}\s*$/, ', oops');
    await writeFile(credentialsFile(), broken);

    const use = await runSvc(sb, ['automations', 'list', '--json']);
    expect(use.code).toBe(3);
    expect(use.stderr).toContain(`svc: warning: ${credentialsFile()} is not valid JSON (`);
    expect(use.stderr).toContain('the keys stored there are ignored');
    for (const args of [
      ['login', '--profile', 'new1', '--url', daemon.url, '--team', 'acme', '--key-stdin'],
      ['logout', '--profile', 'ci'],
    ]) {
      const r = await runSvc(sb, args, { input: `${team.key}\n` });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${credentialsFile()} is not valid JSON`);
      expect(r.stderr).toContain('fix or remove it; nothing was changed');
      expect(await readFile(credentialsFile(), 'utf8')).toBe(broken);
    }
  });

  it.each(['valueOf', 'isPrototypeOf', 'constructor', 'hasOwnProperty'])('a profile named %s is a profile like any other, not a property every object has', async (name) => {
    const status = await runSvc(sb, ['--profile', name, 'auth', 'status', '--json']);
    expect(status.stderr).not.toContain('is not a function');
    expect([0, 3]).toContain(status.code);
    const logout = await runSvc(sb, ['logout', '--profile', name, '--json']);
    expect(logout.code).toBe(0);
    expect(JSON.parse(logout.stdout).removed).toEqual([]);
    const list = await runSvc(sb, ['--profile', name, '--url', daemon.url, '--team', 'acme', 'automations', 'list']);
    expect(list.code).toBe(3);
    expect(list.stderr).toMatch(/no team key for profile/);
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key, profile: name });
    const after = await runSvc(sb, ['--profile', name, 'automations', 'list', '--json']);
    expect(after.code).toBe(0);
  });

  it('refuses an invalid SVC_PROFILE as it refuses an invalid --profile', async () => {
    const r = await runSvc(sb, ['automations', 'list'], { env: { SVC_PROFILE: 'bad name' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("invalid profile name 'bad name' in SVC_PROFILE");
  });

  it('accepts the URL without /api/v1 and stores it normalised', async () => {
    const bare = daemon.url.replace(/\/api\/v1$/, '');
    await loginSvc(sb, { url: bare, team: 'acme', key: team.key, profile: 'bare' });
    const config = JSON.parse(await readFile(join(sb.configDir, 'config.json'), 'utf8'));
    expect(config.profiles.bare.url).toBe(daemon.url);
  });

  it('says a URL with the wrong path reaches no API (exit 7), rather than that the team is missing', async () => {
    const wrong = daemon.url.replace(/\/api\/v1$/, '/svc');
    const r = await runSvc(sb, ['login', '--url', wrong, '--team', 'acme', '--key-stdin'], { input: `${team.key}\n` });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('a server answers there, but not the svc API (no route GET /svc/api/v1/teams/acme/environments)');
    expect(r.stderr).toContain("check the URL's path");
    await expect(stat(credentialsFile())).rejects.toThrow();
  });

  it('says the same for any command sent to a URL with the wrong path (exit 7), not that the automation is missing (4)', async () => {
    const env = { SVC_BASE_URL: daemon.url.replace(/\/api\/v1$/, '/svc/api/v1'), SVC_API_KEY: team.key, SVC_TEAM: 'acme' };
    for (const args of [['automations', 'list'], ['automations', 'get', 'nightly'], ['events', 'send', '--type', 'x']]) {
      const r = await runSvc(sb, args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toContain('a server answers there, but not the svc API (no route ');
      expect(r.stderr).toContain("check the URL's path");
    }
    // A path of one's own through `svc api` is the caller's to get right: a plain 404.
    const own = await runSvc(sb, ['api', '/teams/{team}/no-such-thing'], { env: { ...env, SVC_BASE_URL: daemon.url } });
    expect(own.code, own.stderr).toBe(4);
  });

  it('refuses a key the daemon answers 401 to: exit 3, clear message, nothing stored', async () => {
    const r = await runSvc(sb, ['login', '--url', daemon.url, '--team', 'acme', '--key-stdin'], { input: 'svc_team_notarealkey0000000000000000000' });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('refused this key');
    expect(r.stderr).toContain('nothing was stored');
    await expect(stat(credentialsFile())).rejects.toThrow();
    await expect(stat(join(sb.configDir, 'config.json'))).rejects.toThrow();
  });

  it('refuses a key with whitespace or a control character inside as a usage error (2), before any request, nothing stored', async () => {
    for (const [input, problem] of [['svc_team_a\u0001b\n', 'contains a control character'], ['svc_team_a b', 'contains whitespace']]) {
      const r = await runSvc(sb, ['login', '--url', 'http://127.0.0.1:9', '--team', 'acme', '--key-stdin'], { input });
      expect([r.code, r.stderr.trim()]).toEqual([2, `error: the key ${problem}: paste exactly one key`]);
    }
    await expect(stat(credentialsFile())).rejects.toThrow();
  });

  it("refuses a working key for another team's slug with exit 4, nothing stored", async () => {
    const r = await runSvc(sb, ['login', '--url', daemon.url, '--team', 'someone-else', '--key-stdin'], { input: team.key });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("team 'someone-else' not found");
    await expect(stat(credentialsFile())).rejects.toThrow();
  });

  it('says which flag fits when given a key of another kind', async () => {
    const r = await runSvc(sb, ['login', '--url', daemon.url, '--team', 'acme', '--key-stdin'], { input: daemon.adminToken });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('that is an admin key (svc_admin_…), not a team key: log in with --admin');
    noSecrets(r.stderr);
  });

  it('--insecure-storage stores in the file on purpose and says so', async () => {
    const r = await runSvc(sb, ['login', '--url', daemon.url, '--team', 'acme', '--key-stdin', '--insecure-storage'], { input: team.key });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('as --insecure-storage asked');
    expect(r.stderr).not.toContain('no keychain answered');
  });

  it('--json prints only a JSON summary without the key', async () => {
    const r = await runSvc(sb, ['login', '--url', daemon.url, '--team', 'acme', '--key-stdin', '--json'], { input: team.key });
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ profile: 'default', url: daemon.url, team: 'acme', kind: 'team', project_id: null, key_prefix: team.key.slice(0, 12), storage: 'file' });
    noSecrets(r.stdout);
  });

  it('stores a project key for --project and the admin token for --admin under their own accounts', async () => {
    const project = await daemon.admin('POST', '/admin/teams/acme/projects', { name: 'Site' });
    const projectId = project.body.data.id as string;
    const pkey = (await daemon.admin('POST', `/admin/projects/${projectId}/key`)).body.data.key as string;
    const p = await runSvc(sb, ['login', '--url', daemon.url, '--project', projectId, '--key-stdin'], { input: pkey });
    expect(p.code, p.stderr).toBe(0);
    const a = await runSvc(sb, ['login', '--url', daemon.url, '--admin', '--key-stdin'], { input: daemon.adminToken });
    expect(a.code, a.stderr).toBe(0);
    const keys = JSON.parse(await readFile(credentialsFile(), 'utf8')).keys;
    expect(keys).toEqual({ 'default:project': pkey, 'default:admin': daemon.adminToken });
    const s = await runSvc(sb, ['auth', 'status', '--json', '--check']);
    expect(s.code).toBe(0);
    expect(s.json().keys).toEqual({
      team: null,
      project: { prefix: pkey.slice(0, 12), source: 'file', project_id: projectId, valid: true },
      admin: { prefix: daemon.adminToken.slice(0, 12), source: 'file', valid: true },
    });
  });
});

describe('svc auth status', () => {
  it('shows profile, URL, team, key prefix and the source of each, never the key', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    const r = await runSvc(sb, ['auth', 'status']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Profile:\s+default/);
    expect(r.stdout).toMatch(new RegExp(`URL:\\s+${daemon.url.replace(/[.]/g, '\\.')} \\(from profile\\)`));
    expect(r.stdout).toMatch(/Team:\s+acme \(from profile\)/);
    expect(r.stdout).toContain(`${team.key.slice(0, 12)}… (from file)`);
    noSecrets(r.stdout + r.stderr);
  });

  it('reports SVC_API_KEY, SVC_BASE_URL and SVC_TEAM over the profile, and flags over those', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    const other = await createTeam(daemon, `env-${Date.now().toString(36)}`);
    const env = envFor({ url: 'http://127.0.0.1:1/api/v1', key: other.key, team: other.team.slug });
    const r = await runSvc(sb, ['auth', 'status', '--json'], { env });
    expect(r.json()).toMatchObject({
      url: 'http://127.0.0.1:1/api/v1',
      url_source: 'env',
      team: other.team.slug,
      team_source: 'env',
      keys: { team: { prefix: other.key.slice(0, 12), source: 'env:SVC_API_KEY' } },
    });
    const f = await runSvc(sb, ['auth', 'status', '--json', '--url', daemon.url, '--team', 'flagteam'], { env });
    expect(f.json()).toMatchObject({ url: daemon.url, url_source: 'flag', team: 'flagteam', team_source: 'flag' });
  });

  it('shows the URL requests go to: a base URL from SVC_BASE_URL without /api/v1 gets it', async () => {
    const env = envFor({ url: 'http://127.0.0.1:1', key: team.key, team: 'acme' });
    const r = await runSvc(sb, ['auth', 'status', '--json'], { env });
    expect(r.json()).toMatchObject({ url: 'http://127.0.0.1:1/api/v1', url_source: 'env' });
    expect((await runSvc(sb, ['auth', 'status'], { env })).stdout).toMatch(/URL:\s+http:\/\/127\.0\.0\.1:1\/api\/v1 \(from SVC_BASE_URL\)/);
  });

  it('uses the key from SVC_API_KEY for requests, over the stored one', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    const r = await runSvc(sb, ['api', '/teams/{team}/environments'], { env: { SVC_API_KEY: 'svc_team_wrongwrongwrongwrongwrongwrong' } });
    expect(r.code).toBe(3);
    const ok = await runSvc(sb, ['api', '/teams/{team}/environments']);
    expect(ok.code).toBe(0);
    expect(ok.json()[0]).toMatchObject({ slug: 'default' });
  });

  it('--check marks a revoked key as refused and exits 3', async () => {
    const t = await createTeam(daemon, `rev-${Date.now().toString(36)}`);
    await loginSvc(sb, { url: daemon.url, team: t.team.slug, key: t.key });
    expect((await runSvc(sb, ['auth', 'status', '--check'])).code).toBe(0);
    await daemon.admin('DELETE', `/admin/teams/${t.team.slug}/keys/${t.keyId}`);
    const r = await runSvc(sb, ['auth', 'status', '--check']);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('REFUSED');
  });

  it('--check tells a working key asked about another team (exit 4) from a refused one', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    const r = await runSvc(sb, ['--team', 'not-acme', 'auth', 'status', '--check']);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("team 'not-acme' not found for it");
    expect(r.stdout).not.toContain('REFUSED');
    expect(r.stderr).toContain("team 'not-acme' not found for this key: check --team / SVC_TEAM");
  });

  it('exits 3 when no key is found anywhere', async () => {
    const r = await runSvc(sb, ['auth', 'status']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('svc login');
  });
});

describe('svc logout', () => {
  it('removes the stored key; later commands are not logged in', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    const r = await runSvc(sb, ['logout']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Removed the team key of profile default from the file');
    await expect(stat(credentialsFile())).rejects.toThrow();
    expect((await runSvc(sb, ['api', '/teams/{team}/environments'])).code).toBe(3);
    const again = await runSvc(sb, ['logout', '--json']);
    expect(again.json()).toEqual({ profile: 'default', removed: [], connection_secrets_removed: 0, forgot: false });
  });

  it('removes only the chosen profile, and --forget drops its settings too', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key });
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key, profile: 'work' });
    expect((await runSvc(sb, ['logout', '--profile', 'work', '--forget'])).code).toBe(0);
    const config = JSON.parse(await readFile(join(sb.configDir, 'config.json'), 'utf8'));
    expect(Object.keys(config.profiles)).toEqual(['default']);
    expect((await runSvc(sb, ['auth', 'status'])).code).toBe(0);
    // A profile that never had settings: nothing was forgotten, and the answer says so.
    const none = await runSvc(sb, ['logout', '--profile', 'nosuch', '--forget', '--json']);
    expect([none.code, none.json().forgot]).toEqual([0, false]);
    expect(none.stderr).toContain('No settings for profile nosuch to forget.');
  });
});

describe('a profile that does not reach a daemon', () => {
  it('a --profile no stored profile has says so and lists the stored ones', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key, profile: 'work' });
    const r = await runSvc(sb, ['--profile', 'wrok', 'automations', 'list']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^error: no daemon URL for profile 'wrok' \(no such profile; stored ones: [^)]*\bwork\b[^)]*\): run `svc login --profile wrok/);
  });

  it('the dev profile whose daemon is down points at svc dev, which runs it', async () => {
    await loginSvc(sb, { url: daemon.url, team: 'acme', key: team.key, profile: 'dev' });
    const config = join(sb.configDir, 'config.json');
    const stored = JSON.parse(await readFile(config, 'utf8'));
    stored.profiles.dev.url = 'http://127.0.0.1:9/api/v1';
    await writeFile(config, JSON.stringify(stored));
    const r = await runSvc(sb, ['--profile', 'dev', 'automations', 'list']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('connection refused (is the daemon running? `svc dev`)');
  });
});
