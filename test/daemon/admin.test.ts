import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openRaw } from '../helpers/raw-http.js';

let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon();
});
afterAll(() => d.destroy());

describe('admin API', () => {
  it('creates a team (201) that starts admitted with a default environment', async () => {
    const res = await d.admin('POST', '/admin/teams', { slug: 'alpha', name: 'Alpha' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ slug: 'alpha', name: 'Alpha', execution_admitted: true });
    expect(res.body.data.id).toMatch(/^[0-9a-f-]{36}$/);
    const { api } = await createTeamKeyFor('alpha');
    const envs = await api('GET', '/teams/alpha/environments');
    expect(envs.status).toBe(200);
    expect(envs.body.data).toHaveLength(1);
    expect(envs.body.data[0]).toMatchObject({ slug: 'default', team_id: res.body.data.id, project_id: null });
    expect(envs.body.data[0].environment_id).toBe(envs.body.data[0].id);
  });

  it('answers 409 CONFLICT for a taken slug and 400 for a bad slug', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'taken' });
    const again = await d.admin('POST', '/admin/teams', { slug: 'taken' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    const bad = await d.admin('POST', '/admin/teams', { slug: 'Bad Slug' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(bad.body.error.message).toContain('body.slug');
  });

  it('lists and updates teams', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'beta' });
    const list = await d.admin('GET', '/admin/teams');
    expect(list.body.data.map((t: { slug: string }) => t.slug)).toContain('beta');
    const upd = await d.admin('PATCH', '/admin/teams/beta', { name: 'Beta Team', execution_admitted: false });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ name: 'Beta Team', execution_admitted: false });
    expect((await d.admin('PATCH', '/admin/teams/nope', { name: 'x' })).status).toBe(404);
  });

  it('shows a key once, lists it by prefix only, and revokes it at once', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'keys' });
    const created = await d.admin('POST', '/admin/teams/keys/keys', { name: 'ci' });
    expect(created.status).toBe(201);
    const { key, prefix, id } = created.body.data;
    expect(key).toMatch(/^svc_team_[0-9A-Za-z]{32,}$/);
    expect(prefix).toBe(key.slice(0, 12));
    const list = await d.admin('GET', '/admin/teams/keys/keys');
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.data[0]).toMatchObject({ id, name: 'ci', prefix, revoked_at: null });

    const api = d.as(key);
    expect((await api('GET', '/teams/keys/environments')).status).toBe(200);
    const listed = await d.admin('GET', '/admin/teams/keys/keys');
    expect(listed.body.data[0].last_used_at).not.toBeNull();

    const revoked = await d.admin('DELETE', `/admin/teams/keys/keys/${id}`);
    expect(revoked.body).toEqual({ data: { success: true } });
    const after = await api('GET', '/teams/keys/environments');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('UNAUTHORIZED');
  });

  it('creates a key from a POST without any body (its name is optional), and refuses unknown fields', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'nobody' });
    const bare = await d.admin('POST', '/admin/teams/nobody/keys');
    expect(bare.status).toBe(201);
    expect(bare.body.data.key).toMatch(/^svc_team_/);
    const blank = await d.admin('POST', '/admin/teams/nobody/keys', undefined, { raw: '', headers: { 'content-type': 'application/json' } });
    expect(blank.status).toBe(201);
    const stray = await d.admin('POST', '/admin/teams/nobody/keys', { nmae: 'typo' });
    expect(stray.status).toBe(400);
    expect(stray.body.error.message).toContain('body.nmae');
    expect((await d.admin('GET', '/admin/teams/nobody/keys')).body.data).toHaveLength(2);
  });

  it('creates projects and rotates project keys, revoking the previous one', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'proj' });
    const p = await d.admin('POST', '/admin/teams/proj/projects', { name: 'Web', description: 'site', availableTasks: ['build'] });
    expect(p.status).toBe(201);
    expect(p.body.data).toMatchObject({ name: 'Web', description: 'site', availableTasks: ['build'] });
    expect(p.body.data.team_id).toBeTruthy();
    const k1 = (await d.admin('POST', `/admin/projects/${p.body.data.id}/key`)).body.data;
    expect(k1.key).toMatch(/^svc_proj_/);
    expect((await d.as(k1.key)('GET', `/projects/${p.body.data.id}`)).status).toBe(200);
    // A stray field is refused before anything happens: the current key stays valid.
    const stray = await d.admin('POST', `/admin/projects/${p.body.data.id}/key`, { bogus: 1 });
    expect(stray.status).toBe(400);
    expect((await d.as(k1.key)('GET', `/projects/${p.body.data.id}`)).status).toBe(200);
    // An id that is not a UUID is 400 here, as on the other admin routes; an unknown one 404.
    for (const id of [`urn:uuid:${p.body.data.id}`, p.body.data.id.replaceAll('-', ''), 'nope']) {
      const malformed = await d.admin('POST', `/admin/projects/${encodeURIComponent(id)}/key`);
      expect([malformed.status, malformed.body.error.message]).toEqual([400, 'params.id must be a valid uuid']);
    }
    expect((await d.admin('POST', '/admin/projects/00000000-0000-4000-8000-000000000000/key')).status).toBe(404);
    expect((await d.as(k1.key)('GET', `/projects/${p.body.data.id}`)).status).toBe(200);
    const k2 = (await d.admin('POST', `/admin/projects/${p.body.data.id}/key`)).body.data;
    expect((await d.as(k1.key)('GET', `/projects/${p.body.data.id}`)).status).toBe(401);
    expect((await d.as(k2.key)('GET', `/projects/${p.body.data.id}`)).status).toBe(200);
  });

  it('answers 401 to a request under way with a project key rotated meanwhile, and does nothing of it', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'inflight' });
    const p = (await d.admin('POST', '/admin/teams/inflight/projects', { name: 'Web' })).body.data;
    const env = (await d.admin('POST', '/admin/teams/inflight/environments', { name: 'Web env', slug: 'web', project_id: p.id })).body.data;
    const old = (await d.admin('POST', `/admin/projects/${p.id}/key`)).body.data.key;
    const { socket, pathname, received, closed } = await openRaw(d.url);
    const body = JSON.stringify({ name: 'renamed in flight' });
    socket.write(
      `PATCH ${pathname}/projects/${p.id}/environments/${env.id} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
        `Authorization: Bearer ${old}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 4)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100)); // the headers are in: the key was good then
    const fresh = (await d.admin('POST', `/admin/projects/${p.id}/key`)).body.data.key;
    socket.write(body.slice(4));
    await closed;
    expect(received()).toMatch(/^HTTP\/1\.1 401 /);
    expect(received()).toContain('this API key has been revoked');
    const now = await d.as(fresh)('PATCH', `/projects/${p.id}/environments/${env.id}`, { description: 'still named as before' });
    expect(now.body.data.name).toBe('Web env');
  });

  it('creates environments with 409 on a taken slug in the team', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'envs' });
    const e = await d.admin('POST', '/admin/teams/envs/environments', { name: 'Staging', slug: 'staging', description: 'pre-prod' });
    expect(e.status).toBe(201);
    expect(e.body.data).toMatchObject({ slug: 'staging', name: 'Staging', description: 'pre-prod', project_id: null });
    const dup = await d.admin('POST', '/admin/teams/envs/environments', { name: 'Staging 2', slug: 'staging' });
    expect(dup.status).toBe(409);
  });

  it('refuses a blank or multi-line name for a team, a key, a project or an environment, and stores nothing', async () => {
    await d.admin('POST', '/admin/teams', { slug: 'names' });
    const project = (await d.admin('POST', '/admin/teams/names/projects', { name: 'P' })).body.data;
    const env = (await d.admin('POST', '/admin/teams/names/environments', { name: 'E', slug: 'e', project_id: project.id })).body.data;
    const projectKey = (await d.admin('POST', `/admin/projects/${project.id}/key`)).body.data.key;
    for (const [name, message] of [
      ['   ', 'body.name must not be blank'],
      ['\u200b', 'body.name must not be blank'],
      ['x\u0000y', 'body.name must be one line of text'],
      ['two\nlines', 'body.name must be one line of text'],
    ] as const) {
      const attempts = [
        await d.admin('POST', '/admin/teams', { slug: 'names-2', name }),
        await d.admin('PATCH', '/admin/teams/names', { name }),
        await d.admin('POST', '/admin/teams/names/keys', { name }),
        await d.admin('POST', '/admin/teams/names/projects', { name }),
        await d.admin('POST', '/admin/teams/names/environments', { name, slug: 'e2' }),
        await d.as(projectKey)('PATCH', `/projects/${project.id}/environments/${env.id}`, { name }),
      ];
      for (const res of attempts) {
        expect(res.status, JSON.stringify(name)).toBe(400);
        expect(res.body.error.message).toContain(message);
      }
    }
    expect((await d.admin('GET', '/admin/teams')).body.data.filter((t: any) => t.slug.startsWith('names')).map((t: any) => t.name)).toEqual(['names']);
    expect((await d.as(projectKey)('GET', `/projects/${project.id}`)).status).toBe(200);
  });

  it('deletes a team with everything it owns', async () => {
    const { api, key } = await createTeam(d, 'doomed');
    await api('PUT', '/teams/doomed/env-vars/TOKEN', { value: 'x' });
    const del = await d.admin('DELETE', '/admin/teams/doomed');
    expect(del.body).toEqual({ data: { success: true } });
    expect((await d.as(key)('GET', '/teams/doomed/environments')).status).toBe(401);
    expect((await d.admin('GET', '/admin/teams')).body.data.map((t: { slug: string }) => t.slug)).not.toContain('doomed');
  });

  it('refuses team and project keys on admin routes, and the admin token on team routes', async () => {
    const { key } = await createTeam(d, 'mixed');
    expect((await d.as(key)('GET', '/admin/teams')).status).toBe(401);
    expect((await d.admin('GET', '/teams/mixed/environments')).status).toBe(401);
  });
});

async function createTeamKeyFor(slug: string) {
  const key = (await d.admin('POST', `/admin/teams/${slug}/keys`, {})).body.data.key as string;
  return { key, api: d.as(key) };
}
