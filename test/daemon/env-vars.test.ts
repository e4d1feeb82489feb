import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let api: Requester;
let team: { id: string };
const SECRET = 'hunter2-very-secret-value-Ω';
const ev = '/teams/acme/env-vars';

beforeAll(async () => {
  d = await startTestDaemon();
  ({ api, team } = await createTeam(d, 'acme'));
  await d.admin('POST', '/admin/teams/acme/environments', { name: 'Staging', slug: 'staging' });
});
afterAll(() => d.destroy());

describe('env vars (spec 4.6-4.7, CONTRACT §7)', () => {
  it('sets a variable (200) and lists names and metadata only, never the value', async () => {
    const put = await api('PUT', `${ev}/API_TOKEN`, { value: SECRET });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ name: 'API_TOKEN', has_value: true, is_secret: true, environment_id: expect.any(String) });
    const list = await api('GET', ev);
    expect(list.status).toBe(200);
    expect(list.body.data).toContainEqual(put.body.data);
    expect(JSON.stringify(list.body)).not.toContain(SECRET);
  });

  it('takes names of every length the pattern allows: 128 characters set, list and delete', async () => {
    const longest = `A${'B'.repeat(127)}`;
    expect((await api('PUT', `${ev}/${longest}`, { value: 'v' })).status).toBe(200);
    expect((await api('GET', ev)).body.data.map((v: { name: string }) => v.name)).toContain(longest);
    expect((await api('DELETE', `${ev}/${longest}`)).status).toBe(200);
    const tooLong = await api('PUT', `${ev}/${longest}C`, { value: 'v' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('lists by team id as well as by slug', async () => {
    const byId = await api('GET', `/teams/${team.id}/env-vars`);
    expect(byId.status).toBe(200);
    expect(byId.body.data.map((v: { name: string }) => v.name)).toContain('API_TOKEN');
  });

  it('replaces on a second PUT and honours is_secret: false', async () => {
    await api('PUT', `${ev}/REGION`, { value: 'eu', is_secret: false });
    const again = await api('PUT', `${ev}/REGION`, { value: 'us', is_secret: false });
    expect(again.status).toBe(200);
    const list = (await api('GET', ev)).body.data.filter((v: { name: string }) => v.name === 'REGION');
    expect(list).toEqual([{ name: 'REGION', has_value: true, is_secret: false, environment_id: expect.any(String) }]);
  });

  it('selects environments by slug or id (id wins) on PUT, GET and DELETE', async () => {
    const envs = (await api('GET', '/teams/acme/environments')).body.data;
    const staging = envs.find((e: { slug: string }) => e.slug === 'staging');
    const def = envs.find((e: { slug: string }) => e.slug === 'default');
    const put = await api('PUT', `${ev}/DB_URL?environment_slug=staging`, { value: 'postgres://s' });
    expect(put.body.data.environment_id).toBe(staging.id);
    const viaBody = await api('PUT', `${ev}/DB_URL`, { value: 'postgres://d', environment_id: def.id });
    expect(viaBody.body.data.environment_id).toBe(def.id);
    const idWins = await api('PUT', `${ev}/DB_URL?environment_slug=default&environment_id=${staging.id}`, { value: 'postgres://s2' });
    expect(idWins.body.data.environment_id).toBe(staging.id);
    // an id in the body still wins over a slug in the query; of two slugs, the query's
    const bodyIdWins = await api('PUT', `${ev}/DB_URL?environment_slug=default`, { value: 'postgres://s3', environment_id: staging.id });
    expect(bodyIdWins.body.data.environment_id).toBe(staging.id);
    const queryIdWins = await api('PUT', `${ev}/DB_URL?environment_id=${staging.id}`, { value: 'postgres://s4', environment_id: def.id });
    expect(queryIdWins.body.data.environment_id).toBe(staging.id);
    const querySlugWins = await api('PUT', `${ev}/DB_URL?environment_slug=staging`, { value: 'postgres://s5', environment_slug: 'default' });
    expect(querySlugWins.body.data.environment_id).toBe(staging.id);
    const stagingOnly = (await api('GET', `${ev}?environment_slug=staging`)).body.data;
    expect(stagingOnly.every((v: { environment_id: string }) => v.environment_id === staging.id)).toBe(true);
    const del = await api('DELETE', `${ev}/DB_URL?environment_id=${staging.id}`);
    expect(del.body).toEqual({ data: { success: true } });
    const remaining = (await api('GET', ev)).body.data.filter((v: { name: string }) => v.name === 'DB_URL');
    expect(remaining.map((v: { environment_id: string }) => v.environment_id)).toEqual([def.id]);
  });

  it('answers 404 for a missing variable or an unknown environment, 400 for a bad name or a too-long value', async () => {
    expect((await api('DELETE', `${ev}/NOPE`)).status).toBe(404);
    expect((await api('PUT', `${ev}/X?environment_slug=nope`, { value: 'v' })).status).toBe(404);
    expect((await api('PUT', `${ev}/X?environment_id=00000000-0000-4000-8000-000000000000`, { value: 'v' })).status).toBe(404);
    const badName = await api('PUT', `${ev}/1BAD`, { value: 'v' });
    expect(badName.status).toBe(400);
    expect(badName.body.error.message).toContain('params.name');
    const big = await api('PUT', `${ev}/BIG`, { value: 'é'.repeat(40000) });
    expect(big.status).toBe(400);
    expect(JSON.stringify(big.body)).not.toContain('éé');
    expect((await api('PUT', `${ev}/NOVALUE`, {})).status).toBe(400);
  });

  it('refuses a value a process environment cannot hold (a NUL) or that is not Unicode text (a lone surrogate), storing nothing and echoing nothing', async () => {
    const nul = await api('PUT', `${ev}/WITH_NUL`, { value: 'sec\u0000ret' });
    expect([nul.status, nul.body.error?.message]).toEqual([400, 'body.value must not contain a NUL character (\\u0000): a process environment cannot hold one']);
    const lone = await api('PUT', `${ev}/WITH_SURROGATE`, undefined, { raw: '{"value":"sec\\ud800ret"}', headers: { 'content-type': 'application/json' } });
    expect([lone.status, lone.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(JSON.stringify([nul.body, lone.body])).not.toContain('sec');
    const names = (await api('GET', ev)).body.data.map((v: { name: string }) => v.name);
    expect(names).not.toContain('WITH_NUL');
    expect(names).not.toContain('WITH_SURROGATE');
  });

  it('keeps values out of every file of the data folder, and the master key file is 0600', async () => {
    await d.close();
    const files = await readdir(d.dataDir, { recursive: true });
    for (const f of files) {
      const path = join(d.dataDir, f.toString());
      if (!(await stat(path)).isFile()) continue;
      expect((await readFile(path)).includes(Buffer.from(SECRET)), f.toString()).toBe(false);
    }
    expect((await stat(join(d.dataDir, 'master.key'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(d.dataDir, 'admin-token'))).mode & 0o777).toBe(0o600);
    d = await startTestDaemon({ dataDir: d.dataDir });
    api = d.as((await d.admin('POST', '/admin/teams/acme/keys', {})).body.data.key);
    expect((await api('GET', ev)).body.data.map((v: { name: string }) => v.name)).toContain('API_TOKEN');
  });
});

describe('the size of a value', () => {
  it('is at most 65536 bytes of UTF-8, counted and named in bytes whatever the characters', async () => {
    expect((await api('PUT', `${ev}/SIZE_OK`, { value: 'a'.repeat(65536) })).status).toBe(200);
    for (const value of ['a'.repeat(65537), 'é'.repeat(40000)]) {
      const res = await api('PUT', `${ev}/SIZE_BIG`, { value });
      expect([res.status, res.body.error.message]).toEqual([400, 'body.value must be at most 65536 bytes']);
    }
    const names = (await api('GET', ev)).body.data.map((v: { name: string }) => v.name);
    expect(names).toContain('SIZE_OK');
    expect(names).not.toContain('SIZE_BIG');
  });
});
