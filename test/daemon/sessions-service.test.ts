// SessionService.start as event dispatch and the scheduler call it: idempotency keys (repeated
// and concurrent), admission, and the stored dispatch row. In-process, over a real journal store.
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/logger.js';
import { buildServices, type Services } from '../../daemon/services.js';
import { openStore } from '../../daemon/store/index.js';
import type { JournalStore } from '../../daemon/store/index.js';
import { generateMasterKey } from '../../daemon/secrets/secret-file.js';
import { makeDataDir } from '../helpers/daemon.js';

let dataDir: string;
let store: JournalStore;
let services: Services;
let teamId: string;
let envId: string;

// A webhook runtime that takes every turn and answers it at once.
let runtime: Server;
let runtimeUrl: string;
beforeAll(async () => {
  runtime = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"done"}'));
  });
  await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
  runtimeUrl = `http://127.0.0.1:${(runtime.address() as AddressInfo).port}/turns`;
});
afterAll(() => new Promise((resolve) => runtime.close(resolve)));

async function open(runner: 'record' | 'webhook' = 'record') {
  dataDir = await makeDataDir();
  const logger = createLogger('silent');
  store = await openStore({ dataDir, logger });
  const options = { dataDir, masterKey: generateMasterKey(), runner, runnerUrl: runner === 'webhook' ? runtimeUrl : undefined, runnerSecret: 's' };
  services = buildServices({ store, clock: () => new Date(), options, logger });
  const team = await services.teams.createTeam({ slug: 'acme' });
  teamId = team.id;
  envId = (await services.teams.listEnvironments(teamId))[0].id;
}

