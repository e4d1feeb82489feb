import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

describe('sessions with the record runner', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.destroy();
  });

  it('starts a conversational main session in the default environment and completes it at once', async () => {
    const { api } = await createTeam(d, 'rec-start');
    const envs = await api('GET', '/teams/rec-start/environments');
    const res = await api('POST', '/teams/rec-start/sessions', { prompt: 'hello' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ kind: 'conversational', persona: 'main', status: 'completed', prompt: 'hello', environment_id: envs.body.data[0].id });
    const got = await api('GET', `/teams/rec-start/sessions/${res.body.data.session_id}`);
    expect(got.body.data.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'hello'],
      ['assistant', 'recorded (record runner: nothing was executed)'],
    ]);
  });
});
