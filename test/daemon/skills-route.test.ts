// The skill-scan route end to end: the real daemon reading a local server that speaks the
// GitHub REST endpoints, with the daemon's own auth, rate-limit headers and store cache.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { FakeGitHub } from '../helpers/fake-github.js';
import { everyCase } from '../fixtures/skills/repos.js';

let d: TestDaemon;
let api: Requester;
let fake: FakeGitHub;
const scan = '/teams/acme/skills/scan';

beforeAll(async () => {
  fake = await FakeGitHub.start();
  fake.addRepo('Acme/Skills', { files: everyCase() });
  fake.addRepo('acme/private-one', { files: { 'SKILL.md': '---\nname: private-one\ndescription: x\n---\n' }, private: true });
  d = await startTestDaemon({ githubApiUrl: fake.apiUrl, githubRawUrl: fake.rawUrl });
  ({ api } = await createTeam(d, 'acme'));
});
afterAll(async () => {
  await d.destroy();
  await fake.close();
});

describe('POST /teams/{slug}/skills/scan', () => {
  it('answers 200 with the pinned commit, skills sorted by path and skipped files with reasons', async () => {
    const res = await api('POST', scan, { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
    const r = res.body.data;
    expect(r.repository).toBe('Acme/Skills');
    expect(r.ref).toBe('main');
    expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(r.skills.length).toBeGreaterThan(0);
    const paths = r.skills.map((s: { path: string }) => s.path);
    expect(paths).toEqual([...paths].sort());
    for (const s of r.skills) {
      expect(s.path.endsWith('SKILL.md')).toBe(true);
      expect(s.sizeBytes).toBeGreaterThanOrEqual(0);
      expect(s.sizeBytes).toBeLessThanOrEqual(131072);
    }
    expect(r.skipped.length).toBeGreaterThan(0);
    for (const s of r.skipped) expect(s.reason.length).toBeGreaterThan(5);
  });

  it('answers a second scan of the same commit from the store without downloading files again', async () => {
    await api('POST', scan, { repository: 'https://github.com/acme/skills', ref: 'main' });
    const rawBefore = fake.requestsOf('raw').length;
    const apiBefore = fake.requestsOf('api').length;
    const again = await api('POST', scan, { repository: 'https://github.com/acme/skills/', ref: 'main' });
    expect(again.status).toBe(200);
    expect(fake.requestsOf('raw').length).toBe(rawBefore);
    // the ref is still resolved: branches move
    expect(fake.requestsOf('api').length).toBeGreaterThan(apiBefore);
  });

  it('answers 400 for other hosts, extra path, a bad ref or extra properties', async () => {
    for (const body of [
      { repository: 'https://gitlab.com/acme/skills', ref: 'main' },
      { repository: 'https://github.com/acme/skills/tree/main', ref: 'main' },
      { repository: 'https://github.com/acme/skills', ref: 'bad..ref' },
      { repository: 'https://github.com/acme/skills', ref: '' },
      { repository: 'https://github.com/acme/skills', ref: 'main', token: 'x' },
      { repository: 'github.com/acme/skills', ref: 'main' },
    ]) {
      const res = await api('POST', scan, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers 404 for a private or missing repository and an unknown ref', async () => {
    for (const body of [
      { repository: 'https://github.com/acme/private-one', ref: 'main' },
      { repository: 'https://github.com/acme/missing', ref: 'main' },
      { repository: 'https://github.com/acme/skills', ref: 'no-such-branch' },
    ]) {
      const res = await api('POST', scan, body);
      expect(res.status, JSON.stringify(body)).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it('answers 502 SKILL_SOURCE_UNAVAILABLE when GitHub fails', async () => {
    fake.addRepo('acme/broken', { files: { 'a/SKILL.md': '---\nname: a\ndescription: x\n---\n' } });
    fake.intercept({ match: /^api \/repos\/acme\/broken/, status: 503, body: { message: 'unavailable' } });
    const res = await api('POST', scan, { repository: 'https://github.com/acme/broken', ref: 'main' });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('SKILL_SOURCE_UNAVAILABLE');
  });
});

describe('skill scans of several teams', () => {
  it("are not held up by another team's scans of a repository that never answers", async () => {
    fake.addRepo('acme/stuck', { files: { 'SKILL.md': '---\nname: stuck\ndescription: answers once released\n---\n' } });
    fake.intercept({ match: /^api \/repos\/acme\/stuck$/, hang: true });
    const { api: stuckTeam } = await createTeam(d, 'stuck-scans');
    let settled = 0;
    // more scans than the daemon makes GitHub requests at once (8), each holding one for good
    const stuck = Array.from({ length: 12 }, () =>
      stuckTeam('POST', '/teams/stuck-scans/skills/scan', { repository: 'https://github.com/acme/stuck', ref: 'main' }).finally(() => settled++),
    );
    await waitUntil(() => fake.requests.filter((r) => r.path === '/repos/acme/stuck').length >= 6);
    const res = await api('POST', scan, { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect(res.status).toBe(200);
    expect(settled).toBe(0);
    // at most three quarters of the slots went to the stuck team
    expect(fake.requests.filter((r) => r.path === '/repos/acme/stuck')).toHaveLength(6);
    // the held requests fail; the scans that waited for a slot then go through
    fake.release();
    const statuses = (await Promise.all(stuck)).map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(6).fill(200), ...Array(6).fill(502)]);
  });
});

async function waitUntil(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}
