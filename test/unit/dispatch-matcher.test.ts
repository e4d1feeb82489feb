import { describe, expect, it } from 'vitest';
import { EventMatcher, type Candidate } from '../../daemon/dispatch/matcher.js';
import { normaliseEvent } from '../../daemon/dispatch/normalise.js';
import type { AutomationRow, EventFilter, TriggerRow } from '../../daemon/store/tables.js';
import type { SendEventInput } from '../../shared/schemas/index.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const TEAM = 'team-1';
let seq = 0;

function automation(over: Partial<AutomationRow> = {}): AutomationRow {
  const id = `a${++seq}`;
  return {
    id, team_id: TEAM, name: over.name ?? `Auto ${id}`, name_key: '', prompt: 'p', status: 'active', environment_id: null, repo_filters: {},
    last_error: null, last_error_at: null, consecutive_failures: 0, created_at: NOW.toISOString(), updated_at: NOW.toISOString(), ...over,
  };
}

function trigger(a: AutomationRow, over: Partial<TriggerRow> = {}): TriggerRow {
  return {
    id: `t${++seq}`, automation_id: a.id, team_id: TEAM, kind: 'event', position: 0, enabled: true, status: 'active', total_runs: 0,
    created_at: '', updated_at: '', timezone: null, cron_expression: null, one_off_at: null, next_run_at: null, last_run_at: null,
    lease_until: null, lease_owner: null, provider: 'generic', event_type: 'deploy.finished', connection_id: null, filters: [],
    match_key: null, ...over,
  };
}

const event = (input: Partial<SendEventInput> = {}) => normaliseEvent({ event_type: 'deploy.finished', id: 'e1', ...input }, NOW);
const only = (a: AutomationRow, t: TriggerRow): Candidate[] => [{ automation: a, trigger: t }];
const eq = (jsonPath: string, value: string): EventFilter => ({ jsonPath, operator: 'equals', value });

