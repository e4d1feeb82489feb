import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../daemon/errors.js';
import { SkillScanner, type ScanCache, type ScanFindings, type SkillScannerOptions } from '../../daemon/skills/scanner.js';
import { FakeGitHub } from '../helpers/fake-github.js';
import { everyCase, INVALID, skillMd, VALID } from '../fixtures/skills/repos.js';

class MemoryScanCache implements ScanCache {
  readonly entries = new Map<string, ScanFindings & { repository: string; commit: string }>();
  async get(key: string) {
    const hit = this.entries.get(key);
    return hit && { skills: hit.skills, skipped: hit.skipped };
  }
  async put(key: string, value: ScanFindings & { repository: string; commit: string }) {
    this.entries.set(key, value);
  }
}

let fake: FakeGitHub;
const scanners: SkillScanner[] = [];
const warnings: { obj: object; msg: string }[] = [];

function scanner(opts: SkillScannerOptions = {}): SkillScanner {
  const s = new SkillScanner({
    apiUrl: fake.apiUrl,
    rawUrl: fake.rawUrl,
    logger: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    ...opts,
  });
  scanners.push(s);
  return s;
}

async function scanError(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

beforeEach(async () => {
  fake = await FakeGitHub.start({ token: 'ghp_secret_token_value' });
  warnings.length = 0;
});

afterEach(async () => {
  await Promise.all(scanners.splice(0).map((s) => s.close()));
  await fake.close();
});

describe('SkillScanner against a fake GitHub: what a scan finds', () => {
  it('lists valid skills sorted by path and every near miss with its reason', async () => {
    const repo = fake.addRepo('Acme/Skills', { files: everyCase() });
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/skills.git', ref: 'main' });

    expect(result.repository).toBe('Acme/Skills');
    expect(result.ref).toBe('main');
    expect(result.commit).toBe(repo.branches.get('main'));
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);

    const expectedSkills = Object.entries(VALID)
      .map(([path, content]) => ({ path, name: path.split('/').at(-2), sizeBytes: Buffer.byteLength(content) }))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(result.skills.map(({ path, name, sizeBytes }) => ({ path, name, sizeBytes }))).toEqual(expectedSkills);
    expect(result.skills.find((s) => s.path === 'skills/api-guide/SKILL.md')?.description).toBe(
      'Reference for the widget API.\nTRIGGER when the user names the API.',
    );

    const skippedPaths = result.skipped.map((s) => s.path);
    expect(skippedPaths).toEqual([...skippedPaths].sort((a, b) => (a < b ? -1 : 1)));
    const reasons = Object.fromEntries(result.skipped.map((s) => [s.path, s.reason]));
    for (const [path, { reason }] of Object.entries(INVALID)) {
      if (typeof reason === 'string') expect(reasons[path]).toBe(reason);
      else expect(reasons[path]).toMatch(reason);
    }
    expect(reasons).toMatchObject({
      'skills/huge/SKILL.md': expect.stringMatching(/^file is \d+ bytes; the limit is 131072 bytes$/),
      'skills/lowercase/skill.md': 'file must be named exactly SKILL.md',
      'skills/Titlecase/Skill.md': 'file must be named exactly SKILL.md',
      'skills/linked/SKILL.md': 'symbolic link: a skill must be a regular file',
    });
    // A submodule is an entry, not a file: neither a skill nor skipped (CONTRACT §8 lists files).
    expect(reasons).not.toHaveProperty('vendor/other-skills');
    expect(result.skills.map((k) => k.path).filter((p) => p.startsWith('vendor/'))).toEqual([]);
    expect(result.skipped).toHaveLength(Object.keys(INVALID).length + 4);
  });

  it('spends three REST calls and downloads only the SKILL.md files that can count', async () => {
    fake.addRepo('acme/skills', { files: everyCase() });
    await scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });

    expect(fake.requestsOf('api').map((r) => r.path)).toEqual([
      '/repos/acme/skills',
      '/repos/acme/skills/git/ref/heads/main',
      expect.stringMatching(/^\/repos\/acme\/skills\/git\/trees\/[0-9a-f]{40}\?recursive=1$/),
    ]);
    const raw = fake.requestsOf('raw').map((r) => r.path.split('/').slice(4).join('/')).sort();
    expect(raw).toEqual([...Object.keys(VALID), ...Object.keys(INVALID)].sort());
    expect(raw).not.toContain('skills/huge/SKILL.md');
    expect(raw).not.toContain('skills/lowercase/skill.md');
    expect(raw).not.toContain('skills/linked/SKILL.md');
  });

  it('never fetches a tree path with a ".." or "." segment, which the URL would resolve outside the commit', async () => {
    // Git refuses such paths; a host that is not GitHub (SVC_GITHUB_API_URL) could still list them.
    fake.addRepo('acme/skills', { files: { 'ok/SKILL.md': skillMd('name: ok\ndescription: fine'), '../../../etc/SKILL.md': 'x', 'a/./b/SKILL.md': 'y' } });
    const found = await scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });

    expect(fake.requestsOf('raw').map((r) => r.path.split('/').slice(4).join('/'))).toEqual(['ok/SKILL.md']);
    expect(found.skills.map((s) => s.path)).toEqual(['ok/SKILL.md']);
    const reason = 'path has an empty, "." or ".." segment: not a file inside the repository';
    expect(found.skipped).toEqual(
      expect.arrayContaining([
        { path: '../../../etc/SKILL.md', reason },
        { path: 'a/./b/SKILL.md', reason },
      ]),
    );
  });

  it('names a root SKILL.md after the repository, lower-cased', async () => {
    fake.addRepo('Acme/Writing-Helper', {
      files: {
        'SKILL.md': skillMd('name: writing-helper\ndescription: Helps with writing.'),
        'nested/wrong/SKILL.md': skillMd('name: writing-helper\ndescription: In the wrong folder.'),
      },
    });
    const result = await scanner().scan('team-a', { repository: 'https://github.com/Acme/Writing-Helper', ref: 'main' });
    expect(result.skills.map((s) => [s.path, s.name])).toEqual([['SKILL.md', 'writing-helper']]);
    expect(result.skipped).toEqual([
      { path: 'nested/wrong/SKILL.md', reason: 'name "writing-helper" must equal the name of its folder, "wrong"' },
    ]);
  });

  it('answers an empty skills list for a repository without skills', async () => {
    fake.addRepo('acme/plain', { files: { 'README.md': 'hello' } });
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/plain', ref: 'main' });
    expect(result).toMatchObject({ repository: 'acme/plain', skills: [], skipped: [] });
  });

  it('reads paths with spaces and unusual characters through the raw host', async () => {
    fake.addRepo('acme/odd', {
      files: { 'my skills/#1 & more/pdf-x/SKILL.md': skillMd('name: pdf-x\ndescription: Odd path.') },
    });
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/odd', ref: 'main' });
    expect(result.skills.map((s) => s.path)).toEqual(['my skills/#1 & more/pdf-x/SKILL.md']);
  });

  it('skips a file whose download runs past 131072 bytes even when the tree said it was small', async () => {
    fake.addRepo('acme/liar', { files: { 'x/small/SKILL.md': skillMd('name: small\ndescription: ok') } });
    fake.intercept({ match: /^raw .*\/x\/small\/SKILL\.md$/, status: 200, body: Buffer.alloc(300_000, 0x61) });
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/liar', ref: 'main' });
    expect(result.skipped).toEqual([{ path: 'x/small/SKILL.md', reason: 'file is larger than the limit of 131072 bytes' }]);
  });
});

