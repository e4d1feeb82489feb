// `svc projects ...` as the real bin/svc.js with a project key, against a real daemon: the
// project comes from the argument, --project, SVC_PROJECT_ID or the profile `svc login --project`
// stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliSandbox, envFor, makeSandbox, runSvc } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { plainText, ptyAvailable, runInPty } from '../helpers/pty.js';

let d: TestDaemon;
let sb: CliSandbox;
let api: Requester;
let teamKey: string;
let projectId: string;
let projectKey: string;
let envId: string;
let otherProject: { id: string; key: string };

const svc = (args: string[], env?: Record<string, string | undefined>) => runSvc(sb, args, { env });

async function createProject(team: string, name: string) {
  const p = await d.admin('POST', `/admin/teams/${team}/projects`, { name, description: `${name} project`, availableTasks: ['deploy'] });
  const k = await d.admin('POST', `/admin/projects/${p.body.data.id}/key`);
  return { id: p.body.data.id as string, key: k.body.data.key as string };
}

/** An automation in the project's environment with the given cron schedules. */
async function scheduledAutomation(name: string, crons: string[]) {
  const r = await api('POST', '/teams/acme/automations', {
    name,
    prompt: 'Nightly report',
    environment_id: envId,
    triggers: crons.map((cron_expression) => ({ kind: 'schedule', cron_expression, timezone: 'Europe/Paris' })),
  });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; triggers: { id: string }[] };
}

beforeAll(async () => {
  d = await startTestDaemon();
  ({ key: teamKey, api } = await createTeam(d, 'acme'));
  ({ id: projectId, key: projectKey } = await createProject('acme', 'Website'));
  otherProject = await createProject('acme', 'Other');
  const env = await d.admin('POST', '/admin/teams/acme/environments', { name: 'Web', slug: 'web', project_id: projectId });
  envId = env.body.data.id;
  sb = await makeSandbox({ env: { ...envFor({ url: d.url, key: projectKey }), SVC_PROJECT_ID: projectId } });
});
afterAll(async () => {
  await d.destroy();
  await sb.cleanup();
});

