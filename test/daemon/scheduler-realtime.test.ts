// The scheduler in a real daemon on the real clock: a one-off automation a couple of seconds
// ahead starts its session. Only a generous deadline, no timing assertions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 20_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('scheduler in a running daemon', () => {
  let d: TestDaemon;
  let api: Requester;

  beforeAll(async () => {
    d = await startTestDaemon();
    ({ api } = await createTeam(d, 'acme'));
  });
  afterAll(() => d.destroy());

  it('starts the session of a one-off automation when its time comes, then completes the trigger', async () => {
    const at = new Date(Date.now() + 2_000).toISOString();
    const created = await api('POST', '/teams/acme/automations', { name: 'Soon', prompt: 'Say hello', one_off_at: at });
    expect(created.status).toBe(201);
    const a = created.body.data;
    expect(a.next_run_at).toBe(at);

    const sessions = await until('the scheduled session', async () => {
      const res = await api('GET', '/teams/acme/sessions');
      const mine = res.body.data.filter((s: any) => s.automation_id === a.id);
      return mine.length > 0 ? mine : undefined;
    });
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      prompt: 'Say hello',
      trigger_id: a.triggers[0].id,
      idempotency_key: `schedule:${a.triggers[0].id}:${at}`,
      kind: 'conversational',
      persona: 'main',
    });

    const after = await until('the run to be recorded', async () => {
      const res = await api('GET', `/teams/acme/automations/${a.id}`);
      return res.body.data.total_runs === 1 ? res.body.data : undefined;
    });
    expect(after).toMatchObject({ next_run_at: null, lease_owner: null, lease_until: null, last_error: null });
    expect(after.triggers[0]).toMatchObject({ status: 'completed', next_run_at: null, total_runs: 1 });
    expect(after.last_run_at).not.toBeNull();

    const runs = await api('GET', `/teams/acme/automations/${a.id}/runs`);
    expect(runs.body.data.map((s: any) => s.session_id)).toEqual([sessions[0].session_id]);
  });
});
