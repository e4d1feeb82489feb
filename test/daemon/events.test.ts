import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let api: Requester;
let slug: string;
let teams = 0;

// Each test gets a fresh team, so automations of one test never match another's events.
beforeAll(async () => {
  d = await startTestDaemon();
});
afterAll(() => d.destroy());
beforeEach(async () => {
  slug = `ev${++teams}`;
  ({ api } = await createTeam(d, slug));
});

const send = (body: Record<string, unknown>, query = '') => api('POST', `/teams/${slug}/webhooks/events${query}`, body);
const dryRun = (body: Record<string, unknown>) => send(body, '?dry_run=true');

interface TriggerIn {
  provider?: string;
  event_type?: string;
  connection_id?: string;
  filters?: { jsonPath: string; operator: string; value?: string }[];
  enabled?: boolean;
}

async function automation(name: string, triggers: TriggerIn[] = [{}], extra: Record<string, unknown> = {}) {
  const res = await api('POST', `/teams/${slug}/automations`, {
    name,
    prompt: `prompt of ${name}`,
    triggers: triggers.map((t) => ({ kind: 'event', event_type: 'deploy.finished', ...t })),
    ...extra,
  });
  if (res.status !== 201) throw new Error(`create failed: ${JSON.stringify(res.body)}`);
  return res.body.data as { id: string; triggers: { id: string }[] };
}

describe('providers and event types holding "|"', () => {
  it('keeps provider "a" with type "b|c" and provider "a|b" with type "c" apart: ids, candidates and reasons', async () => {
    const pipe1 = await automation('pipe1', [{ provider: 'a', event_type: 'b|c' }]);
    const pipe2 = await automation('pipe2', [{ provider: 'a|b', event_type: 'c' }]);
    const view = async (id: string) => (await api('GET', `/teams/${slug}/automations/${id}`)).body.data;
    expect((await view(pipe1.id)).event_type_id).not.toBe((await view(pipe2.id)).event_type_id);
    const dry = await dryRun({ provider: 'a|b', event_type: 'c', id: 'pipes' });
    expect(dry.status).toBe(200);
    expect(dry.body.data.matches.map((m: { name: string; matched: boolean }) => [m.name, m.matched])).toEqual([['pipe2', true]]);
    const sent = await send({ provider: 'a', event_type: 'b|c', id: 'pipes' });
    expect(sent.body.data.dispatched.map((x: { automationId: string }) => x.automationId)).toEqual([pipe1.id]);
  });
});

const sessionsOf = async (automationId: string) => (await api('GET', `/teams/${slug}/sessions?automation_id=${automationId}`)).body.data as any[];
const eventsList = async (query = '') => api('GET', `/teams/${slug}/events${query}`);
const getAutomation = async (id: string) => (await api('GET', `/teams/${slug}/automations/${id}`)).body.data;

