import { afterEach, describe, expect, it } from 'vitest';
import { clockInOneWindow, createTeam, startTestDaemon as startDaemon, type TestDaemon } from '../helpers/daemon.js';
import type { DaemonOptions } from '../../daemon/config.js';

// Every test here counts requests in one rate-limit window.
const startTestDaemon = (opts: Partial<DaemonOptions> = {}) => startDaemon({ now: clockInOneWindow(), ...opts });

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.destroy();
  d = undefined;
});

describe('authentication (spec §5)', () => {
  it('answers 401 UNAUTHORIZED for a missing, malformed, unknown, pat or foreign-prefix bearer', async () => {
    d = await startTestDaemon();
    await createTeam(d, 'acme');
    const cases: (string | null)[] = [null, 'svc_team_doesnotexist0000000000000000000000', 'svc_pat_abcdefabcdefabcdefabcdefabcdef', 'sk_live_123', 'svc_proj_abc'];
    for (const token of cases) {
      const res = await d.as(token)('GET', '/teams/acme/automations');
      expect(res.status, `token ${token}`).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    const basic = await d.as(null)('GET', '/teams/acme/automations', undefined, { headers: { authorization: 'Basic abc' } });
    expect(basic.status).toBe(401);
  });

  it("answers 404 for another team's slug, so its existence is not revealed", async () => {
    d = await startTestDaemon();
    const a = await createTeam(d, 'team-a');
    await createTeam(d, 'team-b');
    const other = await a.api('GET', '/teams/team-b/automations');
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('NOT_FOUND');
    const missing = await a.api('GET', '/teams/no-such-team/automations');
    expect(missing.status).toBe(404);
    // its own team's id works in place of the slug, in capitals too
    expect((await a.api('GET', `/teams/${a.team.id.toUpperCase()}/automations`)).status).toBe(200);
    expect((await a.api('GET', `/teams/${a.team.id.toUpperCase()}/env-vars`)).status).toBe(200);
  });

  it('refuses a project key on team routes and a team key on project routes with 401', async () => {
    d = await startTestDaemon();
    const { api, key } = await createTeam(d, 'acme');
    const project = (await d.admin('POST', '/admin/teams/acme/projects', { name: 'P' })).body.data;
    const pkey = (await d.admin('POST', `/admin/projects/${project.id}/key`)).body.data.key;
    expect((await d.as(pkey)('GET', '/teams/acme/automations')).status).toBe(401);
    expect((await d.as(key)('GET', `/projects/${project.id}`)).status).toBe(401);
    expect((await api('GET', '/teams/acme/automations')).status).toBe(200);
  });

  it('puts the three rate-limit headers on every authenticated response, errors included', async () => {
    const now = clockInOneWindow();
    d = await startTestDaemon({ rateLimit: 5, now });
    const { api } = await createTeam(d, 'acme');
    const ok = await api('GET', '/teams/acme/automations');
    expect(ok.headers.get('x-ratelimit-limit')).toBe('5');
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('4');
    const reset = Number(ok.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(now().getTime() / 1000 - 1);
    expect(reset).toBeLessThanOrEqual(Math.ceil(now().getTime() / 1000) + 60);
    const notFound = await api('GET', '/teams/acme/automations/00000000-0000-4000-8000-000000000000');
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('counts a request answered before routing (a URL that does not decode, an over-long segment) against its key, with the headers', async () => {
    d = await startTestDaemon({ rateLimit: 3 });
    const { api } = await createTeam(d, 'acme');
    const badUrl = await api('GET', '/teams/acme/env-vars/A%FF');
    expect(badUrl.status).toBe(400);
    expect(badUrl.headers.get('x-ratelimit-limit')).toBe('3');
    expect(badUrl.headers.get('x-ratelimit-remaining')).toBe('2');
    const long = await api('PUT', `/teams/acme/env-vars/${'A'.repeat(1001)}`, { value: 'v' });
    expect(long.status).toBe(400);
    expect(long.headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await api('GET', '/teams/acme/automations')).headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await api('GET', '/teams/acme/env-vars/A%FF');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Without a key it is the plain 400.
    expect((await d.as(null)('GET', '/teams/acme/env-vars/A%FF')).status).toBe(400);
  });

  it('counts a request with a live key to no route against its limit, with the headers', async () => {
    d = await startTestDaemon({ rateLimit: 2, authFailureLimit: 2 });
    const { api } = await createTeam(d, 'acme');
    const first = await api('GET', '/teams/acme/no-such-route');
    expect(first.status).toBe(404);
    expect(first.body.error.code).toBe('NOT_FOUND');
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    const admin = await d.admin('GET', '/no-such-route');
    expect(admin.status).toBe(404);
    expect(Number(admin.headers.get('x-ratelimit-limit'))).toBeGreaterThan(2);
    expect((await api('POST', '/nowhere')).headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await api('GET', '/teams/acme/no-such-route');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // No key: a plain 404, nothing counted.
    for (let i = 0; i < 3; i++) expect((await d.as(null)('GET', '/no-such-route')).status).toBe(404);
    const other = (await d.admin('POST', '/admin/teams/acme/keys', {})).body.data.key;
    expect((await d.as(other)('GET', '/teams/acme/automations')).status).toBe(200);
  });

  it('counts a credential that does not authenticate on no route as a failed authentication; a blocked address gets 429 there too (CONTRACT §9)', async () => {
    d = await startTestDaemon({ authFailureLimit: 2 });
    const { key } = await createTeam(d, 'acme');
    for (const token of ['svc_team_wrong', 'not-a-key']) {
      const unknown = await d.as(token)('GET', '/no-such-route');
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('x-ratelimit-limit')).toBeNull();
    }
    // Past the limit the address gets 429 whatever it sends, on no route as on a route, live key or not.
    for (const token of ['svc_team_wrong', key]) {
      for (const path of ['/no-such-route', '/teams/acme/automations']) {
        const blocked = await d.as(token)('GET', path);
        expect(blocked.status, `${token} ${path}`).toBe(429);
        expect(blocked.body.error.message).toContain('too many failed authentications');
        expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    // Without a credential nothing was guessed: still the 404.
    expect((await d.as(null)('GET', '/no-such-route')).status).toBe(404);
  });

  it('answers 429 RATE_LIMITED with Retry-After once a key passes its limit, per key', async () => {
    d = await startTestDaemon({ rateLimit: 3 });
    const a = await createTeam(d, 'acme');
    const other = (await d.admin('POST', '/admin/teams/acme/keys', {})).body.data.key;
    for (let i = 0; i < 3; i++) expect((await a.api('GET', '/teams/acme/automations')).status).toBe(200);
    const limited = await a.api('GET', '/teams/acme/automations');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await d.as(other)('GET', '/teams/acme/automations')).status).toBe(200);
  });

  it('limits failed authentications per client address; a valid key from there gets 429 with its own headers, and is not counted', async () => {
    d = await startTestDaemon({ authFailureLimit: 3, rateLimit: 5 });
    const { api } = await createTeam(d, 'acme');
    expect((await api('GET', '/teams/acme/automations')).headers.get('x-ratelimit-remaining')).toBe('4');
    for (let i = 0; i < 3; i++) expect((await d.as('svc_team_wrong')('GET', '/teams/acme/automations')).status).toBe(401);
    const blocked = await d.as('svc_team_wrong')('GET', '/teams/acme/automations');
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('x-ratelimit-limit')).toBeNull();
    // CONTRACT §9: every authenticated answer carries the three headers, this 429 too.
    for (let i = 0; i < 2; i++) {
      const refused = await api('GET', '/teams/acme/automations');
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toContain('failed authentications');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect([refused.headers.get('x-ratelimit-limit'), refused.headers.get('x-ratelimit-remaining')]).toEqual(['5', '4']);
      expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    }
  });

  it('spends a valid credential\'s own allowance when it calls a route of another kind, with the headers, then 429', async () => {
    d = await startTestDaemon({ rateLimit: 3 });
    const { api, key } = await createTeam(d, 'acme');
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const refused = await d.as(key)('GET', '/admin/teams');
      expect(refused.status).toBe(401);
      remaining.push(refused.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const limited = await d.as(key)('GET', '/admin/teams');
    expect([limited.status, limited.body.error.code, Number(limited.headers.get('retry-after')) > 0]).toEqual([429, 'RATE_LIMITED', true]);
    expect((await api('GET', '/teams/acme/automations')).status).toBe(429);
    // The admin token's own window, not the key's.
    expect((await d.as(d.adminToken)('GET', '/teams/acme/automations')).headers.get('x-ratelimit-limit')).not.toBe('3');
  });

  it('does not count a valid credential of the wrong kind as a failed authentication', async () => {
    d = await startTestDaemon({ authFailureLimit: 2 });
    const { api, key } = await createTeam(d, 'acme');
    const project = (await d.admin('POST', '/admin/teams/acme/projects', { name: 'web' })).body.data;
    const projectKey = (await d.admin('POST', `/admin/projects/${project.id}/key`)).body.data.key;
    for (let i = 0; i < 3; i++) {
      expect((await d.as(projectKey)('GET', '/teams/acme/automations')).status).toBe(401);
      expect((await d.as(key)('GET', `/projects/${project.id}`)).status).toBe(401);
      expect((await d.as(d.adminToken)('GET', '/teams/acme/automations')).status).toBe(401);
      expect((await d.as(key)('GET', '/admin/teams')).status).toBe(401);
    }
    expect((await api('GET', '/teams/acme/automations')).status).toBe(200);
    // A project-shaped key that does not exist is still a guess.
    for (let i = 0; i < 2; i++) expect((await d.as('svc_proj_unknown')('GET', '/teams/acme/automations')).status).toBe(401);
    expect((await api('GET', '/teams/acme/automations')).status).toBe(429);
  });
});
