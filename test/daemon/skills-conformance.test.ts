// Skill scans held against spec §4.1 and CONTRACT §8, case by case: the real daemon reading a
// local server that speaks GitHub's REST endpoints and raw host.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { FakeGitHub } from '../helpers/fake-github.js';
import { skillMd } from '../fixtures/skills/repos.js';

let d: TestDaemon;
let api: Requester;
let fake: FakeGitHub;
const SCAN = '/teams/acme/skills/scan';

beforeAll(async () => {
  fake = await FakeGitHub.start();
  d = await startTestDaemon({ githubApiUrl: fake.apiUrl, githubRawUrl: fake.rawUrl });
  ({ api } = await createTeam(d, 'acme'));
});
afterAll(async () => {
  await d.destroy();
  await fake.close();
});

const scan = (name: string, ref = 'main') => api('POST', SCAN, { repository: `https://github.com/acme/${name}`, ref });
const oneSkill = { 'a/SKILL.md': skillMd('name: a\ndescription: One skill.') };

describe('GitHub answers the scanner cannot read: 502 SKILL_SOURCE_UNAVAILABLE, never 500', () => {
  it.each([
    ['the repository', /^api \/repos\/acme\/null-repo$/, 'null-repo'],
    ['the ref', /^api \/repos\/acme\/null-ref\/git\/ref\//, 'null-ref'],
    ['the tree', /^api \/repos\/acme\/null-tree\/git\/trees\//, 'null-tree'],
  ])('a JSON null for %s', async (_what, match, name) => {
    fake.addRepo(`acme/${name}`, { files: oneSkill });
    fake.intercept({ match, status: 200, body: null });
    const res = await scan(name);
    expect(res.status, JSON.stringify(res.body)).toBe(502);
    expect(res.body.error.code).toBe('SKILL_SOURCE_UNAVAILABLE');
  });
});

describe('a scan that fails stops reading GitHub', () => {
  it('starts no further downloads once one has failed, so it does not hold up other scans', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`skills/s-${i}/SKILL.md`] = skillMd(`name: s-${i}\ndescription: Skill ${i}.`);
    fake.addRepo('acme/many-failing', { files });
    fake.intercept({ match: /^raw \/acme\/many-failing\//, status: 503, body: Buffer.from('unavailable'), times: 1 });
    fake.intercept({ match: /^raw \/acme\/many-failing\//, delayMs: 100 });

    const res = await scan('many-failing');
    expect(res.status).toBe(502);
    // what was already in flight may finish; nothing new is started after the answer
    await fake.settled(200);
    const downloads = fake.requestsOf('raw').filter((r) => r.path.startsWith('/acme/many-failing/'));
    expect(downloads.length).toBeLessThanOrEqual(8);
  });

  it('lists no further folders of a truncated tree once one listing has failed', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`f-${i}/s/SKILL.md`] = skillMd(`name: s\ndescription: Skill ${i}.`);
    const repo = fake.addRepo('acme/wide-failing', { files });
    repo.recursiveLimit = 10;
    const commit = repo.objects.get(repo.branches.get('main') as string) as { tree: string };
    const root = repo.objects.get(commit.tree) as { entries: { name: string; sha: string }[] };
    const first = root.entries.find((e) => e.name === 'f-0') as { sha: string };
    fake.intercept({ match: new RegExp(`^api /repos/acme/wide-failing/git/trees/${first.sha}`), status: 503, body: { message: 'unavailable' } });
    fake.intercept({ match: /^api \/repos\/acme\/wide-failing\/git\/trees\//, delayMs: 100 });

    const res = await scan('wide-failing');
    expect(res.status).toBe(502);
    await fake.settled(200);
    const listings = fake.requestsOf('api').filter((r) => r.path.startsWith('/repos/acme/wide-failing/git/trees/'));
    // the root twice (whole, then one level), then at most one round of folders in flight
    expect(listings.length).toBeLessThanOrEqual(2 + 8);
  });
});

describe('a file the tree lists and the raw host does not have', () => {
  it('is skipped with the reason rather than failing the scan, and the findings are not kept for the commit', async () => {
    fake.addRepo('acme/raw-missing', { files: { ...oneSkill, 'b/SKILL.md': skillMd('name: b\ndescription: The other skill.') } });
    fake.intercept({ match: /^raw \/acme\/raw-missing\/[0-9a-f]+\/b\/SKILL\.md$/, status: 404, body: Buffer.from('404: Not Found'), times: 1 });
    const first = await scan('raw-missing');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.skills.map((s: { name: string }) => s.name)).toEqual(['a']);
    expect(first.body.data.skipped).toEqual([{ path: 'b/SKILL.md', reason: expect.stringMatching(/^GitHub's raw content host has no such file \(404\)/) }]);
    // The host has it now: a scan of the same commit reads it rather than the incomplete findings.
    const second = await scan('raw-missing');
    expect(second.body.data.skills.map((s: { name: string }) => s.name)).toEqual(['a', 'b']);
    expect(second.body.data.skipped).toEqual([]);
  });
});