describe('send an event: matching', () => {
  it('dispatches a matching automation: 200, key event:{automationId}:{eventId}, one session with the prompt and the normalised event', async () => {
    const a = await automation('Deploy bot');
    const res = await send({ event_type: 'deploy.finished', id: 'evt-1', data: { env: 'prod' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      accepted: true,
      dispatched: [{ automationId: a.id, idempotencyKey: `event:${a.id}:evt-1`, triggerIds: [a.triggers[0].id] }],
      reason: 'dispatched to 1 automation',
    });
    const sessions = await sessionsOf(a.id);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      automation_id: a.id, trigger_id: a.triggers[0].id, idempotency_key: `event:${a.id}:evt-1`, prompt: 'prompt of Deploy bot',
      kind: 'conversational', persona: 'main',
    });
    expect(sessions[0].event).toMatchObject({ id: 'evt-1', provider: 'generic', event_type: 'deploy.finished', data: { env: 'prod' }, metadata: {} });
    expect(['running', 'completed']).toContain(sessions[0].status);
  });

  it('counts the run on the trigger and the automation: total_runs, and last_run_at on the trigger', async () => {
    const a = await automation('Counter');
    await send({ event_type: 'deploy.finished', id: 'c1' });
    await send({ event_type: 'deploy.finished', id: 'c2' });
    const got = await getAutomation(a.id);
    expect(got.total_runs).toBe(2);
    expect(got.triggers[0].total_runs).toBe(2);
    expect(Date.parse(got.triggers[0].last_run_at)).toBeGreaterThan(Date.now() - 60_000);
    // CONTRACT §4: the automation's last_run_at is the latest over its schedule triggers; it has none.
    expect(got.last_run_at).toBeNull();
  });

  it('needs the same provider: provider defaults to generic on both sides', async () => {
    const gh = await automation('GH', [{ provider: 'github' }]);
    const miss = await send({ event_type: 'deploy.finished' });
    expect(miss.body.data).toMatchObject({ accepted: false, dispatched: [] });
    expect(miss.body.data.reason).toBe(
      'no active automation listens to provider "generic" event "deploy.finished": trigger of "GH" listens to provider "github", not "generic"',
    );
    const hit = await send({ event_type: 'deploy.finished', provider: 'github' });
    expect(hit.body.data.dispatched.map((x: any) => x.automationId)).toEqual([gh.id]);
  });

  it('needs the same event type and says nothing listens to another one', async () => {
    await automation('Deploy bot');
    const res = await send({ event_type: 'deploy.started' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      accepted: false,
      dispatched: [],
      reason: 'no active automation listens to provider "generic" event "deploy.started"',
    });
  });

  it('matches the event type exactly, and points at a listener whose type differs only in letter case', async () => {
    const bot = await automation('Deploy bot');
    const res = await send({ event_type: 'Deploy.Finished' });
    expect(res.body.data).toEqual({
      accepted: false,
      dispatched: [],
      reason: 'no active automation listens to provider "generic" event "Deploy.Finished": trigger of "Deploy bot" listens to event "deploy.finished", not "Deploy.Finished"',
    });
    // Another provider and another case: both are named, so one fix is enough.
    await automation('GH bot', [{ provider: 'github', event_type: 'push.done' }]);
    expect((await send({ event_type: 'Push.Done' })).body.data.reason).toBe(
      'no active automation listens to provider "generic" event "Push.Done": trigger of "GH bot" listens to provider "github", not "generic", and to event "push.done", not "Push.Done"',
    );
    const dry = await send({ event_type: 'DEPLOY.FINISHED' }, '?dry_run=true');
    expect(dry.body.data.matches).toEqual([
      { id: bot.id, automationId: bot.id, name: 'Deploy bot', matched: false, failed: 'trigger of "Deploy bot" listens to event "deploy.finished", not "DEPLOY.FINISHED"' },
    ]);
  });

  it('needs the connection a trigger names; a trigger without one takes any connection', async () => {
    const pinned = await automation('Pinned', [{ connection_id: 'c1' }]);
    const any = await automation('Any');
    const none = await send({ event_type: 'deploy.finished' });
    expect(none.body.data.dispatched.map((x: any) => x.automationId)).toEqual([any.id]);
    const other = await send({ event_type: 'deploy.finished', connection_id: 'c2' });
    expect(other.body.data.dispatched.map((x: any) => x.automationId)).toEqual([any.id]);
    const right = await send({ event_type: 'deploy.finished', connection_id: 'c1' });
    expect(right.body.data.dispatched.map((x: any) => x.automationId)).toEqual([pinned.id, any.id]);
  });

  it('names the connection that kept a pinned trigger out', async () => {
    await automation('x', [{ connection_id: 'c1' }]);
    expect((await send({ event_type: 'deploy.finished' })).body.data.reason).toBe(
      'no automation matched provider "generic" event "deploy.finished": trigger of "x" expects connection_id "c1" (got none)',
    );
    expect((await send({ event_type: 'deploy.finished', connection_id: 'c2' })).body.data.reason).toBe(
      'no automation matched provider "generic" event "deploy.finished": trigger of "x" expects connection_id "c1" (got "c2")',
    );
  });

  it.each([
    { name: 'equals', filter: { jsonPath: '$.data.env', operator: 'equals', value: 'prod' }, hit: { env: 'prod' }, miss: { env: 'staging' }, why: '$.data.env equals "prod" was false (found "staging")' },
    { name: 'not_equals', filter: { jsonPath: '$.data.env', operator: 'not_equals', value: 'prod' }, hit: { env: 'dev' }, miss: { env: 'prod' }, why: '$.data.env not_equals "prod"' },
    { name: 'contains (array element)', filter: { jsonPath: '$.data.labels', operator: 'contains', value: 'bug' }, hit: { labels: ['ui', 'bug'] }, miss: { labels: ['bu', 'g'] }, why: '$.data.labels contains "bug" was false' },
    { name: 'starts_with', filter: { jsonPath: '$.data.branch', operator: 'starts_with', value: 'release/' }, hit: { branch: 'release/1.2' }, miss: { branch: 'main' }, why: '$.data.branch starts_with "release/" was false (found "main")' },
    { name: 'in', filter: { jsonPath: '$.data.env', operator: 'in', value: 'prod, staging' }, hit: { env: 'staging' }, miss: { env: 'dev' }, why: '$.data.env in "prod, staging" was false (found "dev")' },
    { name: 'exists', filter: { jsonPath: '$.data.pr', operator: 'exists' }, hit: { pr: 12 }, miss: {}, why: '$.data.pr found nothing' },
    { name: 'not_exists', filter: { jsonPath: '$.data.draft', operator: 'not_exists' }, hit: {}, miss: { draft: true }, why: '$.data.draft not_exists' },
    { name: 'matches', filter: { jsonPath: '$.data.version', operator: 'matches', value: '^v\\d+\\.\\d+$' }, hit: { version: 'v2.10' }, miss: { version: 'v2' }, why: '$.data.version matches' },
    { name: 'gt (number found, compared numerically)', filter: { jsonPath: '$.data.count', operator: 'gt', value: '9' }, hit: { count: 10 }, miss: { count: 9 }, why: '$.data.count gt "9" was false (found 9)' },
    { name: 'lte on a number sent as a string', filter: { jsonPath: '$.data.count', operator: 'lte', value: '5' }, hit: { count: '5' }, miss: { count: '6' }, why: '$.data.count lte "5"' },
    { name: 'equals on a boolean by its JSON text', filter: { jsonPath: '$.data.ok', operator: 'equals', value: 'true' }, hit: { ok: true }, miss: { ok: false }, why: '$.data.ok equals "true" was false (found false)' },
    { name: 'any node of a wildcard path', filter: { jsonPath: '$.data.items[*].sku', operator: 'equals', value: 'B' }, hit: { items: [{ sku: 'A' }, { sku: 'B' }] }, miss: { items: [{ sku: 'A' }] }, why: '$.data.items[*].sku equals "B"' },
  ])('filter $name: dispatches when true, names the filter and what it found when false', async ({ filter, hit, miss, why }) => {
    const a = await automation('Filtered', [{ filters: [filter] }]);
    const yes = await send({ event_type: 'deploy.finished', data: hit });
    expect(yes.body.data.dispatched.map((x: any) => x.automationId)).toEqual([a.id]);
    const no = await send({ event_type: 'deploy.finished', data: miss });
    expect(no.body.data.accepted).toBe(false);
    expect(no.body.data.reason).toContain(`no automation matched provider "generic" event "deploy.finished": trigger of "Filtered": filter ${why}`);
  });

  it('a path that finds nothing but would under $.data says so, in the dry run and in the real answer', async () => {
    const a = await automation('Top', [{ filters: [{ jsonPath: '$.env', operator: 'equals', value: 'prod' }] }]);
    const hint = `trigger of "Top": filter $.env found nothing; the event's payload is under $.data: did you mean $.data.env?`;
    const dry = await dryRun({ event_type: 'deploy.finished', data: { env: 'prod' } });
    expect(dry.body.data.matches).toEqual([expect.objectContaining({ automationId: a.id, matched: false, failed: hint })]);
    expect(dry.body.data.reason).toBe(`no automation matched provider "generic" event "deploy.finished": ${hint}`);
    const real = await send({ event_type: 'deploy.finished', data: { env: 'prod' } });
    expect(real.body.data).toEqual({ accepted: false, dispatched: [], reason: `no automation matched provider "generic" event "deploy.finished": ${hint}` });
    // Without env in the payload there is nothing to point at.
    expect((await send({ event_type: 'deploy.finished', data: {} })).body.data.reason).toBe(
      'no automation matched provider "generic" event "deploy.finished": trigger of "Top": filter $.env found nothing',
    );
  });

  it('filters see the whole normalised event: subject, metadata, source', async () => {
    const a = await automation('Whole', [{ filters: [
      { jsonPath: '$.subject', operator: 'ends_with', value: '-api' },
      { jsonPath: '$.metadata.branch', operator: 'equals', value: 'main' },
      { jsonPath: '$.source', operator: 'contains', value: 'ci' },
    ] }]);
    const res = await send({ event_type: 'deploy.finished', subject: 'svc-api', source: 'ci.example', metadata: { branch: 'main' } });
    expect(res.body.data.dispatched.map((x: any) => x.automationId)).toEqual([a.id]);
  });

  it('needs every filter: the first false one is named', async () => {
    await automation('Two', [{ filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }, { jsonPath: '$.data.region', operator: 'equals', value: 'eu' }] }]);
    const res = await send({ event_type: 'deploy.finished', data: { env: 'prod', region: 'us' } });
    expect(res.body.data.reason).toBe(
      'no automation matched provider "generic" event "deploy.finished": trigger of "Two": filter $.data.region equals "eu" was false (found "us")',
    );
  });

  it.each(['paused', 'disabled'] as const)('does not dispatch a %s automation and says so', async (status) => {
    const a = await automation('Deploy bot', [{}], { status });
    const res = await send({ event_type: 'deploy.finished' });
    expect(res.body.data).toEqual({
      accepted: false,
      dispatched: [],
      reason: `no active automation listens to provider "generic" event "deploy.finished": automation "Deploy bot" is ${status}`,
    });
    expect(await sessionsOf(a.id)).toEqual([]);
  });

  it('dispatches again once a paused automation is resumed', async () => {
    const a = await automation('Later', [{}], { status: 'paused' });
    await api('PATCH', `/teams/${slug}/automations/${a.id}`, { status: 'active' });
    expect((await send({ event_type: 'deploy.finished' })).body.data.accepted).toBe(true);
  });

  it('does not dispatch through a disabled trigger and says so', async () => {
    await automation('Off', [{ enabled: false }]);
    const res = await send({ event_type: 'deploy.finished' });
    expect(res.body.data.reason).toBe('no automation matched provider "generic" event "deploy.finished": trigger of "Off" is disabled');
  });

  it('dispatches several automations, each once, and leaves the others out', async () => {
    const a = await automation('A');
    const b = await automation('B', [{ filters: [{ jsonPath: '$.data.env', operator: 'in', value: 'prod,staging' }] }]);
    await automation('C', [{ filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'dev' }] }]);
    await automation('D', [{}], { status: 'paused' });
    await automation('E', [{ event_type: 'other' }]);
    const res = await send({ event_type: 'deploy.finished', id: 'multi', data: { env: 'prod' } });
    expect(res.body.data.accepted).toBe(true);
    expect(res.body.data.reason).toBe('dispatched to 2 automations');
    expect(res.body.data.dispatched).toEqual([
      { automationId: a.id, idempotencyKey: `event:${a.id}:multi`, triggerIds: [a.triggers[0].id] },
      { automationId: b.id, idempotencyKey: `event:${b.id}:multi`, triggerIds: [b.triggers[0].id] },
    ]);
    expect(await sessionsOf(a.id)).toHaveLength(1);
    expect(await sessionsOf(b.id)).toHaveLength(1);
  });

  it('starts one session for an automation several of whose triggers match, listing all of them', async () => {
    const a = await automation('Multi', [{}, { filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] }, { event_type: 'other' }]);
    const res = await send({ event_type: 'deploy.finished', id: 'm1', data: { env: 'prod' } });
    expect(res.body.data.dispatched).toEqual([{ automationId: a.id, idempotencyKey: `event:${a.id}:m1`, triggerIds: [a.triggers[0].id, a.triggers[1].id] }]);
    const sessions = await sessionsOf(a.id);
    expect(sessions).toHaveLength(1);
    expect(sessions[0].trigger_id).toBe(a.triggers[0].id);
    // One session is one run: the automation's total counts it once.
    expect((await getAutomation(a.id)).total_runs).toBe(1);
  });

  it('never dispatches another team\'s automation', async () => {
    const mine = slug;
    const other = await createTeam(d, `${mine}-other`);
    const res = await other.api('POST', `/teams/${other.team.slug}/automations`, { name: 'Theirs', prompt: 'p', event_type: 'deploy.finished' });
    expect(res.status).toBe(201);
    await automation('Mine');
    const sent = await send({ event_type: 'deploy.finished' });
    expect(sent.body.data.dispatched).toHaveLength(1);
    expect(sent.body.data.dispatched[0].automationId).not.toBe(res.body.data.id);
  });

  it('validates the body: event_type is required, unknown fields and non-object data are 400', async () => {
    expect((await send({})).body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'body.event_type is required' });
    expect((await send({ event_type: 'x', nope: 1 })).status).toBe(400);
    expect((await send({ event_type: 'x', data: [1] })).status).toBe(400);
    expect((await send({ event_type: 'x', time: 'yesterday' })).status).toBe(400);
  });

  it('answers 404 for another team\'s slug and 401 without a key', async () => {
    await createTeam(d, `${slug}-x`);
    expect((await api('POST', `/teams/${slug}-x/webhooks/events`, { event_type: 'x' })).status).toBe(404);
    expect((await d.as(null)('POST', `/teams/${slug}/webhooks/events`, { event_type: 'x' })).status).toBe(401);
  });
});