describe('SkillScanner: resolving branches and tags', () => {
  it('resolves a lightweight tag to its commit', async () => {
    const repo = fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    const commit = repo.branches.get('main') as string;
    repo.tag('v1.0.0', commit);
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'v1.0.0' });
    expect(result).toMatchObject({ ref: 'v1.0.0', commit });
  });

  it('peels an annotated tag to the commit it names', async () => {
    const repo = fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    const older = repo.commit({ 'b/SKILL.md': skillMd('name: b\ndescription: two') });
    repo.tag('release/2024', older, { annotated: true });
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'release/2024' });
    expect(result.commit).toBe(older);
    expect(result.skills.map((s) => s.name)).toEqual(['b']);
    const paths = fake.requestsOf('api').map((r) => r.path);
    expect(paths).toContain('/repos/acme/skills/git/ref/tags/release/2024');
    expect(paths.some((p) => /\/git\/tags\/[0-9a-f]{40}$/.test(p))).toBe(true);
  });

  it('prefers the branch when a branch and a tag share a name', async () => {
    const repo = fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    const tagged = repo.commit({ 'b/SKILL.md': skillMd('name: b\ndescription: two') });
    repo.tag('main', tagged);
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect(result.commit).toBe(repo.branches.get('main'));
  });

  it('looks only at tags for a refs/tags/ name, and echoes the ref as given', async () => {
    const repo = fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    repo.tag('v2', repo.branches.get('main') as string);
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'refs/tags/v2' });
    expect(result.ref).toBe('refs/tags/v2');
    expect(fake.requestsOf('api').map((r) => r.path)).not.toContain('/repos/acme/skills/git/ref/heads/refs/tags/v2');
  });

  it('answers 404 for a ref that is neither branch nor tag, a commit sha included', async () => {
    const repo = fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    const s = scanner();
    const err = await scanError(s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'nope' }));
    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404, message: 'ref "nope" is neither a branch nor a tag of acme/skills' });
    const bySha = await scanError(s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: repo.branches.get('main') as string }));
    expect(bySha.code).toBe('NOT_FOUND');
  });
});