describe('EventMatcher.evaluateTrigger', () => {
  const m = new EventMatcher();

  it('matches an active automation with an enabled trigger, no connection and no filters', () => {
    const a = automation();
    expect(m.evaluateTrigger(a, trigger(a), event())).toMatchObject({ failed: null, passed: 5 });
  });

  it('names the provider when the trigger listens to another one', () => {
    const a = automation({ name: 'GH bot' });
    const v = m.evaluateTrigger(a, trigger(a, { provider: 'github' }), event());
    expect(v).toMatchObject({ passed: 0, failed: 'trigger of "GH bot" listens to provider "github", not "generic"' });
  });

  it('names the event type when it differs', () => {
    const a = automation({ name: 'x' });
    expect(m.evaluateTrigger(a, trigger(a, { event_type: 'deploy.started' }), event()).failed).toBe(
      'trigger of "x" listens to event "deploy.started", not "deploy.finished"',
    );
  });

  it.each(['paused', 'disabled'] as const)('reports a %s automation before anything about its trigger', (status) => {
    const a = automation({ name: 'Deploy bot', status });
    const v = m.evaluateTrigger(a, trigger(a, { enabled: false }), event());
    expect(v).toMatchObject({ passed: 2, failed: `automation "Deploy bot" is ${status}` });
  });

  it('reports a disabled trigger', () => {
    const a = automation({ name: 'x' });
    expect(m.evaluateTrigger(a, trigger(a, { enabled: false }), event()).failed).toBe('trigger of "x" is disabled');
  });

  it('requires the connection a trigger names, and says what the event carried', () => {
    const a = automation({ name: 'x' });
    const t = trigger(a, { connection_id: 'c1' });
    expect(m.evaluateTrigger(a, t, event()).failed).toBe('trigger of "x" expects connection_id "c1" (got none)');
    expect(m.evaluateTrigger(a, t, event({ connection_id: 'c2' })).failed).toBe('trigger of "x" expects connection_id "c1" (got "c2")');
    expect(m.evaluateTrigger(a, t, event({ connection_id: 'c1' })).failed).toBeNull();
  });

  it('lets a trigger without connection_id match events from any connection', () => {
    const a = automation();
    expect(m.evaluateTrigger(a, trigger(a), event({ connection_id: 'c9' })).failed).toBeNull();
  });

  it('needs every filter true and names the first false one with what it found', () => {
    const a = automation({ name: 'Deploy bot' });
    const t = trigger(a, { filters: [eq('$.data.service', 'api'), eq('$.data.env', 'prod'), eq('$.data.region', 'eu')] });
    const v = m.evaluateTrigger(a, t, event({ data: { service: 'api', env: 'staging', region: 'us' } }));
    expect(v.passed).toBe(6);
    expect(v.failed).toBe('trigger of "Deploy bot": filter $.data.env equals "prod" was false (found "staging")');
    expect(m.evaluateTrigger(a, t, event({ data: { service: 'api', env: 'prod', region: 'eu' } })).failed).toBeNull();
  });

  it('evaluates filters against the whole normalised event (subject, metadata, defaults)', () => {
    const a = automation();
    const t = trigger(a, {
      filters: [eq('$.subject', 'release'), eq('$.metadata.branch', 'main'), eq('$.provider', 'generic'), { jsonPath: '$.time', operator: 'exists' }],
    });
    expect(m.evaluateTrigger(a, t, event({ subject: 'release', metadata: { branch: 'main' } })).failed).toBeNull();
  });

  it('reports a stored filter that no longer compiles instead of throwing', () => {
    const a = automation({ name: 'x' });
    const t = trigger(a, { filters: [{ jsonPath: '$.data[', operator: 'equals', value: 'v' }] });
    expect(m.evaluateTrigger(a, t, event()).failed).toMatch(/^trigger of "x": filter \$\.data\[ could not be evaluated \(.+\)$/);
  });

  it('reuses compiled filters for the same stored list and recompiles a replaced one', () => {
    const a = automation();
    const t = trigger(a, { filters: [eq('$.data.env', 'prod')] });
    expect(m.evaluateTrigger(a, t, event({ data: { env: 'prod' } })).failed).toBeNull();
    expect(m.evaluateTrigger(a, t, event({ data: { env: 'prod' } })).failed).toBeNull();
    const updated = { ...t, filters: [eq('$.data.env', 'staging')] };
    expect(m.evaluateTrigger(a, updated, event({ data: { env: 'prod' } })).failed).toMatch(/equals "staging" was false/);
  });

  it('judges lists read anew for every event (as a database hands them out) by what they hold', () => {
    const a = automation();
    const read = (env: string) => trigger(a, { id: 't-read', filters: JSON.parse(JSON.stringify([eq('$.data.env', env)])) as EventFilter[] });
    expect(m.evaluateTrigger(a, read('prod'), event({ data: { env: 'prod' } })).failed).toBeNull();
    expect(m.evaluateTrigger(a, read('prod'), event({ data: { env: 'prod' } })).failed).toBeNull();
    expect(m.evaluateTrigger(a, read('staging'), event({ data: { env: 'prod' } })).failed).toMatch(/equals "staging" was false/);
    expect(m.evaluateTrigger(a, read('prod'), event({ data: { env: 'staging' } })).failed).toMatch(/equals "prod" was false/);
  });
});

describe('EventMatcher.evaluate', () => {
  const m = new EventMatcher();

  it('gives one verdict per automation carrying all its matching triggers in trigger order', () => {
    const a = automation();
    const t1 = trigger(a, { position: 1 });
    const t0 = trigger(a, { position: 0 });
    const off = trigger(a, { position: 2, enabled: false });
    const [v] = m.evaluate([{ automation: a, trigger: t1 }, { automation: a, trigger: off }, { automation: a, trigger: t0 }], event());
    expect(v).toMatchObject({ matched: true, failed: null, triggerIds: [t0.id, t1.id] });
  });

  it('explains a non-matching automation by its nearest trigger', () => {
    const a = automation({ name: 'x' });
    const disabled = trigger(a, { position: 0, enabled: false });
    const wrongEnv = trigger(a, { position: 1, filters: [eq('$.data.env', 'prod')] });
    const [v] = m.evaluate([{ automation: a, trigger: disabled }, { automation: a, trigger: wrongEnv }], event({ data: { env: 'dev' } }));
    expect(v.matched).toBe(false);
    expect(v.failed).toBe('trigger of "x": filter $.data.env equals "prod" was false (found "dev")');
  });

  it('keeps automations in the order their triggers came', () => {
    const a = automation();
    const b = automation({ status: 'paused' });
    const vs = m.evaluate([...only(b, trigger(b)), ...only(a, trigger(a))], event());
    expect(vs.map((v) => [v.automation.id, v.matched])).toEqual([[b.id, false], [a.id, true]]);
  });

  it('returns nothing for no candidates', () => {
    expect(m.evaluate([], event())).toEqual([]);
  });

  // A few candidates are grouped by a scan, many through a map: both must group alike.
  it.each([3, 40])('groups the interleaved triggers of %i automations, in first-seen order', (n) => {
    const autos = Array.from({ length: n }, (_, i) => automation({ status: i % 3 === 2 ? 'paused' : 'active' }));
    const first = autos.map((a) => trigger(a, { position: 0, enabled: false }));
    const second = autos.map((a) => trigger(a, { position: 1 }));
    const candidates = [...autos.map((a, i) => ({ automation: a, trigger: first[i] })), ...autos.map((a, i) => ({ automation: a, trigger: second[i] }))];
    const vs = m.evaluate(candidates, event());
    expect(vs.map((v) => v.automation.id)).toEqual(autos.map((a) => a.id));
    vs.forEach((v, i) => {
      if (i % 3 === 2) expect(v).toMatchObject({ matched: false, triggerIds: [] });
      else expect(v).toMatchObject({ matched: true, triggerIds: [second[i].id] });
    });
  });

  it("shares a trigger's list of matched ids between events, and across updates of its row", () => {
    const a = automation();
    const t = trigger(a);
    const [v1] = m.evaluate(only(a, t), event({ id: 'e1' }));
    const [v2] = m.evaluate(only(a, { ...t, total_runs: 1 }), event({ id: 'e2' }));
    expect(v1.triggerIds).toEqual([t.id]);
    expect(v2.triggerIds).toBe(v1.triggerIds);
    expect(Object.isFrozen(v1.triggerIds)).toBe(true);
  });
});

describe('EventMatcher.evaluate: the work bound of one event', () => {
  const m = new EventMatcher();
  // 20,000 numbers: `$..*` and its twins visit some 20,000-40,000 nodes each, within one filter's
  // 50,000 but not ten times over within the event's 200,000.
  const wide = event({ data: { flag: 'on', xs: Array.from({ length: 20_000 }, (_, i) => i) } });
  const heavy = (jsonPath: string) => {
    const a = automation({ name: jsonPath });
    return { automation: a, trigger: trigger(a, { filters: [eq(jsonPath, 'nope')] }) };
  };
  const failures = (verdicts: { automation: AutomationRow; failed: string | null }[]) => verdicts.map((v) => v.failed ?? 'matched');

  it('walks a path many filters share once per event: fifty of them fit where two distinct walks would not', () => {
    const verdicts = m.evaluate(Array.from({ length: 50 }, () => heavy('$..*')), wide);
    for (const failed of failures(verdicts)) expect(failed).toMatch(/^trigger of "\$\.\.\*": filter \$\.\.\* equals "nope" was false \(found .*, … \(\d+ nodes\)\)$/);
  });

  it('fails the filters past the budget of their event, naming it, while member-name paths still count', () => {
    const distinct = ['$..*', '$..[*]', '$.data..*', '$.data..[*]', '$..xs[*]', '$..xs.*', '$.data.xs[*]', '$.data.xs.*', '$.data.xs[0:]', '$.data.xs[::1]'].map(heavy);
    const cheap = automation({ name: 'cheap' });
    const verdicts = m.evaluate([...distinct, { automation: cheap, trigger: trigger(cheap, { filters: [eq('$.data.flag', 'on')] }) }], wide);
    const messages = failures(verdicts);
    expect(messages[0]).toMatch(/was false/);
    expect(messages.slice(0, 10).filter((f) => f.includes('the filters this event met visited more than 200,000 nodes of it together')).length).toBeGreaterThanOrEqual(2);
    expect(messages[10]).toBe('matched');
    // Another event starts with a whole budget.
    expect(failures(m.evaluate(distinct.slice(0, 1), event({ data: { xs: [1] } })))[0]).toMatch(/was false/);
  });

  it('shares the budget between the calls given the same EventPaths', async () => {
    const { EventPaths } = await import('../../shared/filters.js');
    const paths = new EventPaths(wide);
    const spend = ['$..*', '$..[*]', '$.data..*', '$.data..[*]', '$..xs[*]', '$..xs.*', '$.data.xs[*]', '$.data.xs.*', '$.data.xs[0:]'].map(heavy);
    m.evaluate(spend, wide, paths);
    expect(failures(m.evaluate([heavy('$.data.xs[::1]')], wide, paths))[0]).toMatch(/visited more than 200,000 nodes of it together/);
    expect(failures(m.evaluate([heavy('$.data.xs[::1]')], wide))[0]).toMatch(/was false/);
  });
});
