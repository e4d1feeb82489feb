// Differences from spec/CONTRACT found by an audit of the HTTP API, each pinned by a test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let api: Requester;
const base = '/teams/acme/automations';
/** how far the daemon's clock runs ahead of the real one: tests move time instead of waiting */
let ahead = 0;
const daemonNow = () => Date.now() + ahead;
let wakes = 0;

/**
 * Moves the daemon's clock on by `ms`, then makes a schedule change (an automation created),
 * which has every scheduler read the schedules again and fire what is due by the clock now.
 */
async function passTime(ms: number): Promise<void> {
  ahead += ms;
  const woken = await api('POST', base, { name: `wake the scheduler ${++wakes}`, prompt: 'p', event_type: 'wake' });
  expect(woken.status).toBe(201);
}

beforeAll(async () => {
  d = await startTestDaemon({ now: () => new Date(daemonNow()) });
  ({ api } = await createTeam(d, 'acme'));
});
afterAll(() => d.destroy());

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('updating an automation whose one-off already ran (CONTRACT §4: listed ids keep their counters)', () => {
  it('accepts the completed one-off listed by id with its time unchanged, and keeps it completed', async () => {
    const at = new Date(daemonNow() + 60_000).toISOString();
    const created = await api('POST', base, { name: 'one-off that ran', prompt: 'p', triggers: [{ kind: 'schedule', one_off_at: at, timezone: 'Europe/Berlin' }] });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const oneOff = created.body.data.triggers[0];
    await passTime(61_000);
    await until('the one-off to run', async () => (await api('GET', `${base}/${id}`)).body.data.triggers[0], (t) => t.status === 'completed');

    // What a client read, sent back with one more trigger (the zone left out: it defaults to UTC).
    const res = await api('PUT', `${base}/${id}`, {
      triggers: [{ id: oneOff.id, kind: 'schedule', one_off_at: at }, { kind: 'event', event_type: 'audit.added' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data.triggers[0]).toMatchObject({ id: oneOff.id, status: 'completed', total_runs: 1, next_run_at: null, one_off_at: at });
    expect(res.body.data.total_runs).toBe(1);

    const compat = await api('PATCH', `${base}/${id}`, { one_off_at: at });
    expect(compat.status).toBe(200);
    expect(compat.body.data.triggers).toHaveLength(1);
    expect(compat.body.data.triggers[0]).toMatchObject({ id: oneOff.id, status: 'completed', total_runs: 1, next_run_at: null });
  });

  it('still refuses a past one-off that is new, moved, or never ran', async () => {
    const at = new Date(daemonNow() + 60_000).toISOString();
    const created = await api('POST', base, { name: 'one-off refusals', prompt: 'p', triggers: [{ kind: 'schedule', one_off_at: at }] });
    const id = created.body.data.id;
    const oneOff = created.body.data.triggers[0];
    await passTime(61_000);
    await until('the one-off to run', async () => (await api('GET', `${base}/${id}`)).body.data.triggers[0], (t) => t.status === 'completed');
    const past = new Date(daemonNow() - 60_000).toISOString();

    const added = await api('PUT', `${base}/${id}`, { triggers: [{ id: oneOff.id, kind: 'schedule', one_off_at: at }, { kind: 'schedule', one_off_at: at }] });
    expect(added.status).toBe(400);
    expect(added.body.error.message).toContain('body.triggers[1].one_off_at must be in the future');
    const moved = await api('PUT', `${base}/${id}`, { triggers: [{ id: oneOff.id, kind: 'schedule', one_off_at: past }] });
    expect(moved.status).toBe(400);
    expect(moved.body.error.message).toContain('body.triggers[0].one_off_at must be in the future');
    const fresh = await api('POST', base, { name: 'never ran', prompt: 'p', one_off_at: at });
    expect(fresh.status).toBe(400);
  });

  it('accepts a disabled one-off whose time passed sent back unchanged, and refuses to enable it without a new time', async () => {
    const at = new Date(daemonNow() + 60_000).toISOString();
    const created = await api('POST', base, { name: 'disabled one-off', prompt: 'p', triggers: [{ kind: 'schedule', one_off_at: at, enabled: false }] });
    expect(created.status).toBe(201);
    const { id } = created.body.data;
    const oneOff = created.body.data.triggers[0];
    await passTime(61_000);

    // what a client read, sent back with a new prompt
    const resaved = await api('PUT', `${base}/${id}`, { prompt: 'p2', triggers: [{ id: oneOff.id, kind: 'schedule', one_off_at: at, enabled: false }] });
    expect(resaved.status, JSON.stringify(resaved.body)).toBe(200);
    expect(resaved.body.data.triggers[0]).toMatchObject({ id: oneOff.id, enabled: false, one_off_at: at, total_runs: 0 });
    const enabled = await api('PATCH', `${base}/${id}`, { triggers: [{ id: oneOff.id, kind: 'schedule', enabled: true }] });
    expect(enabled.status).toBe(400);
    expect(enabled.body.error.message).toContain('its time has passed: give it a new one_off_at to enable it again');
    const later = new Date(daemonNow() + 3_600_000).toISOString();
    const renewed = await api('PATCH', `${base}/${id}`, { triggers: [{ id: oneOff.id, kind: 'schedule', one_off_at: later, enabled: true }] });
    expect(renewed.status).toBe(200);
    expect(renewed.body.data.triggers[0]).toMatchObject({ id: oneOff.id, enabled: true, next_run_at: later });
  });

  it('accepts the trigger set of a paused automation sent back after its one-off passed, and completes the one-off on resume', async () => {
    const at = new Date(daemonNow() + 60_000).toISOString();
    const created = await api('POST', base, {
      name: 'paused one-off',
      prompt: 'p',
      status: 'paused',
      triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *' }, { kind: 'schedule', one_off_at: at }],
    });
    expect(created.status).toBe(201);
    const { id, triggers } = created.body.data;
    await passTime(61_000);
    const asRead = (cron: string) => [
      { id: triggers[0].id, kind: 'schedule', cron_expression: cron, timezone: 'UTC', enabled: true },
      { id: triggers[1].id, kind: 'schedule', one_off_at: at, timezone: 'UTC', enabled: true },
    ];

    const edited = await api('PATCH', `${base}/${id}`, { triggers: asRead('0 10 * * *') });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.data.triggers[1]).toMatchObject({ id: triggers[1].id, status: 'active', enabled: true, one_off_at: at, next_run_at: null });
    // Resuming with the set: the one-off is done without a run, as a resume alone does it.
    const resumed = await api('PATCH', `${base}/${id}`, { status: 'active', triggers: asRead('0 10 * * *') });
    expect(resumed.status, JSON.stringify(resumed.body)).toBe(200);
    expect(resumed.body.data.triggers[1]).toMatchObject({ status: 'completed', next_run_at: null, total_runs: 0 });
    expect(resumed.body.data.triggers[0].next_run_at).not.toBeNull();
    expect(resumed.body.data.last_error).toBe(`one-off run for ${at} skipped: its time passed while the automation was paused`);
    const runs = await api('GET', `${base}/${id}/runs`);
    expect(runs.body.data).toEqual([]);
  });
});

describe('GET /teams/{id}/env-vars as spec §4.7 names it', () => {
  it('the OpenAPI document states the rules its patterns cannot: a follow-up is 1-10000 characters, a page 1-200 rows', async () => {
    const { paths } = (await d.as(null)('GET', '/openapi.json')).body;
    const message = paths['/teams/{teamSlug}/sessions/{sessionId}/messages'].post.requestBody.content['application/json'].schema.properties.message;
    expect(message.description).toContain('1-10000 characters');
    for (const list of ['/teams/{teamSlug}/sessions', '/teams/{teamSlug}/automations', '/teams/{teamSlug}/events']) {
      expect(paths[list].get.parameters.find((p: { name: string }) => p.name === 'limit').description, list).toBe('page size, 1-200 (default 50)');
    }
  });

  it('is listed under its spec path in the OpenAPI document', async () => {
    const { paths } = (await d.as(null)('GET', '/openapi.json')).body;
    expect(paths['/teams/{id}/env-vars']?.get?.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'path', name: 'id', required: true })]));
    expect(paths).not.toHaveProperty('/teams/{teamSlug}/env-vars');
  });

  it("answers for the key's team by id or slug, and 404 for another team's id or slug", async () => {
    const own = await createTeam(d, 'envlist');
    const other = await createTeam(d, 'envlist-other');
    expect((await own.api('PUT', '/teams/envlist/env-vars/TOKEN', { value: 'v4lue' })).status).toBe(200);
    for (const ref of [own.team.id, 'envlist']) {
      const res = await own.api('GET', `/teams/${ref}/env-vars`);
      expect([ref, res.status, res.body.data.map((v: { name: string }) => v.name)]).toEqual([ref, 200, ['TOKEN']]);
    }
    for (const ref of [other.team.id, 'envlist-other']) {
      const res = await own.api('GET', `/teams/${ref}/env-vars`);
      expect([ref, res.status, res.body.error?.code]).toEqual([ref, 404, 'NOT_FOUND']);
    }
  });
});

