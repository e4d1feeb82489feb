// SessionService.start as event dispatch and the scheduler call it: idempotency keys (repeated
// and concurrent), admission, and the stored dispatch row. In-process, over a real journal store.
import { rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/logger.js';
import { buildServices, type Services } from '../../daemon/services.js';
import { openStore } from '../../daemon/store/index.js';
import type { Store } from '../../daemon/store/store.js';
import { generateMasterKey } from '../../daemon/secrets/secret-file.js';
import { makeDataDir } from '../helpers/daemon.js';

let dataDir: string;
let store: Store;
let services: Services;
let teamId: string;
let envId: string;

beforeEach(async () => {
  dataDir = await makeDataDir();
  const logger = createLogger('silent');
  store = await openStore({ dataDir, logger });
  services = buildServices({ store, clock: () => new Date(), options: { dataDir, masterKey: generateMasterKey() }, logger });
  const team = await services.teams.createTeam({ slug: 'acme' });
  teamId = team.id;
  envId = (await services.teams.listEnvironments(teamId))[0].id;
});

afterEach(async () => {
  await services.stop();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

const countSessions = () => store.read((tx) => tx.count('sessions', { team_id: teamId }));

describe('SessionService.start idempotency', () => {
  it('returns the session a key started before, with created=false, and starts nothing new', async () => {
    const req = { teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'event:a:1', event: { id: '1' } };
    const first = await services.sessions.start(req);
    expect(first.created).toBe(true);
    expect(first.session).toMatchObject({ idempotency_key: 'event:a:1', status: 'completed', event: { id: '1' } });
    const again = await services.sessions.start({ ...req, prompt: 'different' });
    expect(again.created).toBe(false);
    expect(again.session.session_id).toBe(first.session.session_id);
    expect(again.session.prompt).toBe('p');
    expect(await countSessions()).toBe(1);
    const dispatch = await store.read((tx) => tx.get('dispatches', 'event:a:1'));
    expect(dispatch).toMatchObject({ team_id: teamId, session_id: first.session.session_id });
  });

  it('starts exactly one session for concurrent starts with the same key', async () => {
    const req = { teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'schedule:t:2026-01-01T00:00:00.000Z' };
    const results = await Promise.all(Array.from({ length: 8 }, () => services.sessions.start(req)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.session.session_id)).size).toBe(1);
    expect(await countSessions()).toBe(1);
    const messages = await store.read((tx) => tx.list('messages', { session_id: results[0].session.session_id }));
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

describe('SessionService admission', () => {
  it('throws EXECUTION_DENIED (402) for a team that is not admitted and stores nothing, not even the key', async () => {
    await services.teams.updateTeam('acme', { execution_admitted: false });
    await expect(services.sessions.assertAdmitted(teamId)).rejects.toMatchObject({ code: 'EXECUTION_DENIED', status: 402 });
    await expect(services.sessions.start({ teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'k' })).rejects.toMatchObject({
      code: 'EXECUTION_DENIED',
    });
    expect(await countSessions()).toBe(0);
    expect(await store.read((tx) => tx.get('dispatches', 'k'))).toBeUndefined();

    await services.teams.updateTeam('acme', { execution_admitted: true });
    await expect(services.sessions.assertAdmitted(teamId)).resolves.toBeUndefined();
    expect((await services.sessions.start({ teamId, prompt: 'p', environmentId: envId, idempotencyKey: 'k' })).created).toBe(true);
  });
});
