import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let api: Requester;
const base = '/teams/acme/automations';
let n = 0;
const uniqueName = () => `automation ${++n}`;

beforeAll(async () => {
  d = await startTestDaemon();
  ({ api } = await createTeam(d, 'acme'));
});
afterAll(() => d.destroy());

const SPEC_FIELDS = [
  'id', 'team_id', 'automation_type', 'status', 'name', 'prompt', 'timezone', 'total_runs', 'repo_filters', 'created_at',
  'updated_at', 'triggers', 'automation_id', 'environment_id', 'cron_expression', 'one_off_at', 'next_run_at', 'last_run_at',
  'event_provider', 'event_type', 'event_type_id', 'event_filter', 'lease_until', 'lease_owner', 'last_error', 'last_error_at',
];

describe('create (spec 4.3)', () => {
  it('creates a cron automation (201) with every spec field and next_run_at in its timezone', async () => {
    const res = await api('POST', base, {
      name: 'Nightly report',
      prompt: 'Summarise the day',
      triggers: [{ kind: 'schedule', cron_expression: '30 2 * * *', timezone: 'Europe/Berlin' }],
    });
    expect(res.status).toBe(201);
    const a = res.body.data;
    expect(Object.keys(a)).toEqual(expect.arrayContaining(SPEC_FIELDS));
    expect(a).toMatchObject({
      automation_type: 'schedule', status: 'active', name: 'Nightly report', prompt: 'Summarise the day', timezone: 'Europe/Berlin',
      total_runs: 0, repo_filters: {}, cron_expression: '30 2 * * *', one_off_at: null, last_run_at: null, event_provider: null,
      event_type: null, event_type_id: null, event_filter: null, lease_until: null, lease_owner: null, last_error: null,
    });
    expect(a.automation_id).toBe(a.id);
    expect(a.environment_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.triggers).toHaveLength(1);
    expect(a.triggers[0]).toMatchObject({ kind: 'schedule', status: 'active', total_runs: 0, automation_id: a.id, cron_expression: '30 2 * * *' });
    // 02:30 in Berlin is 00:30 or 01:30 UTC depending on the season.
    expect(a.next_run_at).toMatch(/T0[01]:30:00\.000Z$/);
    expect(Date.parse(a.next_run_at)).toBeGreaterThan(Date.now());
  });

  it('stores a time zone as the tz database spells it, whatever case it was sent in', async () => {
    for (const [sent, stored] of [['europe/paris', 'Europe/Paris'], ['utc', 'UTC'], ['AMERICA/NEW_YORK', 'America/New_York'], ['US/Eastern', 'US/Eastern']]) {
      const res = await api('POST', base, { name: `tz ${sent}`, prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: sent }] });
      expect(res.status, sent).toBe(201);
      expect(res.body.data.timezone, sent).toBe(stored);
      expect(res.body.data.triggers[0].timezone, sent).toBe(stored);
    }
  });

  it('creates a one-off through the compatibility field one_off_at', async () => {
    const at = new Date(Date.now() + 3600_000).toISOString();
    const res = await api('POST', base, { name: uniqueName(), prompt: 'p', one_off_at: at });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ automation_type: 'schedule', one_off_at: at, next_run_at: at, timezone: 'UTC' });
  });

  it('names a field of the other kind of trigger as not applying to it', async () => {
    const event = await api('POST', base, { name: uniqueName(), prompt: 'p', triggers: [{ kind: 'event', event_type: 'e', cron_expression: '* * * * *' }] });
    expect([event.status, event.body.error?.message]).toEqual([400, 'body.triggers[0].cron_expression does not apply to an event trigger']);
    const schedule = await api('POST', base, { name: uniqueName(), prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '* * * * *', event_type: 'e' }] });
    expect([schedule.status, schedule.body.error?.message]).toEqual([400, 'body.triggers[0].event_type does not apply to a schedule trigger']);
  });

  it('refuses a one_off_at whose offset carries it past year 9999 in UTC, storing nothing; 9999 itself is fine', async () => {
    const name = uniqueName();
    const late = '9999-12-31T23:59:59.999-00:01';
    const message = `must fall in the years 0000-9999 in UTC (${late} does not)`;
    const compat = await api('POST', base, { name, prompt: 'p', one_off_at: late });
    expect([compat.status, compat.body.error?.message]).toEqual([400, `body.one_off_at ${message}`]);
    const listed = await api('POST', base, { name, prompt: 'p', triggers: [{ kind: 'schedule', one_off_at: late }] });
    expect([listed.status, listed.body.error?.message]).toEqual([400, `body.triggers[0].one_off_at ${message}`]);
    expect((await api('GET', base)).body.data.map((a: { name: string }) => a.name)).not.toContain(name);

    const kept = await api('POST', base, { name, prompt: 'p', one_off_at: '9999-12-31T23:59:59.999+00:01' });
    expect([kept.status, kept.body.data?.one_off_at]).toEqual([201, '9999-12-31T23:58:59.999Z']);
    const patched = await api('PATCH', `${base}/${kept.body.data.id}`, { triggers: [{ id: kept.body.data.triggers[0].id, kind: 'schedule', one_off_at: late }] });
    expect([patched.status, patched.body.error?.message]).toEqual([400, `body.triggers[0].one_off_at ${message}`]);
    expect((await api('GET', `${base}/${kept.body.data.id}`)).body.data.one_off_at).toBe('9999-12-31T23:58:59.999Z');
  });

  it('creates an event automation with event_type/event_provider and a stable event_type_id', async () => {
    const body = { prompt: 'react', event_type: 'deploy.finished', event_provider: 'ci', event_filter: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] };
    const a = (await api('POST', base, { ...body, name: uniqueName() })).body.data;
    const b = (await api('POST', base, { ...body, name: uniqueName() })).body.data;
    expect(a).toMatchObject({ automation_type: 'event', event_provider: 'ci', event_type: 'deploy.finished', next_run_at: null, cron_expression: null });
    expect(a.event_filter).toEqual(body.event_filter);
    expect(a.event_type_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.event_type_id).toBe(a.event_type_id);
    const generic = (await api('POST', base, { name: uniqueName(), prompt: 'p', triggers: [{ kind: 'event', event_type: 'x' }] })).body.data;
    expect(generic.event_provider).toBe('generic');
  });

  it('answers 409 CONFLICT for a name taken in the team, whatever its case', async () => {
    await api('POST', base, { name: 'Unique Name', prompt: 'p', event_type: 'x' });
    const dup = await api('POST', base, { name: 'unique name', prompt: 'p', event_type: 'x' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('CONFLICT');
    // It names the automation that holds the name, as that one spells it.
    expect(dup.body.error.message).toBe(
      'an automation named "Unique Name" already exists in this team (names are compared ignoring case, Unicode forms and surrounding spaces, so "unique name" is the same name)',
    );
    const same = await api('POST', base, { name: 'Unique Name', prompt: 'p', event_type: 'x' });
    expect(same.body.error.message).toBe('an automation named "Unique Name" already exists in this team');
    // Unicode case pairs that lower-casing alone misses, and composed/decomposed accents.
    for (const [first, second] of [['ΣΑΣ deploy', 'σασ deploy'], ['Straße bot', 'STRASSE BOT'], ['STRAẞE app', 'strasse app'], ['ﬁle sync', 'FILE SYNC'], ['Caf\u00e9', 'cafe\u0301']]) {
      expect((await api('POST', base, { name: first, prompt: 'p', event_type: 'x' })).status, first).toBe(201);
      expect((await api('POST', base, { name: second, prompt: 'p', event_type: 'x' })).status, second).toBe(409);
    }
    expect((await api('POST', base, { name: 'İstanbul', prompt: 'p', event_type: 'x' })).status).toBe(201);
  });

  it('refuses a name that is only whitespace, on create and on rename', async () => {
    const blank = await api('POST', base, { name: '   ', prompt: 'p', event_type: 'x' });
    expect(blank.status).toBe(400);
    expect(blank.body.error.message).toContain('body.name must not be blank');
    const a = (await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'x' })).body.data;
    expect((await api('PATCH', `${base}/${a.id}`, { name: '\t ' })).status).toBe(400);
    expect((await api('GET', `${base}/${a.id}`)).body.data.name).toBe(a.name);
  });

  it('takes a null value as no value: fine for exists, which ignores it (and any value); 400 for an operator that needs one', async () => {
    const ok = await api('POST', base, {
      name: 'null-exists',
      prompt: 'p',
      event_type: 'n.v',
      event_filter: [
        { jsonPath: '$.data.x', operator: 'exists', value: null },
        { jsonPath: '$.data.y', operator: 'not_exists', value: 'ignored' },
        { jsonPath: '$.data.z', operator: 'exists' },
      ],
    });
    expect(ok.status).toBe(201);
    // Every filter shows `value`; null where it does not apply.
    const shown = [
      { jsonPath: '$.data.x', operator: 'exists', value: null },
      { jsonPath: '$.data.y', operator: 'not_exists', value: null },
      { jsonPath: '$.data.z', operator: 'exists', value: null },
    ];
    expect(ok.body.data.event_filter).toEqual(shown);
    expect(ok.body.data.triggers[0].filters).toEqual(shown);
    const bad = await api('POST', base, { name: 'null-equals', prompt: 'p', event_type: 'n.v', event_filter: [{ jsonPath: '$.data.x', operator: 'equals', value: null }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('body.event_filter[0]: value is required for operator "equals"');
  });

  it.each([
    ['no trigger at all', { name: 'x1', prompt: 'p' }, 'triggers'],
    ['an empty trigger list', { name: 'x2', prompt: 'p', triggers: [] }, 'triggers'],
    ['triggers with a compatibility field', { name: 'x3', prompt: 'p', triggers: [{ kind: 'event', event_type: 'a' }], one_off_at: '2099-01-01T00:00:00Z' }, 'one_off_at'],
    ['a six-field cron', { name: 'x4', prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '0 0 * * * *' }] }, 'cron_expression'],
    ['an @-macro', { name: 'x5', prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '@daily' }] }, 'cron_expression'],
    ['an unknown zone', { name: 'x6', prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'Mars/Base' }] }, 'timezone'],
    ['a past one-off', { name: 'x7', prompt: 'p', one_off_at: '2001-01-01T00:00:00Z' }, 'one_off_at'],
    ['a one-off in local time, without an offset', { name: 'x7b', prompt: 'p', one_off_at: '2099-01-15T10:00:00', timezone: 'America/New_York' }, 'body.one_off_at must be a date-time with seconds and an offset or Z (RFC 3339), e.g. 2027-01-15T10:00:00Z'],
    ['cron and one-off together', { name: 'x8', prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '0 9 * * *', one_off_at: '2099-01-01T00:00:00Z' }] }, 'exactly one'],
    ['an unknown kind', { name: 'x9', prompt: 'p', triggers: [{ kind: 'webhook' }] }, 'kind'],
    ['an event trigger without event_type', { name: 'x10', prompt: 'p', triggers: [{ kind: 'event' }] }, 'event_type'],
    ['a bad JSONPath', { name: 'x11', prompt: 'p', event_type: 'e', event_filter: [{ jsonPath: '$..[', operator: 'equals', value: 'a' }] }, 'body.event_filter[0]'],
    ['an unknown operator', { name: 'x12', prompt: 'p', event_type: 'e', event_filter: [{ jsonPath: '$.data.a', operator: 'like', value: 'a' }] }, 'body.event_filter[0]'],
    ['a bad JSONPath in a trigger', { name: 'x12b', prompt: 'p', triggers: [{ kind: 'event', event_type: 'e', filters: [{ jsonPath: '$[', operator: 'exists' }] }] }, 'body.triggers[0].filters[0]'],
    ['an invalid regex', { name: 'x13', prompt: 'p', event_type: 'e', event_filter: [{ jsonPath: '$.data.a', operator: 'matches', value: '(unclosed' }] }, 'body.event_filter[0]'],
    ['an empty name', { name: '', prompt: 'p', event_type: 'e' }, 'body.name'],
    ['a bad status', { name: 'x14', prompt: 'p', event_type: 'e', status: 'running' }, 'body.status'],
    ["another team's environment", { name: 'x15', prompt: 'p', event_type: 'e', environment_id: '00000000-0000-4000-8000-000000000000' }, 'environment_id'],
  ])('answers 400 naming the problem for %s, and stores nothing', async (_label, body, mention) => {
    const before = (await api('GET', `${base}?limit=200`)).body.data.length;
    const res = await api('POST', base, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain(mention);
    expect((await api('GET', `${base}?limit=200`)).body.data.length).toBe(before);
  });
});