describe('SkillScanner: errors', () => {
  it.each([
    ['another host', { repository: 'https://gitlab.com/acme/skills', ref: 'main' }],
    ['an extra path', { repository: 'https://github.com/acme/skills/tree/main', ref: 'main' }],
    ['an invalid ref', { repository: 'https://github.com/acme/skills', ref: 'bad..ref' }],
    ['an empty ref', { repository: 'https://github.com/acme/skills', ref: '' }],
  ])('answers 400 for %s without asking GitHub', async (_what, input) => {
    const err = await scanError(scanner().scan('team-a', input));
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(fake.requests).toEqual([]);
  });

  it('answers 404 for a missing repository', async () => {
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/missing', ref: 'main' }));
    expect(err).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    expect(err.message).toBe('repository acme/missing was not found on GitHub (private repositories cannot be scanned)');
  });

  it('answers 404 for a private repository, hidden from anonymous requests', async () => {
    fake.addRepo('acme/secret', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') }, private: true });
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/secret', ref: 'main' }));
    expect(err.code).toBe('NOT_FOUND');
  });

  it('answers 404 for a private repository the configured token can see, and reads nothing of it', async () => {
    fake.addRepo('acme/secret', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') }, private: true });
    const err = await scanError(
      scanner({ token: 'ghp_secret_token_value' }).scan('team-a', { repository: 'https://github.com/acme/secret', ref: 'main' }),
    );
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'repository acme/secret is not public; only public repositories can be scanned' });
    expect(fake.requests.map((r) => r.path)).toEqual(['/repos/acme/secret']);
  });

  it('answers 404 for an empty repository (GitHub answers 409 on its git endpoints)', async () => {
    fake.addRepo('acme/empty');
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/empty', ref: 'main' }));
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'repository acme/empty is empty' });
  });

  it('answers 404 when only the tree endpoint reports the repository empty', async () => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    fake.intercept({ match: /^api .*\/git\/trees\//, status: 409, body: { message: 'Git Repository is empty.' } });
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err).toMatchObject({ code: 'NOT_FOUND', message: 'repository acme/skills is empty' });
  });

  it.each([
    ['the repository lookup', /^api \/repos\/acme\/skills$/],
    ['the ref lookup', /^api .*\/git\/ref\//],
    ['the tree listing', /^api .*\/git\/trees\//],
    ['a raw download', /^raw /],
  ])('answers 502 SKILL_SOURCE_UNAVAILABLE when GitHub answers 503 to %s', async (_what, match) => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    fake.intercept({ match, status: 503, body: { message: 'Service Unavailable' } });
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', status: 502 });
    expect(err.message).toMatch(/answered 503/);
  });

  it.each([
    ['403 with x-ratelimit-remaining: 0', 403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1893456000' }, { message: 'API rate limit exceeded for 127.0.0.1.' }, /try again after 2030-01-01T00:00:00\.000Z/],
    ['429 with x-ratelimit-remaining: 0', 429, { 'x-ratelimit-remaining': '0' }, { message: 'Too Many Requests' }, /try again later/],
    ['a secondary rate limit', 403, { 'retry-after': '60' }, { message: 'You have exceeded a secondary rate limit.' }, /try again in 60 seconds/],
  ])('answers 502 when GitHub rate limits with %s', async (_what, status, headers, body, hint) => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    fake.intercept({ match: /^api /, status, headers, body });
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', status: 502 });
    expect(err.message).toMatch(/^GitHub's API rate limit is exhausted; /);
    expect(err.message).toMatch(hint);
  });

  it('answers 502 when the raw host rate limits', async () => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    fake.intercept({ match: /^raw /, status: 429, body: { message: 'Too Many Requests' } });
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', message: expect.stringMatching(/rate limiting/) });
  });

  it('answers 502 when GitHub cannot be reached', async () => {
    const closed = await FakeGitHub.start();
    const deadUrl = closed.apiUrl;
    await closed.close();
    const err = await scanError(scanner({ apiUrl: deadUrl }).scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', status: 502 });
    expect(err.message).toBe("could not reach GitHub (ECONNREFUSED): the connection was refused: check the daemon's host for a proxy or firewall in the way");
  });

  it('says a failed name lookup is the daemon host\'s, and what to check', async () => {
    const err = await scanError(scanner({ apiUrl: 'http://github.invalid' }).scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err.message).toMatch(/^could not reach GitHub \((ENOTFOUND|EAI_AGAIN)\): the daemon's host could not look up GitHub's address: check that it is online/);
  });

  it('answers 502 when GitHub does not answer within the timeout', async () => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    fake.intercept({ match: /^api /, hang: true });
    const err = await scanError(scanner({ timeoutMs: 200 }).scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', message: 'GitHub did not answer within 200 ms' });
  });

  it('answers 502 when GitHub sends something that is not JSON', async () => {
    fake.intercept({ match: /^api /, status: 200, body: Buffer.from('<html>oops</html>') });
    const err = await scanError(scanner().scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err.code).toBe('SKILL_SOURCE_UNAVAILABLE');
  });

  it('sends the token to the API as bearer, never to the raw host, and never shows it', async () => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    const s = scanner({ token: 'ghp_secret_token_value' });
    await s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect(fake.requestsOf('api').every((r) => r.headers.authorization === 'Bearer ghp_secret_token_value')).toBe(true);
    expect(fake.requestsOf('raw').every((r) => r.headers.authorization === undefined)).toBe(true);

    fake.intercept({ match: /^api /, status: 401, body: { message: 'Bad credentials' } });
    const err = await scanError(s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }));
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', message: 'GitHub rejected the configured token (401)' });
    expect(JSON.stringify(warnings)).not.toContain('ghp_secret_token_value');
    expect(warnings.length).toBeGreaterThan(0);
  });

  it('follows a renamed repository to its new name and reports GitHub\'s spelling', async () => {
    const repo = fake.addRepo('acme/new-skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    fake.addRename('acme/old-skills', repo);
    const result = await scanner().scan('team-a', { repository: 'https://github.com/acme/old-skills', ref: 'main' });
    expect(result.repository).toBe('acme/new-skills');
    expect(result.skills.map((s) => s.path)).toEqual(['a/SKILL.md']);
  });

  it('does not follow a redirect to another host, so the token never leaves the API host', async () => {
    fake.intercept({ match: /^api \/repos\/acme\/skills$/, status: 301, headers: { location: 'http://elsewhere.invalid/repos/x/y' } });
    const err = await scanError(
      scanner({ token: 'ghp_secret_token_value' }).scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' }),
    );
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', message: 'GitHub redirected the request somewhere the scanner does not follow' });
  });
});

