import { invalid } from '../errors.js';

export interface RepositoryRef {
  owner: string;
  name: string;
}

// Scheme and host are case-insensitive (RFC 3986); the path is kept as written because it is
// echoed back to GitHub, whose own spelling we report later from its answer.
const GITHUB_URL = /^(https?):\/\/(?:www\.)?github\.com(?::(\d+))?\/([^/?#]*)\/([^/?#]*?)(?:\.git)?\/?$/i;
// GitHub's own rules: owners are letters, digits and single hyphens (plus `_` for managed
// users), at most 39 characters; repository names are letters, digits, `.`, `_`, `-`, at most 100.
const OWNER = /^[A-Za-z0-9][A-Za-z0-9_-]{0,38}$/;
const NAME = /^[A-Za-z0-9._-]{1,100}$/;
const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

const ACCEPTED = 'expected https://github.com/OWNER/NAME';

/**
 * Parses the one repository URL form CONTRACT §8 accepts. Everything else (other hosts, ssh or
 * git forms, extra path, query, fragment, credentials, a non-default port) is a 400.
 */
export function parseRepositoryUrl(input: string): RepositoryRef {
  const match = GITHUB_URL.exec(input);
  if (!match) throw invalid(`repository must be a GitHub repository URL (${ACCEPTED})`);
  const [, scheme, port, owner, name] = match;
  if (port !== undefined && port !== DEFAULT_PORT[scheme.toLowerCase()]) {
    throw invalid(`repository URL must not name a port (${ACCEPTED})`);
  }
  if (!OWNER.test(owner)) throw invalid(`repository owner is not a valid GitHub account name (${ACCEPTED})`);
  if (!NAME.test(name) || name === '.' || name === '..') {
    throw invalid(`repository name is not a valid GitHub repository name (${ACCEPTED})`);
  }
  return { owner, name };
}
