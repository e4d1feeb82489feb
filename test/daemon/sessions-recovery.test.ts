// What a daemon start does with sessions the previous process left behind, and follow-ups to
// sessions the API cannot create (child or non-conversational ones). The daemon's store is seeded
// through the real store (test-store.ts) while no daemon runs, as a crash would have left it.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESTART_ERROR } from '../../daemon/sessions/service.js';
import type { SessionRow } from '../../daemon/store/tables.js';
import { RECORDED_MESSAGE } from '../../daemon/runner/record.js';
import { createTeam, makeDataDir, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { openTestStore } from '../helpers/test-store.js';

let d: TestDaemon;
let api: Requester;
const ids = {
  queued: randomUUID(),
  execRunning: randomUUID(),
  /** more running exec turns of the same automation than it takes failures to disable it */
  busy: Array.from({ length: 12 }, () => randomUUID()),
  webhookRunning: randomUUID(),
  child: randomUUID(),
  task: randomUUID(),
  /** completed by the record runner before schema 6: its answer is a message row */
  recordedBefore: randomUUID(),
  /** schema 1: a copy of its event on the row, written before some of the event's fields existed */
  eventCopy: randomUUID(),
};
const answerRowId = randomUUID();
let automationId: string;

function row(teamId: string, id: string, patch: Partial<SessionRow>): SessionRow {
  const at = new Date().toISOString();
  return {
    session_id: id, team_id: teamId, kind: 'conversational', persona: 'main', status: 'queued', prompt: `prompt of ${id}`,
    parent_session_id: null, automation_id: null, trigger_id: null, idempotency_key: null, environment_id: null, event_row_id: null,
    created_at: at, updated_at: at, started_at: null, completed_at: null, last_error: null, runner: null, ...patch,
  };
}

beforeAll(async () => {
  const dataDir = await makeDataDir();
  const first = await startTestDaemon({ dataDir });
  const team = await createTeam(first, 'acme');
  const automation = await team.api('POST', '/teams/acme/automations', { name: 'A', prompt: 'p', event_type: 'push' });
  automationId = automation.body.data.id;
  await first.close();

  const store = await openTestStore(dataDir);
  const teamId = team.team.id;
  const started = new Date().toISOString();
  await store.write((tx) => {
    const put = (s: SessionRow) => tx.put('sessions', s);
    put(row(teamId, ids.queued, { status: 'queued' }));
    put(row(teamId, ids.execRunning, { status: 'running', runner: 'exec', started_at: started, automation_id: automationId }));
    for (const id of ids.busy) put(row(teamId, id, { status: 'running', runner: 'exec', started_at: started, automation_id: automationId }));
    put(row(teamId, ids.webhookRunning, { status: 'running', runner: 'webhook', started_at: started }));
    put(row(teamId, ids.child, { status: 'completed', parent_session_id: ids.queued, completed_at: started }));
    put(row(teamId, ids.task, { status: 'completed', kind: 'task', persona: 'worker', completed_at: started }));
    put(row(teamId, ids.recordedBefore, { status: 'completed', runner: 'record', started_at: started, completed_at: started }));
    put({ ...row(teamId, ids.eventCopy, { status: 'completed', completed_at: started }), event: { id: 'old-1', event_type: 'push', data: { n: 1 } } });
    tx.insert('messages', { id: answerRowId, session_id: ids.recordedBefore, role: 'assistant', content: RECORDED_MESSAGE, created_at: started });
  });
  await store.close();

  d = await startTestDaemon({ dataDir });
  api = d.as(team.key);
});
afterAll(() => d.destroy());

async function session(id: string) {
  return (await api('GET', `/teams/acme/sessions/${id}`)).body.data;
}

async function eventually(id: string, status: string) {
  const until = Date.now() + 20_000;
  for (;;) {
    const s = await session(id);
    if (s.status === status) return s;
    if (Date.now() > until) throw new Error(`session ${id} is ${s.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('sessions stored by an earlier release', () => {
  it('shows the answer a record session kept as a message row, once, after the prompt', async () => {
    const s = await session(ids.recordedBefore);
    expect(s.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', `prompt of ${ids.recordedBefore}`],
      ['assistant', RECORDED_MESSAGE],
    ]);
    expect(s.messages[1].id).toBe(answerRowId);
  });

  it('shows the copy of its event a schema-1 session kept as a whole normalised event, defaults filled in', async () => {
    const s = await session(ids.eventCopy);
    expect(s.event).toEqual({
      id: 'old-1', provider: 'generic', event_type: 'push', connection_id: null, source: null, subject: null,
      time: s.created_at, metadata: {}, data: { n: 1 }, received_at: s.created_at,
    });
    const listed = (await api('GET', '/teams/acme/sessions?limit=200')).body.data.find((x: any) => x.session_id === ids.eventCopy);
    expect(listed.event).toEqual(s.event);
  });
});

describe('daemon start after a crash', () => {
  it('hands a session left queued (stored, never handed over) to the runner', async () => {
    const s = await eventually(ids.queued, 'completed');
    expect(s.messages.map((m: any) => m.content)).toEqual([`prompt of ${ids.queued}`, RECORDED_MESSAGE]);
  });

  it('fails a session an exec runner had running, with last_error saying why, noted on its automation', async () => {
    const s = await eventually(ids.execRunning, 'failed');
    expect(s.last_error).toBe(RESTART_ERROR);
    expect(s.completed_at).not.toBeNull();
    expect((await api('GET', `/teams/acme/automations/${automationId}`)).body.data.last_error).toBe(RESTART_ERROR);
  });

  it('does not disable a busy automation for the turns its restart cut short: they are no failed runs of its own', async () => {
    for (const id of ids.busy) await eventually(id, 'failed');
    const a = (await api('GET', `/teams/acme/automations/${automationId}`)).body.data;
    expect(a.status).toBe('active');
    expect(a.last_error).toBe(RESTART_ERROR);
  });

  it('leaves a session a webhook runtime had running as running: that turn lives outside the daemon', async () => {
    await eventually(ids.execRunning, 'failed'); // recovery has run
    expect((await session(ids.webhookRunning)).status).toBe('running');
  });
});

describe('follow-ups to sessions that are not root conversational main sessions', () => {
  it('answers 400 for a child session', async () => {
    const res = await api('POST', `/teams/acme/sessions/${ids.child}/messages`, { message: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain('child session');
  });

  it('answers 400 for a root session of another kind and persona', async () => {
    const res = await api('POST', `/teams/acme/sessions/${ids.task}/messages`, { message: 'hi' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('kind task and persona worker');
  });
});