afterEach(async () => {
  await services.stop();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

const countSessions = () => store.read((tx) => tx.count('sessions', { team_id: teamId }));

describe('SessionService.start idempotency', () => {
  beforeEach(() => open());

  it('returns the session a key started before, with created=false, and starts nothing new', async () => {
    const event = { rowId: 'event-row-1', data: { id: '1' } };
    const req = { teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'event:a:1', event };
    const first = await services.sessions.start(req);
    expect(first.created).toBe(true);
    expect(first.session).toMatchObject({ idempotency_key: 'event:a:1', status: 'completed', event: { id: '1' } });
    const again = await services.sessions.start({ ...req, prompt: 'different' });
    expect(again.created).toBe(false);
    expect(again.session.session_id).toBe(first.session.session_id);
    expect(again.session.prompt).toBe('p');
    expect(await countSessions()).toBe(1);
    const [keyed] = await store.read((tx) => tx.list('sessions', { idempotency_key: 'event:a:1' }));
    expect(keyed).toMatchObject({ team_id: teamId, session_id: first.session.session_id, event_row_id: 'event-row-1' });
  });

  it('starts exactly one session for concurrent starts with the same key', async () => {
    const req = { teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'schedule:t:2026-01-01T00:00:00.000Z' };
    const results = await Promise.all(Array.from({ length: 8 }, () => services.sessions.start(req)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.session.session_id)).size).toBe(1);
    expect(await countSessions()).toBe(1);
    const { messages } = await services.sessions.get(teamId, results[0].session.session_id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('starts separate sessions for different keys and for starts without a key', async () => {
    await services.sessions.start({ teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'k1' });
    await services.sessions.start({ teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'k2' });
    await services.sessions.start({ teamId, prompt: 'p', environmentId: envId });
    await services.sessions.start({ teamId, prompt: 'p', environmentId: envId });
    expect(await countSessions()).toBe(4);
  });

  it('keeps automation_id, trigger_id and a null environment as given', async () => {
    const { session } = await services.sessions.start({
      teamId, prompt: 'p', environmentId: null, automationId: '11111111-1111-4111-8111-111111111111',
      triggerId: '22222222-2222-4222-8222-222222222222',
    });
    expect(session).toMatchObject({
      automation_id: '11111111-1111-4111-8111-111111111111', trigger_id: '22222222-2222-4222-8222-222222222222', environment_id: null,
    });
  });
});

describe.each(['record', 'webhook'] as const)('SessionService.startMany (%s runner)', (runner) => {
  beforeEach(() => open(runner));

  it('stores every new session of a batch under its key, and answers each', async () => {
    const reqs = [1, 2, 3, 4, 5].map((i) => ({ teamId, prompt: `p${i}`, environmentId: envId, idempotencyKey: `batch:${i}` }));
    const results = await services.sessions.startMany(reqs);
    expect(results.map((r) => ('row' in r ? [r.created, r.row.status, r.row.prompt] : r.error.code))).toEqual(
      reqs.map((r) => [true, 'completed', r.prompt]),
    );
    expect(await countSessions()).toBe(5);
    for (const r of reqs) expect(await store.read((tx) => tx.count('sessions', { idempotency_key: r.idempotencyKey }))).toBe(1);
  });

  it('adds the caller rows to the write that stores the sessions and to the one that stores the outcomes through its hooks (none to settle for a runner that answers at once)', async () => {
    const seen: { stored?: number; queuedInStored?: string[]; settled?: string[] } = {};
    const [result] = await services.sessions.startMany([{ teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'hooked' }], {
      stored: async (tx, starts) => {
        seen.stored = starts.length;
        seen.queuedInStored = starts.map((s) => ('row' in s ? s.row.status : 'error'));
        tx.put('teams', { ...(await tx.get('teams', teamId))!, name: 'stored with the sessions' });
      },
      settled: (_tx, outcomes) => {
        seen.settled = [...outcomes.values()].map((o) => ('error' in o ? 'error' : o.status));
      },
    });
    // The record runner completes each session as it is stored: it refuses none, so nothing is settled.
    expect(seen).toEqual(runner === 'record' ? { stored: 1, queuedInStored: ['completed'] } : { stored: 1, queuedInStored: ['queued'], settled: ['completed'] });
    expect('row' in result && result.created).toBe(true);
    expect((await store.read((tx) => tx.get('teams', teamId)))?.name).toBe('stored with the sessions');
  });

  it('refuses one request (an environment of no team) and starts the others', async () => {
    const results = await services.sessions.startMany([
      { teamId, prompt: 'ok', environmentId: envId, idempotencyKey: 'mixed:1' },
      { teamId, prompt: 'bad', environmentId: '00000000-0000-4000-8000-000000000000', idempotencyKey: 'mixed:2' },
    ]);
    expect('row' in results[0] && results[0].row.status).toBe('completed');
    expect('error' in results[1] && results[1].error.code).toBe('VALIDATION_ERROR');
    expect(await store.read((tx) => tx.count('sessions', { idempotency_key: 'mixed:2' }))).toBe(0);
  });

  it('starts the sessions of two teams in one batch, each read back whole by its own team only', async () => {
    const other = await services.teams.createTeam({ slug: 'other' });
    const otherEnv = (await services.teams.listEnvironments(other.id))[0].id;
    const results = await services.sessions.startMany([
      { teamId, prompt: 'a', environmentId: envId },
      { teamId: other.id, prompt: 'b', environmentId: otherEnv },
      { teamId, prompt: 'c', environmentId: envId },
    ]);
    const ids = results.map((r) => ('row' in r ? r.row.session_id : ''));
    expect(new Set(ids).size).toBe(3);
    for (const [i, [t, prompt]] of [[teamId, 'a'], [other.id, 'b'], [teamId, 'c']].entries()) {
      expect(await services.sessions.get(t, ids[i])).toMatchObject({ session_id: ids[i], team_id: t, prompt });
      await expect(services.sessions.get(t === teamId ? other.id : teamId, ids[i])).rejects.toMatchObject({ code: 'NOT_FOUND' });
    }
  });

  it('starts one session for a key repeated within the batch', async () => {
    const req = { teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'twice-in-batch' };
    const [a, b] = await services.sessions.startMany([req, req]);
    expect('row' in a && 'row' in b && [a.created, b.created, a.row.session_id === b.row.session_id]).toEqual([true, false, true]);
    expect(await countSessions()).toBe(1);
  });
});

describe.each(['record', 'webhook'] as const)('EventService.send (%s runner)', (runner) => {
  beforeEach(() => open(runner));

  it('stores a matched event with its sessions and trigger counters', async () => {
    const automations = [];
    for (const name of ['A', 'B', 'C']) {
      automations.push(await services.automations.create(teamId, { name, prompt: `prompt ${name}`, event_type: 'deploy.finished' }));
    }
    const team = (await store.read((tx) => tx.get('teams', teamId)))!;
    const result = await services.events.send(team, { event_type: 'deploy.finished', id: 'batched' });
    expect(result).toMatchObject({ accepted: true, reason: 'dispatched to 3 automations' });
    const stored = await store.read(async (tx) => ({
      events: (await tx.list('events', { team_id: teamId })).map((e) => [e.event_id, e.reason]),
      sessions: (await tx.list('sessions', { team_id: teamId })).map((s) => s.status),
      runs: await Promise.all(automations.map(async (a) => (await tx.list('triggers', { automation_id: a.id }))[0].total_runs)),
    }));
    expect(stored).toEqual({ events: [['batched', 'dispatched to 3 automations']], sessions: ['completed', 'completed', 'completed'], runs: [1, 1, 1] });
  });

  it("keys an event's sessions by their receipt: no key stored on the row, the same key shown, a retry finding them", async () => {
    const a = await services.automations.create(teamId, { name: 'A', prompt: 'p', event_type: 'push' });
    const team = (await store.read((tx) => tx.get('teams', teamId)))!;
    await services.events.send(team, { event_type: 'push', id: 'once:with:colons' });
    const [row] = await store.read((tx) => tx.list('sessions', { automation_id: a.id }));
    expect(row.idempotency_key).toBeNull();
    const [view] = (await services.sessions.list(teamId, { automation_id: a.id })).data;
    expect(view.idempotency_key).toBe(`event:${a.id}:once:with:colons`);

    const retry = await services.events.send(team, { event_type: 'push', id: 'once:with:colons' });
    expect(retry.reason).toBe('dispatched to 1 automation (1 already dispatched for event id "once:with:colons": no new session)');
    expect(await store.read((tx) => tx.count('sessions', { automation_id: a.id }))).toBe(1);
  });
});

describe('SessionService admission', () => {
  beforeEach(() => open());

  it('throws EXECUTION_DENIED (402) for a team that is not admitted and stores nothing, not even the key', async () => {
    await services.teams.updateTeam('acme', { execution_admitted: false });
    await expect(services.sessions.assertAdmitted(teamId)).rejects.toMatchObject({ code: 'EXECUTION_DENIED', status: 402 });
    await expect(services.sessions.start({ teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'k' })).rejects.toMatchObject({
      code: 'EXECUTION_DENIED',
    });
    expect(await countSessions()).toBe(0);
    expect(await store.read((tx) => tx.count('sessions', { idempotency_key: 'k' }))).toBe(0);

    await services.teams.updateTeam('acme', { execution_admitted: true });
    await expect(services.sessions.assertAdmitted(teamId)).resolves.toBeUndefined();
    expect((await services.sessions.start({ teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'k' })).created).toBe(true);
  });
});