describe('svc projects get', () => {
  it('shows the project of SVC_PROJECT_ID as fields', async () => {
    const r = await svc(['projects', 'get']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ID:\\s+${projectId}$`, 'm'));
    expect(r.stdout).toMatch(/^Name:\s+Website$/m);
    expect(r.stdout).toMatch(/^Tasks:\s+deploy$/m);
  });

  it('--json prints only the project; the argument and --project name it too', async () => {
    const byArg = await svc(['projects', 'get', projectId, '--json'], { SVC_PROJECT_ID: undefined });
    expect(byArg.json()).toEqual({ id: projectId, name: 'Website', description: 'Website project', availableTasks: ['deploy'] });
    const byFlag = await svc(['projects', 'get', '--project', projectId, '--json'], { SVC_PROJECT_ID: undefined });
    expect(byFlag.json().id).toBe(projectId);
  });

  it('uses the project and key stored by `svc login --project ID` when nothing else names them', async () => {
    const login = await runSvc(sb, ['login', '--profile', 'web', '--project', projectId, '--url', d.url, '--key-stdin'], {
      input: projectKey,
      env: { SVC_API_KEY: undefined, SVC_PROJECT_ID: undefined, SVC_BASE_URL: undefined },
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await svc(['--profile', 'web', 'projects', 'get', '--json'], { SVC_API_KEY: undefined, SVC_PROJECT_ID: undefined, SVC_BASE_URL: undefined });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().id).toBe(projectId);
  });

  it('without any project id it is a usage error naming --project and SVC_PROJECT_ID', async () => {
    const r = await svc(['projects', 'get'], { SVC_PROJECT_ID: undefined });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--project ID');
    expect(r.stderr).toContain('SVC_PROJECT_ID');
  });

  it("another project's id exits 4; a team key in SVC_API_KEY is no project key (exit 3)", async () => {
    expect((await svc(['projects', 'get', otherProject.id])).code).toBe(4);
    const asTeam = await svc(['projects', 'get'], { SVC_API_KEY: teamKey });
    expect(asTeam.code).toBe(3);
    expect(asTeam.stderr).toMatch(/SVC_API_KEY holds a team key \(svc_team_…\), and this command needs a project key: set SVC_API_KEY to one, or unset it/);
  });
});

describe('svc projects env update', () => {
  it('renames and describes an environment of the project', async () => {
    const r = await svc(['projects', 'env', 'update', envId, '--name', 'Web (EU)', '--description', 'Frankfurt']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Name:\s+Web \(EU\)$/m);
    expect(r.stdout).toMatch(/^Description:\s+Frankfurt$/m);
    expect(r.stderr).toContain('Updated environment web.');
    const json = await svc(['projects', 'env', 'update', envId, '--description', '', '--json']);
    expect(json.json()).toMatchObject({ id: envId, name: 'Web (EU)', description: '', project_id: projectId });
  });

  it('without --name or --description it is a usage error (2)', async () => {
    const r = await svc(['projects', 'env', 'update', envId]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--name');
  });

  it('an environment outside the project exits 4', async () => {
    const envs = (await api('GET', '/teams/acme/environments')).body.data as { id: string; slug: string }[];
    const teamDefault = envs.find((e) => e.slug === 'default')!;
    expect((await svc(['projects', 'env', 'update', teamDefault.id, '--name', 'x'])).code).toBe(4);
  });
});

describe('svc projects schedules', () => {
  it('list shows the schedules of automations in the project, with their automation', async () => {
    await scheduledAutomation('nightly', ['0 3 * * *', '30 4 * * 1']);
    const r = await svc(['projects', 'schedules', 'list']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+AUTOMATION\s+WHEN\s+TIMEZONE\s+NEXT RUN\s+ENABLED\s+STATUS$/);
    expect(lines).toContainEqual(expect.stringMatching(/^[0-9a-f-]{36}\s+nightly\s+0 3 \* \* \*\s+Europe\/Paris\s+\S+\s+yes\s+active$/));
    const json = await svc(['projects', 'schedules', 'list', '--json']);
    const schedules = json.json<{ automation_name: string; cron_expression: string }[]>();
    expect(schedules.map((s) => s.cron_expression).sort()).toEqual(['0 3 * * *', '30 4 * * 1']);
  });

  it('delete without --yes and no terminal is a usage error naming --yes; nothing is deleted', async () => {
    const [first] = (await svc(['projects', 'schedules', 'list', '--json'])).json() as { id: string }[];
    const r = await svc(['projects', 'schedules', 'delete', first.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect((await svc(['projects', 'schedules', 'list', '--json'])).json()).toHaveLength(2);
  });

  it('delete --yes removes a schedule; deleting the last one removes its automation too', async () => {
    const schedules = (await svc(['projects', 'schedules', 'list', '--json'])).json() as { id: string; automation_id: string }[];
    const first = await svc(['projects', 'schedules', 'delete', schedules[0].id, '--yes', '--json']);
    expect(first.code).toBe(0);
    expect(first.json()).toEqual({ success: true, automation_deleted: false });

    const last = await svc(['projects', 'schedules', 'delete', schedules[1].id, '--yes']);
    expect(last.code).toBe(0);
    expect(last.stderr).toMatch(/automation was deleted too/);
    expect((await api('GET', `/teams/acme/automations/${schedules[1].automation_id}`)).status).toBe(404);

    const again = await svc(['projects', 'schedules', 'delete', schedules[1].id, '--yes']);
    expect(again.code).toBe(4);
  });

  it('list with no schedules says so on stderr and prints nothing on stdout', async () => {
    const r = await svc(['projects', 'schedules', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('No schedules in this project.');
  });

  it.skipIf(!ptyAvailable())('delete on a terminal names the automation and asks first', async () => {
    const a = await scheduledAutomation('asked', ['15 2 * * *']);
    const no = await runInPty(sb, ['projects', 'schedules', 'delete', a.triggers[0].id], { answers: [{ when: /\[y\/N\]/, send: 'n\r' }] });
    expect(no.code).toBe(2);
    expect(plainText(no.output)).toContain(`Delete schedule ${a.triggers[0].id} of automation 'asked'?`);
    const yes = await runInPty(sb, ['projects', 'schedules', 'delete', a.triggers[0].id], { answers: [{ when: /\[y\/N\]/, send: 'y\r' }] });
    expect(yes.code).toBe(0);
    expect((await svc(['projects', 'schedules', 'list', '--json'])).json()).toEqual([]);
  });
});