describe('send an event: idempotency', () => {
  it('a retried event id returns the same key and starts nothing new', async () => {
    const a = await automation('Once');
    const first = await send({ event_type: 'deploy.finished', id: 'retry-1' });
    const second = await send({ event_type: 'deploy.finished', id: 'retry-1' });
    expect(second.status).toBe(200);
    expect(second.body.data.dispatched).toEqual(first.body.data.dispatched);
    expect(second.body.data.accepted).toBe(true);
    expect(second.body.data.reason).toBe('dispatched to 1 automation (1 already dispatched for event id "retry-1": no new session)');
    expect(await sessionsOf(a.id)).toHaveLength(1);
    expect((await getAutomation(a.id)).total_runs).toBe(1);
  });

  it('concurrent deliveries of one event id start exactly one session per automation', async () => {
    const a = await automation('A');
    const b = await automation('B');
    const results = await Promise.all(Array.from({ length: 8 }, () => send({ event_type: 'deploy.finished', id: 'burst' })));
    for (const r of results) {
      expect(r.status).toBe(200);
      expect(r.body.data.dispatched.map((x: any) => x.idempotencyKey)).toEqual([`event:${a.id}:burst`, `event:${b.id}:burst`]);
    }
    expect(await sessionsOf(a.id)).toHaveLength(1);
    expect(await sessionsOf(b.id)).toHaveLength(1);
    expect((await getAutomation(a.id)).total_runs).toBe(1);
    expect((await eventsList()).body.data).toHaveLength(8);
  });

  it('the same event id dispatched to a new automation starts a session for that one only', async () => {
    const a = await automation('First');
    await send({ event_type: 'deploy.finished', id: 'later' });
    const b = await automation('Second');
    const res = await send({ event_type: 'deploy.finished', id: 'later' });
    expect(res.body.data.reason).toBe('dispatched to 2 automations (1 already dispatched for event id "later": no new session)');
    expect(await sessionsOf(a.id)).toHaveLength(1);
    expect(await sessionsOf(b.id)).toHaveLength(1);
  });

  it('events without an id get a new one each time, so each starts a session', async () => {
    const a = await automation('Fresh');
    const one = await send({ event_type: 'deploy.finished' });
    const two = await send({ event_type: 'deploy.finished' });
    expect(one.body.data.dispatched[0].idempotencyKey).not.toBe(two.body.data.dispatched[0].idempotencyKey);
    expect(await sessionsOf(a.id)).toHaveLength(2);
  });
});

