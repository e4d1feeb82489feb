import { describe, expect, it } from 'vitest';
import { ApiError } from '../../daemon/errors.js';
import { parseRepositoryUrl } from '../../daemon/skills/repository-url.js';

describe('parseRepositoryUrl', () => {
  it.each([
    ['https://github.com/acme/skills', 'acme', 'skills'],
    ['https://github.com/acme/skills.git', 'acme', 'skills'],
    ['https://github.com/acme/skills/', 'acme', 'skills'],
    ['https://github.com/acme/skills.git/', 'acme', 'skills'],
    ['http://github.com/acme/skills', 'acme', 'skills'],
    ['https://www.github.com/acme/skills', 'acme', 'skills'],
    ['https://GitHub.COM/acme/skills', 'acme', 'skills'],
    ['HTTPS://WWW.GITHUB.COM/acme/skills', 'acme', 'skills'],
    ['https://github.com:443/acme/skills', 'acme', 'skills'],
    ['http://github.com:80/acme/skills', 'acme', 'skills'],
    ['https://github.com/Acme-Corp/My.Skills_repo', 'Acme-Corp', 'My.Skills_repo'],
    ['https://github.com/ComposioHQ/awesome-claude-skills', 'ComposioHQ', 'awesome-claude-skills'],
    ['https://github.com/acme/.github', 'acme', '.github'],
  ])('accepts %s as owner %s and name %s', (url, owner, name) => {
    expect(parseRepositoryUrl(url)).toEqual({ owner, name });
  });

  it.each([
    ['another host', 'https://gitlab.com/acme/skills'],
    ['a look-alike host', 'https://github.com.evil.example/acme/skills'],
    ['a subdomain other than www', 'https://api.github.com/acme/skills'],
    ['the ssh form', 'git@github.com:acme/skills.git'],
    ['the ssh URL form', 'ssh://git@github.com/acme/skills.git'],
    ['the git protocol', 'git://github.com/acme/skills.git'],
    ['no scheme', 'github.com/acme/skills'],
    ['an owner/name pair alone', 'acme/skills'],
    ['an extra path', 'https://github.com/acme/skills/tree/main'],
    ['a blob path', 'https://github.com/acme/skills/blob/main/SKILL.md'],
    ['a query', 'https://github.com/acme/skills?tab=readme'],
    ['an empty query', 'https://github.com/acme/skills?'],
    ['a fragment', 'https://github.com/acme/skills#readme'],
    ['credentials', 'https://user:pass@github.com/acme/skills'],
    ['a user name', 'https://user@github.com/acme/skills'],
    ['a non-default port', 'https://github.com:8443/acme/skills'],
    ['the http port on https', 'https://github.com:80/acme/skills'],
    ['an owner only', 'https://github.com/acme'],
    ['an empty name', 'https://github.com/acme/.git'],
    ['a double slash', 'https://github.com//acme/skills'],
    ['a dot-dot name', 'https://github.com/acme/..'],
    ['a percent-encoded path', 'https://github.com/acme/sk%69lls'],
    ['surrounding spaces', ' https://github.com/acme/skills '],
    ['an owner starting with a hyphen', 'https://github.com/-acme/skills'],
    ['an owner longer than 39 characters', `https://github.com/${'a'.repeat(40)}/skills`],
    ['an empty string', ''],
  ])('rejects %s with a 400 VALIDATION_ERROR', (_what, url) => {
    let caught: unknown;
    try {
      parseRepositoryUrl(url);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).code).toBe('VALIDATION_ERROR');
    expect((caught as ApiError).status).toBe(400);
    expect((caught as ApiError).message).toMatch(/repository/);
  });
});