describe('SkillScanner: truncated trees', () => {
  function manyFolders(): Record<string, string> {
    const files: Record<string, string> = {};
    for (const group of ['alpha', 'beta', 'gamma']) {
      for (let i = 0; i < 4; i++) {
        const name = `${group}-${i}`;
        files[`skills/${group}/${name}/SKILL.md`] = skillMd(`name: ${name}\ndescription: Skill ${name}.`);
        files[`skills/${group}/${name}/notes.txt`] = 'notes';
      }
    }
    files['top/SKILL.md'] = skillMd('name: top\ndescription: At the top.');
    return files;
  }

  it('walks a truncated tree folder by folder and finds every skill', async () => {
    const repo = fake.addRepo('acme/big', { files: manyFolders() });
    const whole = await scanner().scan('team-a', { repository: 'https://github.com/acme/big', ref: 'main' });
    expect(whole.skills).toHaveLength(13);

    const truncatedRepo = fake.addRepo('acme/big-truncated', { files: manyFolders() });
    truncatedRepo.recursiveLimit = 10;
    const walked = await scanner().scan('team-a', { repository: 'https://github.com/acme/big-truncated', ref: 'main' });
    expect(walked.skills).toEqual(whole.skills);
    expect(walked.skipped).toEqual([]);
    const treeCalls = fake.requestsOf('api').filter((r) => r.path.startsWith('/repos/acme/big-truncated/git/trees/'));
    expect(treeCalls.some((r) => !r.path.endsWith('?recursive=1'))).toBe(true);
    expect(repo.recursiveLimit).toBe(Infinity);
  });

  it('answers 502 rather than a partial list when the walk would spend too many requests', async () => {
    const repo = fake.addRepo('acme/big', { files: manyFolders() });
    repo.recursiveLimit = 1;
    const err = await scanError(scanner({ maxTreeRequests: 3 }).scan('team-a', { repository: 'https://github.com/acme/big', ref: 'main' }));
    expect(err).toMatchObject({ code: 'SKILL_SOURCE_UNAVAILABLE', message: 'the tree of acme/big is too large to list within 3 GitHub requests' });
    // Folders walked side by side all run out of requests: the log says so once.
    expect(warnings.filter((w) => w.msg.includes('too large to list'))).toHaveLength(1);
  });
});

