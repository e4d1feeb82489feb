// Session routes and every follow-up rule (spec 4.2, CONTRACT §3), with the default record runner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORDED_MESSAGE } from '../../daemon/runner/record.js';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let api: Requester;
let other: Requester;
const base = '/teams/acme/sessions';

beforeAll(async () => {
  d = await startTestDaemon();
  ({ api } = await createTeam(d, 'acme'));
  ({ api: other } = await createTeam(d, 'other'));
});
afterAll(() => d.destroy());

async function start(prompt = 'hello', body: Record<string, unknown> = {}) {
  const res = await api('POST', base, { prompt, ...body });
  expect(res.status).toBe(201);
  return res.body.data;
}

describe('POST /teams/:slug/sessions', () => {
  it('starts a root conversational main session in the team default environment and the record runner completes it', async () => {
    const envs = await api('GET', '/teams/acme/environments');
    const defaultEnv = envs.body.data.find((e: any) => e.slug === 'default');
    const s = await start('Summarise the day');
    expect(s).toMatchObject({
      kind: 'conversational', persona: 'main', status: 'completed', prompt: 'Summarise the day', parent_session_id: null,
      automation_id: null, trigger_id: null, idempotency_key: null, event: null, environment_id: defaultEnv.id, last_error: null,
    });
    expect(s.started_at).not.toBeNull();
    expect(s.completed_at).not.toBeNull();
  });

  it('finds a session, and filters by automation, whatever the case of the ids in the path and query', async () => {
    const s = await start('case');
    const upper = s.session_id.toUpperCase();
    const got = await api('GET', `${base}/${upper}`);
    expect(got.status).toBe(200);
    expect(got.body.data.session_id).toBe(s.session_id);
    expect((await api('POST', `${base}/${upper}/messages`, { message: 'again' })).status).toBe(202);
    const a = (await api('POST', '/teams/acme/automations', { name: 'case runs', prompt: 'p', event_type: 'case' })).body.data;
    await api('POST', `/teams/acme/automations/${a.id.toUpperCase()}/runs`);
    const runs = await api('GET', `${base}?automation_id=${a.id.toUpperCase()}`);
    expect(runs.status).toBe(200);
    expect(runs.body.data).toHaveLength(1);
  });

  it('refuses an id written as a URN (urn:uuid:...) with 400, where it used to find nothing', async () => {
    const s = await start('urn');
    const a = (await api('POST', '/teams/acme/automations', { name: 'urn runs', prompt: 'p', event_type: 'urn' })).body.data;
    for (const [method, path] of [
      ['GET', `${base}/urn:uuid:${s.session_id}`],
      ['GET', `${base}?automation_id=urn:uuid:${a.id}`],
      ['POST', `/teams/acme/automations/urn:uuid:${a.id}/runs`],
    ] as const) {
      const res = await api(method, path);
      expect(res.status, path).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    const env = (await d.admin('POST', '/admin/teams/acme/environments', { name: 'Urn', slug: 'urn' })).body.data;
    const refused = await api('POST', base, { prompt: 'p', environment_id: `urn:uuid:${env.id}` });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/environment_id/);
  });

  it('reads ids in a body whatever their case, and leaves UUIDs in free text as they were sent', async () => {
    const env = (await d.admin('POST', '/admin/teams/acme/environments', { name: 'Caps', slug: 'caps' })).body.data;
    const prompt = `look at ${env.id.toUpperCase()}`;
    const s = await start(prompt, { environment_id: env.id.toUpperCase() });
    expect(s.environment_id).toBe(env.id);
    expect(s.prompt).toBe(prompt);
    const a = (
      await api('POST', '/teams/acme/automations', {
        name: 'caps body',
        prompt,
        triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *' }],
      })
    ).body.data;
    const updated = await api('PATCH', `/teams/acme/automations/${a.id}`, {
      environment_id: env.id.toUpperCase(),
      triggers: [{ id: a.triggers[0].id.toUpperCase(), kind: 'schedule', cron_expression: '0 10 * * *' }],
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.data).toMatchObject({ environment_id: env.id, prompt });
    expect(updated.body.data.triggers.map((t: any) => t.id)).toEqual([a.triggers[0].id]);
    const put = await api('PUT', '/teams/acme/env-vars/CAPS_VAR', { value: 'v', environment_id: env.id.toUpperCase() });
    expect(put.status).toBe(200);
    expect(put.body.data.environment_id).toBe(env.id);
  });

  it('runs in the environment named by environment_id', async () => {
    const env = await d.admin('POST', '/admin/teams/acme/environments', { name: 'Staging', slug: 'staging' });
    const s = await start('hi', { environment_id: env.body.data.id });
    expect(s.environment_id).toBe(env.body.data.id);
  });

  it('answers 400 for an environment of another team, and stores nothing', async () => {
    const envs = await other('GET', '/teams/other/environments');
    const before = (await api('GET', base + '?limit=200')).body.data.length;
    const res = await api('POST', base, { prompt: 'x', environment_id: envs.body.data[0].id });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect((await api('GET', base + '?limit=200')).body.data.length).toBe(before);
  });

  it('answers 400 for a missing or empty prompt and for unknown fields', async () => {
    expect((await api('POST', base, {})).status).toBe(400);
    expect((await api('POST', base, { prompt: '' })).status).toBe(400);
    expect((await api('POST', base, { prompt: 'x', kind: 'other' })).status).toBe(400);
    const before = (await api('GET', base + '?limit=200')).body.data.length;
    const blank = await api('POST', base, { prompt: ' \n\t ' });
    expect([blank.status, blank.body.error.message]).toEqual([400, 'body.prompt must not be blank: it is what the session is asked to do']);
    expect((await api('GET', base + '?limit=200')).body.data.length).toBe(before);
  });

  it('answers 401 without a key and 404 for another team slug', async () => {
    expect((await d.as(null)('POST', base, { prompt: 'x' })).status).toBe(401);
    expect((await other('POST', base, { prompt: 'x' })).status).toBe(404);
  });
});

describe('GET /teams/:slug/sessions and /sessions/:id', () => {
  it('returns the session with its messages, the prompt first as a user message', async () => {
    const s = await start('first prompt');
    const res = await api('GET', `${base}/${s.session_id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.session_id).toBe(s.session_id);
    expect(res.body.data.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'first prompt'],
      ['assistant', RECORDED_MESSAGE],
    ]);
    expect(Object.keys(res.body.data.messages[0]).sort()).toEqual(['content', 'created_at', 'id', 'role']);
  });

  it('gives the prompt and the answered-at-once message ids of their own, the same on every read', async () => {
    const s = await start('stable ids');
    await api('POST', `${base}/${s.session_id}/messages`, { message: 'more' });
    const first = (await api('GET', `${base}/${s.session_id}`)).body.data;
    const again = (await api('GET', `${base}/${s.session_id}`)).body.data;
    const ids = first.messages.map((m: any) => m.id);
    expect(again.messages.map((m: any) => m.id)).toEqual(ids);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    // The record runner answered the first turn when the session was stored.
    expect(first.messages[1].created_at).toBe(first.started_at);
  });

  it('answers 404 for a missing session and for a session of another team', async () => {
    const s = await start();
    expect((await api('GET', `${base}/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    const foreign = await other('GET', `/teams/other/sessions/${s.session_id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
  });

  it('lists newest first, pages with limit and next_cursor, and never shows another team', async () => {
    const { api: own } = await createTeam(d, 'lister');
    const ids: string[] = [];
    for (const p of ['a', 'b', 'c']) ids.push((await own('POST', '/teams/lister/sessions', { prompt: p })).body.data.session_id);
    const first = await own('GET', '/teams/lister/sessions?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((s: any) => s.session_id)).toEqual([ids[2], ids[1]]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await own('GET', `/teams/lister/sessions?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((s: any) => s.session_id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeUndefined();
    expect(second.body.data[0]).not.toHaveProperty('messages');
  });

  it('filters by status and answers 400 for an unknown status or a bad limit', async () => {
    const done = await api('GET', `${base}?status=completed&limit=200`);
    expect(done.body.data.length).toBeGreaterThan(0);
    expect(done.body.data.every((s: any) => s.status === 'completed')).toBe(true);
    expect((await api('GET', `${base}?status=running`)).body.data).toEqual([]);
    expect((await api('GET', `${base}?status=sleeping`)).status).toBe(400);
    expect((await api('GET', `${base}?limit=0`)).status).toBe(400);
    expect((await api('GET', `${base}?limit=201`)).status).toBe(400);
  });
});

describe('POST /teams/:slug/sessions/:id/messages (spec 4.2)', () => {
  it('accepts a follow-up to a completed session with 202 {accepted, session_id} and records the turn', async () => {
    const s = await start('prompt');
    const res = await api('POST', `${base}/${s.session_id}/messages`, { message: '  and then?  ' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { accepted: true, session_id: s.session_id } });
    const got = await api('GET', `${base}/${s.session_id}`);
    expect(got.body.data.status).toBe('completed');
    expect(got.body.data.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'prompt'],
      ['assistant', RECORDED_MESSAGE],
      ['user', 'and then?'],
      ['assistant', RECORDED_MESSAGE],
    ]);
  });

  it('answers 400 for a message that is empty or only whitespace', async () => {
    const s = await start();
    for (const message of ['', '   ', '\n\t ']) {
      const res = await api('POST', `${base}/${s.session_id}/messages`, { message });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('counts the 10000-character limit after trimming', async () => {
    const s = await start();
    const ok = await api('POST', `${base}/${s.session_id}/messages`, { message: `   ${'x'.repeat(10000)}   ` });
    expect(ok.status).toBe(202);
    const long = await api('POST', `${base}/${s.session_id}/messages`, { message: 'x'.repeat(10001) });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain('10000');
  });

  it('counts characters, not UTF-16 units, so 10000 emoji are accepted', async () => {
    const s = await start();
    const res = await api('POST', `${base}/${s.session_id}/messages`, { message: '😀'.repeat(10000) });
    expect(res.status).toBe(202);
  });

  it('answers 400 for a missing message, a non-string one, or extra fields', async () => {
    const s = await start();
    expect((await api('POST', `${base}/${s.session_id}/messages`, {})).status).toBe(400);
    expect((await api('POST', `${base}/${s.session_id}/messages`, { message: 5 })).status).toBe(400);
    expect((await api('POST', `${base}/${s.session_id}/messages`, { message: 'x', role: 'system' })).status).toBe(400);
  });

  it('answers 404 for a missing session, a session of another team, and a malformed id', async () => {
    const s = await start();
    expect((await api('POST', `${base}/00000000-0000-4000-8000-000000000000/messages`, { message: 'x' })).status).toBe(404);
    expect((await other('POST', `/teams/other/sessions/${s.session_id}/messages`, { message: 'x' })).status).toBe(404);
    expect((await api('POST', `${base}/not-a-uuid/messages`, { message: 'x' })).status).toBe(400);
  });
});

describe('execution admission (402)', () => {
  it('refuses to start or resume work for a team that is not admitted, storing nothing, until it is admitted again', async () => {
    const { api: t } = await createTeam(d, 'gated');
    const s = (await t('POST', '/teams/gated/sessions', { prompt: 'before' })).body.data;
    expect((await d.admin('PATCH', '/admin/teams/gated', { execution_admitted: false })).status).toBe(200);

    const start = await t('POST', '/teams/gated/sessions', { prompt: 'denied' });
    expect(start.status).toBe(402);
    expect(start.body.error.code).toBe('EXECUTION_DENIED');
    const follow = await t('POST', `/teams/gated/sessions/${s.session_id}/messages`, { message: 'denied' });
    expect(follow.status).toBe(402);
    expect(follow.body.error.code).toBe('EXECUTION_DENIED');

    const list = await t('GET', '/teams/gated/sessions');
    expect(list.body.data.map((x: any) => x.session_id)).toEqual([s.session_id]);
    expect((await t('GET', `/teams/gated/sessions/${s.session_id}`)).body.data.messages).toHaveLength(2);

    await d.admin('PATCH', '/admin/teams/gated', { execution_admitted: true });
    expect((await t('POST', `/teams/gated/sessions/${s.session_id}/messages`, { message: 'welcome back' })).status).toBe(202);
  });

  it('checks the message before admission: a bad message is 400 even when the team is not admitted', async () => {
    const { api: t } = await createTeam(d, 'gated-2');
    const s = (await t('POST', '/teams/gated-2/sessions', { prompt: 'p' })).body.data;
    await d.admin('PATCH', '/admin/teams/gated-2', { execution_admitted: false });
    expect((await t('POST', `/teams/gated-2/sessions/${s.session_id}/messages`, { message: ' ' })).status).toBe(400);
  });
});