describe('read, list, update, delete', () => {
  it('gets one automation and 404s an unknown id', async () => {
    const a = (await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' })).body.data;
    const got = await api('GET', `${base}/${a.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(a);
    const missing = await api('GET', `${base}/00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });

  it('lists newest first with status/type filters and cursor pagination', async () => {
    const t = await createTeam(d, 'lister');
    const lb = '/teams/lister/automations';
    for (let i = 0; i < 5; i++) await t.api('POST', lb, { name: `e${i}`, prompt: 'p', event_type: 'e', status: i === 0 ? 'paused' : 'active' });
    await t.api('POST', lb, { name: 's', prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '*/5 * * * *' }] });
    const first = await t.api('GET', `${lb}?limit=4`);
    expect(first.body.data.map((a: { name: string }) => a.name)).toEqual(['s', 'e4', 'e3', 'e2']);
    expect(first.body.next_cursor).toBeTruthy();
    const second = await t.api('GET', `${lb}?limit=4&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((a: { name: string }) => a.name)).toEqual(['e1', 'e0']);
    expect(second.body.next_cursor).toBeUndefined();
    expect((await t.api('GET', `${lb}?type=schedule`)).body.data.map((a: { name: string }) => a.name)).toEqual(['s']);
    expect((await t.api('GET', `${lb}?status=paused`)).body.data.map((a: { name: string }) => a.name)).toEqual(['e0']);
    expect((await t.api('GET', `${lb}?limit=0`)).status).toBe(400);
    expect((await t.api('GET', `${lb}?limit=201`)).status).toBe(400);
    expect((await t.api('GET', `${lb}?cursor=garbage`)).status).toBe(400);
  });

  it('goes on from a cursor whose last row was deleted meanwhile, and says to start again when its next row went too', async () => {
    const t = await createTeam(d, 'pager');
    const lb = '/teams/pager/automations';
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.api('POST', lb, { name: `p${i}`, prompt: 'p', event_type: 'e' })).body.data.id);
    const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((a) => a.name);
    const first = await t.api('GET', `${lb}?limit=2`);
    expect(names(first)).toEqual(['p4', 'p3']);
    expect((await t.api('DELETE', `${lb}/${ids[3]}`)).status).toBe(200);
    const second = await t.api('GET', `${lb}?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.status).toBe(200);
    expect(names(second)).toEqual(['p2', 'p1']);
    // Both rows the cursor names gone: there is nowhere to go on from.
    expect((await t.api('DELETE', `${lb}/${ids[0]}`)).status).toBe(200);
    expect((await t.api('DELETE', `${lb}/${ids[1]}`)).status).toBe(200);
    const lost = await t.api('GET', `${lb}?limit=2&cursor=${second.body.next_cursor}`);
    expect(lost.status).toBe(400);
    expect(lost.body.error.message).toMatch(/start again without it/);
    // An empty cursor is malformed.
    expect((await t.api('GET', `${lb}?cursor=`)).status).toBe(400);
  });

  it('updates partially with PUT and PATCH alike', async () => {
    const a = (await api('POST', base, { name: uniqueName(), prompt: 'old', event_type: 'e', repo_filters: { repo: 'x' } })).body.data;
    const put = await api('PUT', `${base}/${a.id}`, { prompt: 'new' });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ prompt: 'new', name: a.name, repo_filters: { repo: 'x' }, event_type: 'e' });
    const patch = await api('PATCH', `${base}/${a.id}`, { status: 'paused' });
    expect(patch.body.data).toMatchObject({ prompt: 'new', status: 'paused' });
    expect(patch.body.data.triggers[0].id).toBe(a.triggers[0].id);
  });

  it('replaces the trigger set: listed ids are kept, new ones added, unlisted removed; a foreign id is 400', async () => {
    const a = (
      await api('POST', base, {
        name: uniqueName(),
        prompt: 'p',
        triggers: [
          { kind: 'schedule', cron_expression: '0 9 * * *' },
          { kind: 'event', event_type: 'push' },
        ],
      })
    ).body.data;
    const [sched, evt] = a.triggers;
    const upd = await api('PATCH', `${base}/${a.id}`, {
      triggers: [
        { kind: 'schedule', id: sched.id, cron_expression: '0 10 * * *', timezone: 'America/New_York' },
        { kind: 'schedule', cron_expression: '0 12 * * 1' },
      ],
    });
    expect(upd.status).toBe(200);
    const ids = upd.body.data.triggers.map((t: { id: string }) => t.id);
    expect(ids[0]).toBe(sched.id);
    expect(ids).not.toContain(evt.id);
    expect(upd.body.data.triggers).toHaveLength(2);
    expect(upd.body.data).toMatchObject({ cron_expression: '0 10 * * *', timezone: 'America/New_York', event_type: null });
    const foreign = await api('PATCH', `${base}/${a.id}`, { triggers: [{ kind: 'schedule', id: evt.id, cron_expression: '0 9 * * *' }] });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toContain(evt.id);
    const unchanged = await api('GET', `${base}/${a.id}`);
    expect(unchanged.body.data.triggers.map((t: { id: string }) => t.id)).toEqual(ids);
  });

  it('updates a listed trigger partially: what the element leaves out keeps its stored value, a null clears', async () => {
    const a = (
      await api('POST', base, {
        name: uniqueName(),
        prompt: 'p',
        triggers: [
          { kind: 'schedule', cron_expression: '0 9 * * *', timezone: 'Europe/Berlin', enabled: false },
          { kind: 'event', provider: 'github', event_type: 'push', connection_id: 'conn-1', filters: [{ jsonPath: '$.data.ref', operator: 'equals', value: 'main' }] },
        ],
      })
    ).body.data;
    const [sched, evt] = a.triggers;
    const upd = await api('PATCH', `${base}/${a.id}`, {
      triggers: [
        { kind: 'schedule', id: sched.id, cron_expression: '0 10 * * *' },
        { kind: 'event', id: evt.id, filters: [] },
      ],
    });
    expect(upd.status, JSON.stringify(upd.body)).toBe(200);
    const [s2, e2] = upd.body.data.triggers;
    expect(s2).toMatchObject({ id: sched.id, cron_expression: '0 10 * * *', timezone: 'Europe/Berlin', enabled: false });
    expect(e2).toMatchObject({ id: evt.id, provider: 'github', event_type: 'push', connection_id: 'conn-1', filters: [] });
    // a schedule may switch from cron to one-off (taking only the one it names); a null zone is UTC again
    const at = new Date(Date.now() + 86_400_000).toISOString();
    const switched = await api('PATCH', `${base}/${a.id}`, { triggers: [{ kind: 'schedule', id: sched.id, one_off_at: at, timezone: null }, { kind: 'event', id: evt.id, connection_id: null }] });
    expect(switched.status, JSON.stringify(switched.body)).toBe(200);
    expect(switched.body.data.triggers[0]).toMatchObject({ cron_expression: null, one_off_at: at, timezone: 'UTC', enabled: false });
    expect(switched.body.data.triggers[1]).toMatchObject({ event_type: 'push', connection_id: null });
  });

  it('clears next_run_at while paused and computes it from now on resume', async () => {
    const a = (await api('POST', base, { name: uniqueName(), prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: '*/10 * * * *' }] })).body.data;
    expect(a.next_run_at).not.toBeNull();
    const paused = (await api('PATCH', `${base}/${a.id}`, { status: 'paused' })).body.data;
    expect(paused.next_run_at).toBeNull();
    const resumed = (await api('PATCH', `${base}/${a.id}`, { status: 'active' })).body.data;
    expect(Date.parse(resumed.next_run_at)).toBeGreaterThan(Date.now());
  });

  it('answers 409 when renaming onto a taken name', async () => {
    const a = (await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' })).body.data;
    const b = (await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' })).body.data;
    expect((await api('PATCH', `${base}/${b.id}`, { name: a.name.toUpperCase() })).status).toBe(409);
    expect((await api('PATCH', `${base}/${b.id}`, { name: b.name })).status).toBe(200);
  });

  it('deletes with {success:true}, then 404', async () => {
    const a = (await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' })).body.data;
    const del = await api('DELETE', `${base}/${a.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ data: { success: true } });
    expect((await api('GET', `${base}/${a.id}`)).status).toBe(404);
    expect((await api('DELETE', `${base}/${a.id}`)).status).toBe(404);
  });

  it("hides another team's automation behind 404", async () => {
    const a = (await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' })).body.data;
    const other = await createTeam(d, 'other-team');
    expect((await other.api('GET', `/teams/other-team/automations/${a.id}`)).status).toBe(404);
    expect((await other.api('DELETE', `/teams/other-team/automations/${a.id}`)).status).toBe(404);
  });
});

describe('text a user cannot have meant', () => {
  it('refuses a blank prompt or event type, and a name of zero-width spaces or with a newline or ESC', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: uniqueName(), prompt: '  \n ', event_type: 'e' }, 'body.prompt must not be blank'],
      [{ name: uniqueName(), prompt: 'p', triggers: [{ kind: 'event', event_type: '   ' }] }, 'body.triggers[0].event_type must not be blank'],
      [{ name: '\u200b', prompt: 'p', event_type: 'e' }, 'body.name must not be blank'],
      [{ name: 'two\nlines', prompt: 'p', event_type: 'e' }, 'body.name must be one line of text'],
      [{ name: 'esc\u001b[2J', prompt: 'p', event_type: 'e' }, 'body.name must be one line of text'],
    ];
    for (const [body, message] of cases) {
      const res = await api('POST', base, body);
      expect([res.status, res.body.error?.message], JSON.stringify(body)).toEqual([400, expect.stringContaining(message)]);
    }
    const created = await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' });
    const blanked = await api('PATCH', `${base}/${created.body.data.id}`, { prompt: '\t' });
    expect(blanked.status).toBe(400);
  });

  it('stores a cron expression as five fields split by single spaces, however it was spaced', async () => {
    const res = await api('POST', base, { name: uniqueName(), prompt: 'p', triggers: [{ kind: 'schedule', cron_expression: ' 0\t9  * * * \n' }] });
    expect(res.status).toBe(201);
    expect(res.body.data.cron_expression).toBe('0 9 * * *');
    expect(res.body.data.triggers[0].cron_expression).toBe('0 9 * * *');
  });

  it('names a trigger id of another automation as such, before what else the element lacks', async () => {
    const other = await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' });
    const mine = await api('POST', base, { name: uniqueName(), prompt: 'p', event_type: 'e' });
    const foreign = other.body.data.triggers[0].id;
    const res = await api('PATCH', `${base}/${mine.body.data.id}`, { triggers: [{ id: foreign, kind: 'schedule' }] });
    expect([res.status, res.body.error.message]).toEqual([400, `body.triggers[0].id ${foreign} is not a trigger of this automation`]);
  });

  it('takes a collection path with a trailing slash as the collection', async () => {
    const res = await api('GET', `${base}/`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body.data)).toBe(true);
  });
});
