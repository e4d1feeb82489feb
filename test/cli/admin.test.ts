// `svc admin ...` as the real bin/svc.js, against a real daemon, with the admin token from
// SVC_ADMIN_TOKEN (or a profile): teams, keys, projects and environments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliSandbox, envFor, makeSandbox, runSvc } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { plainText, ptyAvailable, runInPty } from '../helpers/pty.js';

let d: TestDaemon;
let sb: CliSandbox;

const svc = (args: string[], env?: Record<string, string | undefined>, input?: string) => runSvc(sb, args, { env, input });

beforeAll(async () => {
  d = await startTestDaemon();
  sb = await makeSandbox({ env: envFor({ url: d.url, adminToken: d.adminToken }) });
});
afterAll(async () => {
  await d.destroy();
  await sb.cleanup();
});

describe('svc admin teams', () => {
  it('create prints the team as fields and list shows it in aligned columns', async () => {
    const created = await svc(['admin', 'teams', 'create', 'acme', '--name', 'Acme Inc.']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Slug:\s+acme$/m);
    expect(created.stdout).toMatch(/^Name:\s+Acme Inc\.$/m);
    expect(created.stdout).toMatch(/^Admitted:\s+yes$/m);
    expect(created.stderr).toContain('Created team acme.');

    const list = await svc(['admin', 'teams', 'list']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+ADMITTED\s+ID\s+CREATED$/);
    expect(lines.some((l) => /^acme\s+Acme Inc\.\s+yes\s+[0-9a-f-]{36}\s+\S+$/.test(l))).toBe(true);
  });

  it('--json prints only the data: the created team, then the array of teams', async () => {
    const created = await svc(['admin', 'teams', 'create', 'json-team', '--json']);
    expect(created.code).toBe(0);
    expect(created.json()).toMatchObject({ slug: 'json-team', name: 'json-team', execution_admitted: true });
    const list = await svc(['admin', 'teams', 'list', '--json']);
    const teams = list.json<{ slug: string }[]>();
    expect(teams.map((t) => t.slug)).toEqual(expect.arrayContaining(['acme', 'json-team']));
  });

  it('create exits 5 on a taken slug and on an invalid one, with nothing on stdout', async () => {
    const taken = await svc(['admin', 'teams', 'create', 'acme']);
    expect(taken.code).toBe(5);
    expect(taken.stdout).toBe('');
    expect(taken.stderr).toMatch(/CONFLICT, HTTP 409/);
    const invalid = await svc(['admin', 'teams', 'create', 'Not_A_Slug']);
    expect(invalid.code).toBe(5);
    expect(invalid.stderr).toMatch(/VALIDATION_ERROR, HTTP 400/);
  });

  it('update changes the name and admission; without a change it is a usage error (2)', async () => {
    await svc(['admin', 'teams', 'create', 'upd']);
    const r = await svc(['admin', 'teams', 'update', 'upd', '--name', 'Updated', '--admitted', 'false', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ slug: 'upd', name: 'Updated', execution_admitted: false });
    const back = await svc(['admin', 'teams', 'update', 'upd', '--admitted', 'true', '--json']);
    expect(back.json().execution_admitted).toBe(true);

    const nothing = await svc(['admin', 'teams', 'update', 'upd']);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('--admitted');
    const bad = await svc(['admin', 'teams', 'update', 'upd', '--admitted', 'maybe']);
    expect(bad.code).toBe(2);
  });

  it('update and delete of an unknown team exit 4', async () => {
    expect((await svc(['admin', 'teams', 'update', 'nope', '--name', 'x'])).code).toBe(4);
    expect((await svc(['admin', 'teams', 'delete', 'nope', '--yes'])).code).toBe(4);
  });

  it('delete without --yes and without a terminal is a usage error naming --yes, and deletes nothing', async () => {
    await svc(['admin', 'teams', 'create', 'doomed']);
    const r = await svc(['admin', 'teams', 'delete', 'doomed']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    const teams = (await d.admin('GET', '/admin/teams')).body.data as { slug: string }[];
    expect(teams.some((t) => t.slug === 'doomed')).toBe(true);

    const yes = await svc(['admin', 'teams', 'delete', 'doomed', '--yes', '--json']);
    expect(yes.code).toBe(0);
    expect(yes.json()).toEqual({ success: true });
    const after = (await d.admin('GET', '/admin/teams')).body.data as { slug: string }[];
    expect(after.some((t) => t.slug === 'doomed')).toBe(false);
  });

  it.skipIf(!ptyAvailable())('delete on a terminal asks first: "n" keeps the team (exit 2), "y" deletes it', async () => {
    await svc(['admin', 'teams', 'create', 'asked']);
    const no = await runInPty(sb, ['admin', 'teams', 'delete', 'asked'], { answers: [{ when: /\[y\/N\]/, send: 'n\r' }] });
    expect(no.code).toBe(2);
    expect(plainText(no.output)).toContain('Delete team asked');
    expect((await d.admin('GET', '/admin/teams')).body.data.some((t: { slug: string }) => t.slug === 'asked')).toBe(true);

    const yes = await runInPty(sb, ['admin', 'teams', 'delete', 'asked'], { answers: [{ when: /\[y\/N\]/, send: 'y\r' }] });
    expect(yes.code).toBe(0);
    expect(plainText(yes.output)).toContain('Deleted team asked.');
    expect((await d.admin('GET', '/admin/teams')).body.data.some((t: { slug: string }) => t.slug === 'asked')).toBe(false);
  });
});

describe('svc admin keys', () => {
  it('create prints only the key on stdout, warns on stderr that it will not be shown again, and the key works', async () => {
    await svc(['admin', 'teams', 'create', 'keyed']);
    const r = await svc(['admin', 'keys', 'create', 'keyed', '--name', 'ci']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^svc_team_[A-Za-z0-9]{32,}\n$/);
    const key = r.stdout.trim();
    expect(r.stderr).toMatch(/will not be shown again/);
    expect(r.stderr).not.toContain(key);
    expect(r.stderr).toContain(key.slice(0, 12));

    const works = await svc(['sessions', 'list', '--json'], { SVC_API_KEY: key, SVC_TEAM: 'keyed' });
    expect(works.code).toBe(0);
    expect(works.json()).toEqual([]);
  });

  it('create --json prints the created key object', async () => {
    const r = await svc(['admin', 'keys', 'create', 'keyed', '--json']);
    expect(r.code).toBe(0);
    const k = r.json();
    expect(k.key).toMatch(/^svc_team_/);
    expect(k.prefix).toBe(k.key.slice(0, 12));
    expect(k.name).toBeNull();
  });

  it('list shows prefixes, never keys; revoke makes the key refused (exit 3)', async () => {
    await svc(['admin', 'teams', 'create', 'rev']);
    const key = (await svc(['admin', 'keys', 'create', 'rev', '--name', 'old'])).stdout.trim();
    const listed = await svc(['admin', 'keys', 'list', 'rev', '--json']);
    const keys = listed.json<{ id: string; name: string; prefix: string; revoked_at: string | null }[]>();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ name: 'old', prefix: key.slice(0, 12), revoked_at: null });
    expect(listed.stdout).not.toContain(key);
    expect(keys[0]).not.toHaveProperty('key');

    const table = await svc(['admin', 'keys', 'list', 'rev']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+CREATED\s+LAST USED\s+REVOKED$/);
    expect(table.stdout).toContain(`${key.slice(0, 12)}…`);
    expect(table.stdout).not.toContain(key);

    const revoked = await svc(['admin', 'keys', 'revoke', 'rev', keys[0].id, '--json']);
    expect(revoked.code).toBe(0);
    expect(revoked.json()).toEqual({ success: true });
    expect((await svc(['admin', 'keys', 'list', 'rev', '--json'])).json()[0].revoked_at).not.toBeNull();

    const refused = await svc(['sessions', 'list'], { SVC_API_KEY: key, SVC_TEAM: 'rev' });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/UNAUTHORIZED/);
    expect(refused.stderr).toContain('SVC_API_KEY');
    expect(refused.stderr).not.toContain(key);
  });

  it('revoking an unknown key exits 4; an id that is not a UUID exits 5', async () => {
    expect((await svc(['admin', 'keys', 'revoke', 'rev', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
    expect((await svc(['admin', 'keys', 'revoke', 'rev', 'not-an-id'])).code).toBe(5);
  });

  it('keys of an unknown team: exit 4', async () => {
    expect((await svc(['admin', 'keys', 'list', 'ghost'])).code).toBe(4);
    const created = await svc(['admin', 'keys', 'create', 'ghost']);
    expect(created.code).toBe(4);
    // The team is the argument here: no hint at --team or SVC_TEAM.
    expect(created.stderr).not.toContain('SVC_TEAM');
  });
});

describe('svc admin projects and environments', () => {
  it('projects create takes repeatable --task; projects key prints the project key once and revokes the previous one', async () => {
    await svc(['admin', 'teams', 'create', 'proj']);
    const created = await svc(['admin', 'projects', 'create', 'proj', '--name', 'Website', '--description', 'The site', '--task', 'deploy', '--task', 'triage', '--json']);
    expect(created.code).toBe(0);
    const project = created.json();
    expect(project).toMatchObject({ name: 'Website', description: 'The site', availableTasks: ['deploy', 'triage'] });

    const human = await svc(['admin', 'projects', 'create', 'proj', '--name', 'Plain']);
    expect(human.stdout).toMatch(/^Name:\s+Plain$/m);
    expect(human.stdout).toMatch(/^Tasks:\s+-$/m);

    const first = await svc(['admin', 'projects', 'key', project.id]);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^svc_proj_[A-Za-z0-9]{32,}\n$/);
    expect(first.stderr).toMatch(/will not be shown again/);
    const oldKey = first.stdout.trim();
    const projectEnv = { SVC_API_KEY: oldKey, SVC_PROJECT_ID: project.id };
    expect((await svc(['projects', 'get', '--json'], projectEnv)).json().name).toBe('Website');

    const second = await svc(['admin', 'projects', 'key', project.id, '--json']);
    expect(second.json().key).toMatch(/^svc_proj_/);
    expect((await svc(['projects', 'get'], projectEnv)).code).toBe(3);
    expect((await svc(['projects', 'get', '--json'], { ...projectEnv, SVC_API_KEY: second.json().key })).code).toBe(0);
  });

  it('projects create without --name is a usage error (2); for an unknown team it exits 4', async () => {
    const r = await svc(['admin', 'projects', 'create', 'proj']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--name');
    expect((await svc(['admin', 'projects', 'create', 'ghost', '--name', 'x'])).code).toBe(4);
    expect((await svc(['admin', 'projects', 'key', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
  });

  it('environments create, for the team or one of its projects; a taken slug exits 5', async () => {
    await svc(['admin', 'teams', 'create', 'envs']);
    const project = (await svc(['admin', 'projects', 'create', 'envs', '--name', 'P', '--json'])).json();
    const plain = await svc(['admin', 'environments', 'create', 'envs', '--name', 'Staging', '--slug', 'staging', '--description', 'pre-prod']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^Slug:\s+staging$/m);
    expect(plain.stdout).toMatch(/^Project:\s+-$/m);

    const forProject = await svc(['admin', 'environments', 'create', 'envs', '--name', 'Web', '--slug', 'web', '--project', project.id, '--json']);
    expect(forProject.code).toBe(0);
    expect(forProject.json()).toMatchObject({ slug: 'web', name: 'Web', project_id: project.id });

    const taken = await svc(['admin', 'environments', 'create', 'envs', '--name', 'Again', '--slug', 'staging']);
    expect(taken.code).toBe(5);
    expect(taken.stderr).toMatch(/CONFLICT/);
    const missing = await svc(['admin', 'environments', 'create', 'envs', '--name', 'No slug']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--slug');
  });
});

describe('svc admin credentials', () => {
  it('without an admin token exits 3 and says how to give one', async () => {
    const r = await svc(['admin', 'teams', 'list'], { SVC_ADMIN_TOKEN: undefined });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/svc login --admin|SVC_ADMIN_TOKEN/);
    expect(r.stdout).toBe('');
  });

  it('a wrong admin token exits 3; a team key is no admin token either', async () => {
    const wrong = await svc(['admin', 'teams', 'list'], { SVC_ADMIN_TOKEN: 'svc_admin_wrongwrongwrongwrongwrongwrongwrong12' });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).not.toContain('wrongwrong');
    await svc(['admin', 'teams', 'create', 'plain']);
    const teamKey = (await svc(['admin', 'keys', 'create', 'plain'])).stdout.trim();
    const asTeam = await svc(['admin', 'teams', 'list'], { SVC_ADMIN_TOKEN: teamKey });
    expect(asTeam.code).toBe(3);
    expect(asTeam.stderr).not.toContain(teamKey);
  });

  it('uses the admin token stored for a profile with `svc login --admin` (--profile after the command)', async () => {
    const login = await runSvc(sb, ['login', '--profile', 'ops', '--admin', '--url', d.url, '--key-stdin'], {
      input: d.adminToken,
      env: { SVC_ADMIN_TOKEN: undefined, SVC_BASE_URL: undefined },
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await svc(['admin', 'teams', 'list', '--profile', 'ops', '--json'], { SVC_ADMIN_TOKEN: undefined, SVC_BASE_URL: undefined });
    expect(r.code, r.stderr).toBe(0);
    expect(Array.isArray(r.json())).toBe(true);
  });
});