describe('SkillScanner: caching and conditional requests', () => {
  it('answers a commit scanned before from the cache, still resolving the ref, with conditional requests', async () => {
    fake.addRepo('acme/skills', { files: everyCase() });
    const cache = new MemoryScanCache();
    const s = scanner({ cache });
    const first = await s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect([...cache.entries.keys()]).toEqual([`acme/skills@${first.commit}`]);
    expect(cache.entries.get(`acme/skills@${first.commit}`)).toMatchObject({ repository: 'acme/skills', commit: first.commit });
    const before = fake.requests.length;

    const second = await s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect(second).toEqual(first);
    const again = fake.requests.slice(before);
    expect(again.map((r) => [r.kind, r.path, r.status])).toEqual([
      ['api', '/repos/acme/skills', 304],
      ['api', '/repos/acme/skills/git/ref/heads/main', 304],
    ]);
    expect(again.every((r) => typeof r.headers['if-none-match'] === 'string')).toBe(true);
  });

  it('scans again when the branch moves to a new commit', async () => {
    const repo = fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    const s = scanner({ cache: new MemoryScanCache() });
    const first = await s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    repo.branch('main', repo.commit({ 'b/SKILL.md': skillMd('name: b\ndescription: two') }));
    const second = await s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect(second.commit).not.toBe(first.commit);
    expect(second.skills.map((x) => x.name)).toEqual(['b']);
  });

  it('shares a cached commit between a branch and a tag that name it', async () => {
    const repo = fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    repo.tag('v1', repo.branches.get('main') as string, { annotated: true });
    const s = scanner({ cache: new MemoryScanCache() });
    await s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    const rawBefore = fake.requestsOf('raw').length;
    const tagged = await s.scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'v1' });
    expect(tagged.ref).toBe('v1');
    expect(tagged.skills.map((x) => x.name)).toEqual(['a']);
    expect(fake.requestsOf('raw').length).toBe(rawBefore);
  });

  it('lets scans of a commit already being scanned wait for it rather than download every file again', async () => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one'), 'b/SKILL.md': skillMd('name: b\ndescription: two') } });
    const s = scanner({ cache: new MemoryScanCache() });
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => s.scan(`team-${i % 2}`, { repository: 'https://github.com/acme/skills', ref: 'main' })));
    for (const r of results) expect(r.skills.map((x) => x.name)).toEqual(['a', 'b']);
    expect(fake.requestsOf('raw')).toHaveLength(2);
  });

  it('still scans when the cache fails, and says so in the log', async () => {
    fake.addRepo('acme/skills', { files: { 'a/SKILL.md': skillMd('name: a\ndescription: one') } });
    const broken: ScanCache = {
      get: () => Promise.reject(new Error('disk full')),
      put: () => Promise.reject(new Error('disk full')),
    };
    const result = await scanner({ cache: broken }).scan('team-a', { repository: 'https://github.com/acme/skills', ref: 'main' });
    expect(result.skills).toHaveLength(1);
    expect(warnings.map((w) => w.msg)).toEqual(['skill scan: cache read failed', 'skill scan: cache write failed']);
  });
});

describe('SkillScanner: bounded concurrency', () => {
  it('never has more downloads in flight than its concurrency', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 24; i++) files[`skills/s-${i}/SKILL.md`] = skillMd(`name: s-${i}\ndescription: Skill ${i}.`);
    fake.addRepo('acme/many', { files });
    fake.intercept({ match: /^raw /, delayMs: 15 });
    const result = await scanner({ concurrency: 3 }).scan('team-a', { repository: 'https://github.com/acme/many', ref: 'main' });
    expect(result.skills).toHaveLength(24);
    expect(fake.maxInFlight.raw).toBeLessThanOrEqual(3);
    expect(fake.maxInFlight.raw).toBeGreaterThan(1);
  });
});
