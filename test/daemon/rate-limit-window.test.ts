// The rate limit's window rolling over (CONTRACT §9): a key over its limit is refused until the
// time X-RateLimit-Reset names, and from then on counts afresh. The daemon's clock is injected,
// so the test moves time instead of waiting for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let now = Date.parse('2026-11-28T10:00:10.000Z');
let d: TestDaemon;
let api: Requester;

beforeAll(async () => {
  d = await startTestDaemon({ now: () => new Date(now), rateLimit: 3 });
  ({ api } = await createTeam(d, 'acme'));
});
afterAll(() => d.destroy());

const list = () => api('GET', '/teams/acme/automations');

describe('the rate-limit window', () => {
  it('refuses a key over its limit until X-RateLimit-Reset, then counts afresh', async () => {
    const first = await list();
    expect(first.status).toBe(200);
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    // Whole clock minutes: this one ends at 10:01:00.
    expect(reset).toBe(Date.parse('2026-11-28T10:01:00.000Z') / 1000);
    expect((await list()).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await list()).headers.get('x-ratelimit-remaining')).toBe('0');

    now = reset * 1000 - 1;
    const refused = await list();
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('x-ratelimit-reset')).toBe(String(reset));
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // At the reset time the window is new: the key has its whole allowance again.
    now = reset * 1000;
    const fresh = await list();
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(Number(fresh.headers.get('x-ratelimit-reset'))).toBe(reset + 60);
  });
});
