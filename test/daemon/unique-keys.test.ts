// Uniqueness is the store's to keep (daemon/store/tables.ts); what a service looks up before its
// write only makes for a better answer. Over a store whose lookups miss a row (BlindStore), as
// they do when another daemon stored it just after the lookup, a taken name or slug is still 409,
// and a taken idempotency key still comes to the session it started: never a second session, and
// never a 500.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../daemon/errors.js';
import { eventIdempotencyKey } from '../../daemon/sessions/keys.js';
import type { TeamRow } from '../../daemon/store/tables.js';
import { BlindStore, inProcess, type InProcessDaemon } from './store-wrappers.js';

let d: InProcessDaemon<BlindStore>;
let acme: TeamRow;

beforeEach(async () => {
  d = await inProcess((s) => new BlindStore(s));
  const t = await d.services.teams.createTeam({ slug: 'acme' });
  acme = (await d.store.read((tx) => tx.get('teams', t.id)))!;
});
afterEach(() => d.close());

const failure = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err as ApiError);
const eventAutomation = (name: string) => d.services.automations.create(acme.id, { name, prompt: `React (${name})`, triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });

describe('a taken name or slug the lookup before the write missed', () => {
  it('automation create: 409 CONFLICT naming the name, and nothing stored', async () => {
    await eventAutomation('Nightly');
    d.store.blindTo('automations', ['team_id', 'name_key']);
    const err = await failure(eventAutomation('NIGHTLY'));
    expect(err).toMatchObject({ status: 409, code: 'CONFLICT', message: 'an automation named "NIGHTLY" already exists in this team' });
    expect(await d.store.read((tx) => tx.count('automations', { team_id: acme.id }))).toBe(1);
    expect(await d.store.read((tx) => tx.count('triggers', { team_id: acme.id }))).toBe(1);
  });

  it('automation rename to a taken name: 409 CONFLICT, and the automation keeps its name', async () => {
    await eventAutomation('Nightly');
    const other = await eventAutomation('Other');
    d.store.blindTo('automations', ['team_id', 'name_key']);
    const err = await failure(d.services.automations.update(acme.id, other.id, { name: 'nightly' }));
    expect(err).toMatchObject({ status: 409, code: 'CONFLICT', message: 'an automation named "nightly" already exists in this team' });
    expect((await d.services.automations.get(acme.id, other.id)).name).toBe('Other');
  });

  it('team slug: 409 CONFLICT', async () => {
    d.store.blindTo('teams', ['slug']);
    const err = await failure(d.services.teams.createTeam({ slug: 'acme' }));
    expect(err).toMatchObject({ status: 409, code: 'CONFLICT', message: 'team slug "acme" is taken' });
    expect(await d.services.teams.listTeams()).toHaveLength(1);
  });

  it('environment slug: 409 CONFLICT within the team; the same slug in another team is its own', async () => {
    await d.services.teams.createEnvironment('acme', { name: 'Staging', slug: 'staging' });
    d.store.blindTo('environments', ['team_id', 'slug']);
    const err = await failure(d.services.teams.createEnvironment('acme', { name: 'Staging again', slug: 'staging' }));
    expect(err).toMatchObject({ status: 409, code: 'CONFLICT', message: 'environment slug "staging" is taken in team acme' });
    const other = await d.services.teams.createTeam({ slug: 'other' });
    await d.services.teams.createEnvironment('other', { name: 'Staging', slug: 'staging' });
    expect((await d.services.teams.listEnvironments(acme.id)).map((e) => e.slug)).toEqual(['default', 'staging']);
    expect((await d.services.teams.listEnvironments(other.id)).map((e) => e.slug)).toEqual(['default', 'staging']);
  });
});

describe('a taken idempotency key the lookup before the write missed', () => {
  it('an event id an automation already started a session for comes to that session: already dispatched, nothing new', async () => {
    const a = await eventAutomation('A');
    const first = await d.services.events.send(acme, { event_type: 'deploy.finished', id: 'e1' });
    expect(first.accepted).toBe(true);
    // The next delivery's lookups miss the session (and the receipt that leads to it) once.
    d.store.blindTo('sessions', ['automation_id', 'event_id'], 1);
    const again = await d.services.events.send(acme, { event_type: 'deploy.finished', id: 'e1' });
    expect(again).toMatchObject({ accepted: true, dispatched: [{ automationId: a.id, idempotencyKey: eventIdempotencyKey(a.id, 'e1') }] });
    expect(again.reason).toBe('dispatched to 1 automation (1 already dispatched for event id "e1": no new session)');
    expect(await d.store.read((tx) => tx.count('sessions', { automation_id: a.id }))).toBe(1);
    const [trigger] = await d.store.read((tx) => tx.list('triggers', { automation_id: a.id }));
    expect(trigger.total_runs).toBe(1);
  });

  it('an event id whose session outlived its receipt (retention) starts nothing new either', async () => {
    const a = await eventAutomation('A');
    await d.services.events.send(acme, { event_type: 'deploy.finished', id: 'e1' });
    const [session] = await d.store.read((tx) => tx.list('sessions', { automation_id: a.id }));
    await d.store.write((tx) => tx.delete('events', session.event_row_id!));
    const again = await d.services.events.send(acme, { event_type: 'deploy.finished', id: 'e1' });
    expect(again.dispatched.map((x) => x.idempotencyKey)).toEqual([eventIdempotencyKey(a.id, 'e1')]);
    expect(again.reason).toMatch(/already dispatched/);
    expect(await d.store.read((tx) => tx.count('sessions', { automation_id: a.id }))).toBe(1);
  });

  it('a schedule slot key comes to the session it started: created false, the same session', async () => {
    const req = { teamId: acme.id, prompt: 'p', environmentId: null, idempotencyKey: 'schedule:t1:2026-01-01T00:00:00.000Z' };
    const first = await d.services.sessions.start(req);
    d.store.blindTo('sessions', ['idempotency_key'], 1);
    const again = await d.services.sessions.start(req);
    expect(again.created).toBe(false);
    expect(again.session.session_id).toBe(first.session.session_id);
    expect(await d.store.read((tx) => tx.count('sessions', { team_id: acme.id }))).toBe(1);
  });
});
