import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let teamApi: Requester;
let project: { id: string };
let projectApi: Requester;
let env: { id: string };

beforeAll(async () => {
  d = await startTestDaemon();
  ({ api: teamApi } = await createTeam(d, 'acme'));
  project = (await d.admin('POST', '/admin/teams/acme/projects', { name: 'Web', description: 'site', availableTasks: ['deploy', 'test'] })).body.data;
  projectApi = d.as((await d.admin('POST', `/admin/projects/${project.id}/key`)).body.data.key);
  env = (await d.admin('POST', '/admin/teams/acme/environments', { name: 'Web prod', slug: 'web-prod', project_id: project.id })).body.data;
});
afterAll(() => d.destroy());

describe('project routes (spec 4.9)', () => {
  it('returns the project with a project key', async () => {
    const res = await projectApi('GET', `/projects/${project.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: project.id, name: 'Web', description: 'site', availableTasks: ['deploy', 'test'] });
  });

  it('answers 404 NOT_FOUND for another project id', async () => {
    const other = (await d.admin('POST', '/admin/teams/acme/projects', { name: 'Other' })).body.data;
    const res = await projectApi('GET', `/projects/${other.id}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await projectApi('GET', '/projects/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('answers 404, not 400, for ids that are not UUIDs: they name nothing the key can reach', async () => {
    for (const [method, path] of [
      ['GET', '/projects/not-a-uuid'],
      ['PATCH', `/projects/${project.id}/environments/not-a-uuid`],
      ['DELETE', `/projects/${project.id}/schedules/not-a-uuid`],
      ['GET', '/projects/not-a-uuid/schedules'],
    ] as const) {
      const res = await projectApi(method, path, method === 'PATCH' ? { name: 'x' } : undefined);
      expect([method, path, res.status, res.body.error?.code]).toEqual([method, path, 404, 'NOT_FOUND']);
    }
  });

  it("updates one of the project's environments", async () => {
    const res = await projectApi('PATCH', `/projects/${project.id}/environments/${env.id}`, { name: 'Web production', description: 'live' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: env.id, name: 'Web production', description: 'live', slug: 'web-prod', project_id: project.id });
    const listed = (await teamApi('GET', '/teams/acme/environments')).body.data.find((e: { id: string }) => e.id === env.id);
    expect(listed.name).toBe('Web production');
    const teamDefault = (await teamApi('GET', '/teams/acme/environments')).body.data.find((e: { slug: string }) => e.slug === 'default');
    expect((await projectApi('PATCH', `/projects/${project.id}/environments/${teamDefault.id}`, { name: 'x' })).status).toBe(404);
    expect((await projectApi('PATCH', `/projects/${project.id}/environments/${env.id}`, { name: 7 })).status).toBe(400);
  });

  it("lists and deletes the schedules of automations in the project's environments", async () => {
    const a = (
      await teamApi('POST', '/teams/acme/automations', {
        name: 'web nightly',
        prompt: 'p',
        environment_id: env.id,
        triggers: [
          { kind: 'schedule', cron_expression: '0 1 * * *' },
          { kind: 'schedule', cron_expression: '0 2 * * *' },
        ],
      })
    ).body.data;
    const list = await projectApi('GET', `/projects/${project.id}/schedules`);
    expect(list.body.data.map((s: { id: string }) => s.id).sort()).toEqual(a.triggers.map((t: { id: string }) => t.id).sort());
    const del = await projectApi('DELETE', `/projects/${project.id}/schedules/${a.triggers[0].id}`);
    expect(del.status).toBe(200);
    expect(del.body.data).toEqual({ success: true, automation_deleted: false });
    const after = (await teamApi('GET', `/teams/acme/automations/${a.id}`)).body.data;
    expect(after.triggers).toHaveLength(1);
    expect(Date.parse(after.updated_at)).toBeGreaterThan(Date.parse(a.updated_at));
    expect((await projectApi('DELETE', `/projects/${project.id}/schedules/${a.triggers[0].id}`)).status).toBe(404);
    const last = await projectApi('DELETE', `/projects/${project.id}/schedules/${a.triggers[1].id}`);
    expect(last.body.data).toEqual({ success: true, automation_deleted: true });
    expect((await teamApi('GET', `/teams/acme/automations/${a.id}`)).status).toBe(404);
  });

  it('does not reach schedules outside the project', async () => {
    const a = (await teamApi('POST', '/teams/acme/automations', { name: 'team-wide', prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '0 1 * * *' }] })).body.data;
    expect((await projectApi('DELETE', `/projects/${project.id}/schedules/${a.triggers[0].id}`)).status).toBe(404);
  });
});
