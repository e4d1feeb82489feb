// Run an automation now, list its runs, and what run outcomes do to the automation
// (last_error, consecutive failures, auto-disable after 10 in a row).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

async function settled(api: Requester, slug: string, id: string) {
  const until = Date.now() + 20_000;
  for (;;) {
    const s = (await api('GET', `/teams/${slug}/sessions/${id}`)).body.data;
    if (TERMINAL.has(s.status)) return s;
    if (Date.now() > until) throw new Error(`session ${id} did not finish`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function createAutomation(api: Requester, slug: string, body: Record<string, unknown>) {
  const res = await api('POST', `/teams/${slug}/automations`, { event_type: 'push', ...body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data;
}

describe('run now and its runs (record runner)', () => {
  let d: TestDaemon;
  let api: Requester;
  let other: Requester;

  beforeAll(async () => {
    d = await startTestDaemon();
    ({ api } = await createTeam(d, 'acme'));
    ({ api: other } = await createTeam(d, 'other'));
  });
  afterAll(() => d.destroy());

  it("starts a session from the automation's prompt and environment: 201, automation_id set, no trigger or key", async () => {
    const env = await d.admin('POST', '/admin/teams/acme/environments', { name: 'Prod', slug: 'prod' });
    const a = await createAutomation(api, 'acme', { name: 'Triage', prompt: 'Triage new issues', environment_id: env.body.data.id });
    const res = await api('POST', `/teams/acme/automations/${a.id}/runs`);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      prompt: 'Triage new issues', automation_id: a.id, trigger_id: null, idempotency_key: null, event: null,
      environment_id: env.body.data.id, kind: 'conversational', persona: 'main', status: 'completed', parent_session_id: null,
    });
    // an automation's session takes follow-ups like any root session
    const follow = await api('POST', `/teams/acme/sessions/${res.body.data.session_id}/messages`, { message: 'more detail' });
    expect(follow.status).toBe(202);
  });

  it('takes no body: an empty object is fine, a stray field is 400 and starts nothing', async () => {
    const a = await createAutomation(api, 'acme', { name: 'Bodies', prompt: 'p' });
    expect((await api('POST', `/teams/acme/automations/${a.id}/runs`, {})).status).toBe(201);
    const stray = await api('POST', `/teams/acme/automations/${a.id}/runs`, { x: 1 });
    expect(stray.status).toBe(400);
    expect(stray.body.error.message).toContain('body.x');
    expect((await api('GET', `/teams/acme/automations/${a.id}/runs`)).body.data).toHaveLength(1);
  });

  it('starts a new session on every call (no idempotency key)', async () => {
    const a = await createAutomation(api, 'acme', { name: 'Twice', prompt: 'p' });
    const one = await api('POST', `/teams/acme/automations/${a.id}/runs`);
    const two = await api('POST', `/teams/acme/automations/${a.id}/runs`);
    expect(one.body.data.session_id).not.toBe(two.body.data.session_id);
  });

  it('lists only its own sessions, newest first, paginated', async () => {
    const a = await createAutomation(api, 'acme', { name: 'Listed', prompt: 'p' });
    await api('POST', '/teams/acme/sessions', { prompt: 'unrelated' });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api('POST', `/teams/acme/automations/${a.id}/runs`)).body.data.session_id);
    const page1 = await api('GET', `/teams/acme/automations/${a.id}/runs?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((s: any) => s.session_id)).toEqual([ids[2], ids[1]]);
    const page2 = await api('GET', `/teams/acme/automations/${a.id}/runs?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data.map((s: any) => s.session_id)).toEqual([ids[0]]);
    expect(page2.body.next_cursor).toBeUndefined();
    // the same list through the sessions route
    const viaSessions = await api('GET', `/teams/acme/sessions?automation_id=${a.id}`);
    expect(viaSessions.body.data.map((s: any) => s.session_id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await api('GET', `/teams/acme/automations/${a.id}/runs?status=failed`)).body.data).toEqual([]);
  });

  it('can run a paused or disabled automation by hand', async () => {
    for (const status of ['paused', 'disabled']) {
      const a = await createAutomation(api, 'acme', { name: `Held ${status}`, prompt: 'p', status });
      const res = await api('POST', `/teams/acme/automations/${a.id}/runs`);
      expect(res.status).toBe(201);
      expect((await api('GET', `/teams/acme/automations/${a.id}`)).body.data.status).toBe(status);
    }
  });

  it("answers 404 for an unknown automation and for another team's, on both routes", async () => {
    const a = await createAutomation(api, 'acme', { name: 'Mine', prompt: 'p' });
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await api('POST', `/teams/acme/automations/${missing}/runs`)).status).toBe(404);
    expect((await api('GET', `/teams/acme/automations/${missing}/runs`)).status).toBe(404);
    expect((await other('POST', `/teams/other/automations/${a.id}/runs`)).status).toBe(404);
    expect((await other('GET', `/teams/other/automations/${a.id}/runs`)).status).toBe(404);
  });

  it('answers 402 when the team is not admitted and starts nothing', async () => {
    const { api: t } = await createTeam(d, 'held');
    const a = await createAutomation(t, 'held', { name: 'Gated', prompt: 'p' });
    await d.admin('PATCH', '/admin/teams/held', { execution_admitted: false });
    const res = await t('POST', `/teams/held/automations/${a.id}/runs`);
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('EXECUTION_DENIED');
    expect((await t('GET', `/teams/held/automations/${a.id}/runs`)).body.data).toEqual([]);
  });
});