describe('request bodies of other content types', () => {
  it('takes an empty body as no body whatever its Content-Type, and refuses a non-empty non-JSON one', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain;charset=UTF-8', 'application/octet-stream']) {
      const created = await d.admin('POST', '/admin/teams/acme/keys', undefined, { headers: { 'content-type': type }, raw: '' });
      expect([type, created.status]).toEqual([type, 201]);
      const refused = await d.admin('POST', '/admin/teams/acme/keys', undefined, { headers: { 'content-type': type }, raw: '{"name":"x"}' });
      expect([type, refused.status, refused.body.error]).toEqual([type, 400, { code: 'VALIDATION_ERROR', message: 'request body must be JSON (Content-Type: application/json)' }]);
    }
    const required = await api('POST', base, undefined, { headers: { 'content-type': 'text/plain' }, raw: '' });
    expect(required.status).toBe(400);
    const untyped = await api('POST', base, undefined, { raw: '{"name":"n","prompt":"p","event_type":"e"}', headers: { 'content-type': '' } });
    expect(untyped.status).toBe(400);
  });
});

describe('validation messages', () => {
  it('names the allowed values of a status or type, not "equal to constant"', async () => {
    const body = await api('POST', base, { name: 'bad status', prompt: 'p', event_type: 'e', status: 'running' });
    expect([body.status, body.body.error.message]).toEqual([400, 'body.status must be one of "active", "paused", "disabled"']);
    const wrongType = await api('POST', base, { name: 'bad status', prompt: 'p', event_type: 'e', status: 1 });
    expect([wrongType.status, wrongType.body.error.message]).toEqual([400, 'body.status must be string']);
    const query = await api('GET', `${base}?type=cron`);
    expect([query.status, query.body.error.message]).toEqual([400, 'querystring.type must be one of "schedule", "event"']);
  });
});
