// Event dispatch when the runner refuses a session (a real local webhook runtime answering 503
// for some prompts): the event is still recorded, the failure is named in the reason, and a
// retried event id never starts a second session.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let runtime: Server;
let d: TestDaemon;
let api: Requester;
let slug: string;
let teams = 0;
const received: string[] = [];

beforeAll(async () => {
  runtime = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const turn = JSON.parse(body) as { prompt: string };
      received.push(turn.prompt);
      res.statusCode = turn.prompt.includes('refuse') ? 503 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(turn.prompt.includes('refuse') ? { error: 'busy' } : { message: 'done' }));
    });
  });
  await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
  const { port } = runtime.address() as AddressInfo;
  d = await startTestDaemon({ runner: 'webhook', runnerUrl: `http://127.0.0.1:${port}/turns`, runnerSecret: 'test-secret' });
});
afterAll(async () => {
  await d.destroy();
  await new Promise((resolve) => runtime.close(resolve));
});
beforeEach(async () => {
  slug = `rn${++teams}`;
  ({ api } = await createTeam(d, slug));
});

async function automation(name: string, prompt: string) {
  const res = await api('POST', `/teams/${slug}/automations`, { name, prompt, event_type: 'deploy.finished' });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data as { id: string };
}
const send = (id: string) => api('POST', `/teams/${slug}/webhooks/events`, { event_type: 'deploy.finished', id });
const sessionsOf = async (automationId: string) => (await api('GET', `/teams/${slug}/sessions?automation_id=${automationId}`)).body.data as any[];

describe('runner refusals', () => {
  it('answers 502 SESSION_START_FAILED when no session could be started, and still records the event', async () => {
    const a = await automation('Refuser', 'please refuse');
    const res = await send('r1');
    expect(res.status).toBe(502);
    expect(res.body.error).toEqual({
      code: 'SESSION_START_FAILED',
      message: 'nothing dispatched; session start failed for "Refuser": the runner could not start the session: the runner webhook answered HTTP 503',
    });
    const events = (await api('GET', `/teams/${slug}/events`)).body.data;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: 'r1', accepted: false, dispatched: [], reason: res.body.error.message });
    const sessions = await sessionsOf(a.id);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ status: 'failed', idempotency_key: `event:${a.id}:r1` });
    // A refused session is a failed run: counted, as a refused scheduled run is.
    expect((await api('GET', `/teams/${slug}/automations/${a.id}`)).body.data.total_runs).toBe(1);
  });

  it('answers 200 with what was dispatched and names the automation whose session the runner refused', async () => {
    const ok = await automation('Worker', 'do the work');
    await automation('Refuser', 'please refuse');
    const res = await send('r2');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      accepted: true,
      dispatched: [{ automationId: ok.id, idempotencyKey: `event:${ok.id}:r2`, triggerIds: [expect.any(String)] }],
      reason: 'dispatched to 1 automation; session start failed for "Refuser": the runner could not start the session: the runner webhook answered HTTP 503',
    });
    expect((await sessionsOf(ok.id))[0].status).toBe('completed');
  });

  it('stores the event with the result it answered, and counts a run for each session, the refused one too', async () => {
    const ok = await automation('Taker', 'take it');
    const refuser = await automation('Refuser', 'refuse it');
    const res = await send('r4');
    expect(res.status).toBe(200);
    const [stored] = (await api('GET', `/teams/${slug}/events`)).body.data;
    expect(stored).toMatchObject({ id: 'r4', accepted: true, dispatched: res.body.data.dispatched, reason: res.body.data.reason });
    const automationOf = async (id: string) => (await api('GET', `/teams/${slug}/automations/${id}`)).body.data;
    expect((await automationOf(ok.id)).triggers[0]).toMatchObject({ total_runs: 1, last_run_at: expect.any(String) });
    expect((await automationOf(refuser.id)).triggers[0]).toMatchObject({ total_runs: 1, last_run_at: stored.received_at });
    expect((await sessionsOf(refuser.id))[0]).toMatchObject({ status: 'failed', idempotency_key: `event:${refuser.id}:r4` });
  });

  it('a retry of a refused event id starts no second session and keeps saying it failed', async () => {
    const a = await automation('Refuser', 'refuse again');
    expect((await send('r3')).status).toBe(502);
    const before = received.length;
    const retry = await send('r3');
    expect(retry.status).toBe(502);
    expect(retry.body.error.message).toBe(
      'nothing dispatched; session start failed for "Refuser": the runner could not start the session: the runner webhook answered HTTP 503 ' +
        '(on an earlier delivery of event id "r3"; send the event with a new id to try again)',
    );
    expect(received.length).toBe(before);
    expect(await sessionsOf(a.id)).toHaveLength(1);
  });

  it('a dry run of a refused event id says what a real send would: nothing dispatched, and why', async () => {
    const refuser = await automation('Refuser', 'refuse on sight');
    const taker = await automation('Taker', 'take it');
    expect((await send('r4')).status).toBe(200);
    const dry = await api('POST', `/teams/${slug}/webhooks/events?dry_run=true`, { event_type: 'deploy.finished', id: 'r4' });
    expect(dry.status).toBe(200);
    expect(dry.body.data.accepted).toBe(true);
    expect(dry.body.data.dispatched.map((x: any) => x.automationId)).toEqual([taker.id]);
    expect(dry.body.data.reason).toBe(
      'would dispatch to 1 automation (1 already dispatched for event id "r4": no new session would start); session start failed for "Refuser": ' +
        'the runner could not start the session: the runner webhook answered HTTP 503 (on an earlier delivery of event id "r4"; send the event with a new id to try again)',
    );
    const real = await send('r4');
    expect(real.body.data).toMatchObject({ accepted: true, dispatched: dry.body.data.dispatched, reason: dry.body.data.reason.replace('would dispatch', 'dispatched').replace('no new session would start', 'no new session') });
    expect(await sessionsOf(refuser.id)).toHaveLength(1);
  });
});