describe('run outcomes and automation health (exec runner)', () => {
  let d: TestDaemon;
  let api: Requester;
  const slug = 'health';
  // passes when the turn's message starts with "pass", fails otherwise
  const runnerCommand = `if grep -q '"message":"pass'; then echo fine; else echo 'broken on purpose' >&2; exit 1; fi`;

  beforeAll(async () => {
    d = await startTestDaemon({ runner: 'exec', runnerCommand });
    ({ api } = await createTeam(d, slug));
  });
  afterAll(() => d.destroy());

  async function run(id: string) {
    const res = await api('POST', `/teams/${slug}/automations/${id}/runs`);
    expect(res.status).toBe(201);
    return settled(api, slug, res.body.data.session_id);
  }
  const automation = async (id: string) => (await api('GET', `/teams/${slug}/automations/${id}`)).body.data;

  it('notes a failed run in last_error and last_error_at', async () => {
    const a = await createAutomation(api, slug, { name: 'Noted', prompt: 'fail' });
    expect((await run(a.id)).status).toBe('failed');
    const after = await automation(a.id);
    expect(after.status).toBe('active');
    expect(after.last_error).toContain('exited with code 1: broken on purpose');
    expect(after.last_error_at).not.toBeNull();
  });

  it('disables the automation after 10 failed runs in a row and stops its schedule', async () => {
    const a = await createAutomation(api, slug, {
      name: 'Doomed', prompt: 'fail', event_type: undefined,
      triggers: [{ kind: 'schedule', cron_expression: '0 0 1 1 *' }],
    });
    expect(a.next_run_at).not.toBeNull();
    for (let i = 1; i <= 9; i++) expect((await run(a.id)).status).toBe('failed');
    expect((await automation(a.id)).status).toBe('active');
    await run(a.id);
    const after = await automation(a.id);
    expect(after.status).toBe('disabled');
    expect(after.last_error).toMatch(/^disabled after 10 failed runs in a row; last error: .*broken on purpose/);
    expect(after.next_run_at).toBeNull();
    expect(after.triggers[0].next_run_at).toBeNull();

    // still runnable by hand; resuming starts counting afresh and re-arms the schedule
    expect((await run(a.id)).status).toBe('failed');
    const resumed = await api('PATCH', `/teams/${slug}/automations/${a.id}`, { status: 'active' });
    expect(resumed.body.data.status).toBe('active');
    expect(resumed.body.data.next_run_at).not.toBeNull();
    await run(a.id);
    expect((await automation(a.id)).status).toBe('active');
  });

  it('resets the count on a successful run', async () => {
    const a = await createAutomation(api, slug, { name: 'Flaky', prompt: 'fail' });
    for (let i = 0; i < 9; i++) await run(a.id);
    await api('PATCH', `/teams/${slug}/automations/${a.id}`, { prompt: 'pass now' });
    expect((await run(a.id)).status).toBe('completed');
    await api('PATCH', `/teams/${slug}/automations/${a.id}`, { prompt: 'fail again' });
    expect((await run(a.id)).status).toBe('failed');
    expect((await automation(a.id)).status).toBe('active');
  });

  it('counts a failed follow-up turn of an automation session as a failed run', async () => {
    const a = await createAutomation(api, slug, { name: 'Followed', prompt: 'pass first' });
    const s = await run(a.id);
    expect(s.status).toBe('completed');
    expect((await api('POST', `/teams/${slug}/sessions/${s.session_id}/messages`, { message: 'now fail' })).status).toBe(202);
    expect((await settled(api, slug, s.session_id)).status).toBe('failed');
    expect((await automation(a.id)).last_error).toContain('broken on purpose');
  });
});

describe('run now when the runner refuses', () => {
  it('answers 502 SESSION_START_FAILED, lists the failed run and notes it on the automation', async () => {
    const server = createServer((_req, res) => res.writeHead(500).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const d = await startTestDaemon({ runner: 'webhook', runnerUrl: url, runnerSecret: 's3cret-s3cret' });
    try {
      const { api } = await createTeam(d, 'refused');
      const a = await createAutomation(api, 'refused', { name: 'Refused', prompt: 'p' });
      const res = await api('POST', `/teams/refused/automations/${a.id}/runs`);
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('SESSION_START_FAILED');
      const runs = (await api('GET', `/teams/refused/automations/${a.id}/runs`)).body.data;
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ status: 'failed', automation_id: a.id });
      expect(runs[0].last_error).toContain('HTTP 500');
      expect((await api('GET', `/teams/refused/automations/${a.id}`)).body.data.last_error).toContain('HTTP 500');
    } finally {
      await d.destroy();
      await new Promise((r) => server.close(r));
    }
  });
});
