// Inbound events against the letter of CONTRACT §3 and §6, over HTTP on a real daemon: what a
// `matches` filter costs on sender-controlled text, and the shape of a dry run's `matches`.
import { afterEach, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
afterEach(async () => {
  await d?.destroy();
});

describe('event filters: `matches` is guarded against catastrophic backtracking (CONTRACT §6)', () => {
  it('saves any pattern RE2 compiles, the classic (a+)+$ included, and answers events on 8 KiB texts against them', async () => {
    d = await startTestDaemon();
    const { api } = await createTeam(d, 'acme');
    // On 8 KiB a backtracking engine takes minutes over the first two (\s*\s*\s*x is quartic on
    // spaces, .*a.*b cubic on a's) and forever over (a+)+$. RE2 answers in milliseconds; were the
    // daemon to backtrack, this test would time out.
    for (const [name, value] of [['spaces', '\\s*\\s*\\s*x'], ['letters', '.*a.*b'], ['nested', '(a+)+$']]) {
      const created = await api('POST', '/teams/acme/automations', {
        name,
        prompt: 'p',
        triggers: [{ kind: 'event', event_type: 'long.text', filters: [{ jsonPath: `$.data.${name}`, operator: 'matches', value }] }],
      });
      expect(created.status).toBe(201);
    }
    const res = await api('POST', '/teams/acme/webhooks/events', {
      event_type: 'long.text',
      data: { spaces: ' '.repeat(8192), letters: 'a'.repeat(8192), nested: `${'a'.repeat(8191)}!` },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.accepted).toBe(false);
    expect(res.body.data.reason).toMatch(/matches/);
  });
});

describe('dry run: `matches` items (CONTRACT §3)', () => {
  it('each item carries id, name and matched, as CONTRACT §3 names them', async () => {
    d = await startTestDaemon();
    const { api } = await createTeam(d, 'acme');
    const created = await api('POST', '/teams/acme/automations', { name: 'Deploys', prompt: 'p', event_type: 'deploy' });
    expect(created.status).toBe(201);
    const res = await api('POST', '/teams/acme/webhooks/events?dry_run=true', { event_type: 'deploy' });
    expect(res.status).toBe(200);
    expect(res.body.data.matches).toHaveLength(1);
    expect(res.body.data.matches[0]).toMatchObject({ id: created.body.data.id, name: 'Deploys', matched: true });
  });
});