describe('dry run', () => {
  it('reports what would dispatch, with keys and a verdict per automation considered, and starts and stores nothing', async () => {
    const a = await automation('Yes');
    const b = await automation('Paused', [{}], { status: 'paused' });
    const c = await automation('Env', [{ filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] }]);
    const g = await automation('GH', [{ provider: 'github' }]);
    const res = await dryRun({ event_type: 'deploy.finished', id: 'dry-1', data: { env: 'staging' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      accepted: true,
      dispatched: [{ automationId: a.id, idempotencyKey: `event:${a.id}:dry-1`, triggerIds: [a.triggers[0].id] }],
      reason: 'would dispatch to 1 automation',
      matches: [
        { id: a.id, automationId: a.id, name: 'Yes', matched: true, failed: null },
        { id: b.id, automationId: b.id, name: 'Paused', matched: false, failed: 'automation "Paused" is paused' },
        { id: c.id, automationId: c.id, name: 'Env', matched: false, failed: 'trigger of "Env": filter $.data.env equals "prod" was false (found "staging")' },
        { id: g.id, automationId: g.id, name: 'GH', matched: false, failed: 'trigger of "GH" listens to provider "github", not "generic"' },
      ],
    });
    expect(await sessionsOf(a.id)).toEqual([]);
    expect((await eventsList()).body.data).toEqual([]);
    expect((await getAutomation(a.id)).total_runs).toBe(0);
  });

  it('accepts dry_run=1 and treats dry_run=false as a real send', async () => {
    const a = await automation('Flag');
    expect((await send({ event_type: 'deploy.finished' }, '?dry_run=1')).body.data.matches).toHaveLength(1);
    const real = await send({ event_type: 'deploy.finished' }, '?dry_run=false');
    expect(real.body.data.matches).toBeUndefined();
    expect(await sessionsOf(a.id)).toHaveLength(1);
  });

  it('says when a real send of this event id would start nothing new', async () => {
    await automation('Seen');
    await send({ event_type: 'deploy.finished', id: 'seen' });
    const res = await dryRun({ event_type: 'deploy.finished', id: 'seen' });
    expect(res.body.data.reason).toBe('would dispatch to 1 automation (1 already dispatched for event id "seen": no new session would start)');
  });

  it('explains a miss the same way a real send does', async () => {
    await automation('Off', [{ enabled: false }]);
    const res = await dryRun({ event_type: 'deploy.finished' });
    expect(res.body.data).toMatchObject({ accepted: false, dispatched: [], reason: 'no automation matched provider "generic" event "deploy.finished": trigger of "Off" is disabled' });
  });
});

describe('a team that is not admitted', () => {
  const admit = (on: boolean) => d.admin('PATCH', `/admin/teams/${slug}`, { execution_admitted: on });

  it('gets 402 EXECUTION_DENIED when an automation matches, and nothing starts or is stored', async () => {
    const a = await automation('Blocked');
    await admit(false);
    const res = await send({ event_type: 'deploy.finished', id: 'denied' });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('EXECUTION_DENIED');
    expect((await eventsList()).body.data).toEqual([]);
    expect(await sessionsOf(a.id)).toEqual([]);
    expect((await getAutomation(a.id)).total_runs).toBe(0);
  });

  it('gets the usual 200 when nothing matches', async () => {
    await automation('Blocked');
    await admit(false);
    const res = await send({ event_type: 'nobody.listens' });
    expect(res.status).toBe(200);
    expect(res.body.data.accepted).toBe(false);
    expect((await eventsList()).body.data).toHaveLength(1);
  });

  it('dry runs get the 402 a real send would when an automation matches, saying how many; the usual 200 when none does', async () => {
    await automation('Blocked');
    await admit(false);
    const res = await dryRun({ event_type: 'deploy.finished' });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('EXECUTION_DENIED');
    expect(res.body.error.message).toContain('(dry run: 1 automation matches this event, and a real send would be refused the same way)');
    const none = await dryRun({ event_type: 'nobody.listens' });
    expect(none.status).toBe(200);
    expect(none.body.data.accepted).toBe(false);
    expect((await eventsList()).body.data).toEqual([]);
  });

  it('dispatches again once admitted, and the event id was never used up', async () => {
    const a = await automation('Blocked');
    await admit(false);
    expect((await send({ event_type: 'deploy.finished', id: 'again' })).status).toBe(402);
    await admit(true);
    const res = await send({ event_type: 'deploy.finished', id: 'again' });
    expect(res.body.data.reason).toBe('dispatched to 1 automation');
    expect(await sessionsOf(a.id)).toHaveLength(1);
  });
});

describe('GET /teams/{slug}/events', () => {
  it('lists received events newest first: the normalised event with accepted, dispatched and reason', async () => {
    const a = await automation('Listed');
    await send({ event_type: 'deploy.finished', id: 'l1', data: { n: 1 } });
    await send({ event_type: 'other.thing', subject: 's', time: '2026-01-02T03:04:05+01:00' });
    const res = await eventsList();
    expect(res.status).toBe(200);
    const [second, first] = res.body.data;
    expect(res.body.next_cursor).toBeUndefined();
    expect(first).toEqual({
      id: 'l1', provider: 'generic', event_type: 'deploy.finished', connection_id: null, source: null, subject: null,
      time: first.received_at, metadata: {}, data: { n: 1 }, received_at: first.received_at, accepted: true,
      dispatched: [{ automationId: a.id, idempotencyKey: `event:${a.id}:l1`, triggerIds: [a.triggers[0].id] }],
      reason: 'dispatched to 1 automation',
    });
    expect(second).toMatchObject({
      event_type: 'other.thing', subject: 's', time: '2026-01-02T02:04:05.000Z', accepted: false, dispatched: [],
      reason: 'no active automation listens to provider "generic" event "other.thing"',
    });
    expect(second.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps one row per receipt, retries included', async () => {
    await automation('R');
    await send({ event_type: 'deploy.finished', id: 'twice' });
    await send({ event_type: 'deploy.finished', id: 'twice' });
    const rows = (await eventsList()).body.data;
    expect(rows.map((r: any) => r.id)).toEqual(['twice', 'twice']);
    expect(rows[0].reason).toMatch(/already dispatched/);
  });

  it('pages with limit and cursor and narrows by event_type', async () => {
    for (let i = 0; i < 5; i++) await send({ event_type: i % 2 ? 'odd' : 'even', id: `p${i}` });
    const page1 = await eventsList('?limit=2');
    expect(page1.body.data.map((e: any) => e.id)).toEqual(['p4', 'p3']);
    const page2 = await eventsList(`?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data.map((e: any) => e.id)).toEqual(['p2', 'p1']);
    const page3 = await eventsList(`?limit=2&cursor=${page2.body.next_cursor}`);
    expect(page3.body.data.map((e: any) => e.id)).toEqual(['p0']);
    expect(page3.body.next_cursor).toBeUndefined();
    expect((await eventsList('?event_type=odd')).body.data.map((e: any) => e.id)).toEqual(['p3', 'p1']);
    expect((await eventsList('?limit=0')).status).toBe(400);
    expect((await eventsList('?cursor=bogus')).status).toBe(400);
  });

  it('shows a team only its own events', async () => {
    await send({ event_type: 'mine' });
    const other = await createTeam(d, `${slug}-o`);
    expect((await other.api('GET', `/teams/${other.team.slug}/events`)).body.data).toEqual([]);
    expect((await other.api('GET', `/teams/${slug}/events`)).status).toBe(404);
  });
});
