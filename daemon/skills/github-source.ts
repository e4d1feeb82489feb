import type { Agent } from 'undici';
import { ApiError } from '../errors.js';
import { undici } from '../undici.js';
import { EtagCache } from './etag-cache.js';
import { Limiter } from './limiter.js';
import type { TreeEntry } from './tree-entries.js';

export interface SourceLogger {
  warn(obj: object, msg: string): void;
}

export interface GitHubSourceOptions {
  apiUrl: string;
  rawUrl: string;
  /** sent as bearer to the API only, never to the raw host, never logged */
  token?: string;
  /** per request: connecting, waiting for headers, and the whole exchange */
  timeoutMs: number;
  /** requests in flight at once, API and raw together; one team gets at most three quarters */
  concurrency: number;
  /** tree requests one scan may spend walking a truncated tree folder by folder */
  maxTreeRequests: number;
  etagCacheSize: number;
  logger?: SourceLogger;
}

/** A repository as GitHub spells it; later requests use this spelling (it follows renames). */
export interface Repository {
  owner: string;
  name: string;
  fullName: string;
  /** whose share of the concurrent requests the requests about it take (the scanning team) */
  lane: string;
}

type Headers = Record<string, string | string[] | undefined>;

interface Reply {
  status: number;
  headers: Headers;
  body: Buffer;
  /** the body went past the size we were willing to read */
  overflow: boolean;
}

interface JsonReply {
  status: number;
  headers: Headers;
  json: unknown;
  text: string;
}

const MAX_API_BODY_BYTES = 64 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const MAX_TAG_DEPTH = 5;
const SHA = /^[0-9a-f]{40}$/;
const USER_AGENT = 'svc-skill-scanner';

/**
 * Reads what a skill scan needs from GitHub: the repository, a ref's commit and the commit's tree
 * through the REST API (a few calls per scan, conditional where GitHub allows), and file contents
 * from the raw host, which does not spend the REST quota.
 */
export class GitHubSource {
  readonly #opts: GitHubSourceOptions;
  readonly #apiBase: string;
  readonly #apiOrigin: string;
  readonly #rawBase: string;
  /** made by the first request */
  #agentMade: Agent | undefined;
  readonly #limiter: Limiter;
  readonly #etags: EtagCache<unknown>;

  constructor(opts: GitHubSourceOptions) {
    this.#opts = opts;
    this.#apiBase = opts.apiUrl.replace(/\/+$/, '');
    this.#apiOrigin = new URL(this.#apiBase).origin;
    this.#rawBase = opts.rawUrl.replace(/\/+$/, '');
    this.#limiter = new Limiter(opts.concurrency, Math.ceil((opts.concurrency * 3) / 4));
    this.#etags = new EtagCache(opts.etagCacheSize);
  }

  #agent(): Agent {
    const { timeoutMs, concurrency } = this.#opts;
    this.#agentMade ??= new (undici().Agent)({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: concurrency });
    return this.#agentMade;
  }

  async close(): Promise<void> {
    await this.#agentMade?.close();
  }

  /** `lane`: the team scanning, whose share of the concurrent requests this scan's take */
  async getRepository(owner: string, name: string, lane: string): Promise<Repository> {
    const reply = await this.#api(`/repos/${enc(owner)}/${enc(name)}`, true, lane);
    const label = `${owner}/${name}`;
    if (reply.status === 404) {
      throw new ApiError('NOT_FOUND', `repository ${label} was not found on GitHub (private repositories cannot be scanned)`);
    }
    if (reply.status === 451) throw new ApiError('NOT_FOUND', `repository ${label} is blocked on GitHub`);
    if (reply.status !== 200) throw this.#failure(reply, `repository ${label}`);
    const repo = reply.json as {
      full_name?: unknown;
      name?: unknown;
      owner?: { login?: unknown };
      private?: unknown;
      visibility?: unknown;
    };
    if (typeof repo.full_name !== 'string' || typeof repo.name !== 'string' || typeof repo.owner?.login !== 'string') {
      throw this.#malformed(`repository ${label}`);
    }
    // With a token GitHub also shows private and internal repositories; scans are for public ones.
    if (repo.private === true || (typeof repo.visibility === 'string' && repo.visibility !== 'public')) {
      throw new ApiError('NOT_FOUND', `repository ${repo.full_name} is not public; only public repositories can be scanned`);
    }
    return { owner: repo.owner.login, name: repo.name, fullName: repo.full_name, lane };
  }

  /** The commit a branch or tag names; a branch wins over a tag of the same name. */
  async resolveRef(repo: Repository, ref: string): Promise<string> {
    let kinds: ('heads' | 'tags')[] = ['heads', 'tags'];
    let short = ref;
    for (const kind of ['heads', 'tags'] as const) {
      if (ref.startsWith(`refs/${kind}/`)) {
        kinds = [kind];
        short = ref.slice(`refs/${kind}/`.length);
      }
    }
    for (const kind of kinds) {
      const reply = await this.#api(`${repoPath(repo)}/git/ref/${kind}/${encPath(short)}`, true, repo.lane);
      if (reply.status === 404 || reply.status === 422) continue;
      if (reply.status === 409) throw emptyRepository(repo);
      if (reply.status !== 200) throw this.#failure(reply, `ref ${ref} of ${repo.fullName}`);
      // GitHub once answered a partial name with the list of refs it prefixes; that is no match.
      if (Array.isArray(reply.json)) continue;
      const target = gitObject((reply.json as { object?: unknown }).object);
      if (!target) throw this.#malformed(`ref ${ref} of ${repo.fullName}`);
      return this.#peel(repo, ref, target);
    }
    throw new ApiError('NOT_FOUND', `ref ${JSON.stringify(ref)} is neither a branch nor a tag of ${repo.fullName}`);
  }

  async #peel(repo: Repository, ref: string, first: GitObject): Promise<string> {
    let target = first;
    // Annotated tags point at a tag object, which may itself point at another tag.
    for (let depth = 0; target.type === 'tag'; depth++) {
      if (depth === MAX_TAG_DEPTH) throw new ApiError('NOT_FOUND', `tag ${JSON.stringify(ref)} is nested too deeply to resolve`);
      const reply = await this.#api(`${repoPath(repo)}/git/tags/${target.sha}`, true, repo.lane);
      if (reply.status === 404) throw new ApiError('NOT_FOUND', `tag ${JSON.stringify(ref)} of ${repo.fullName} could not be resolved`);
      if (reply.status !== 200) throw this.#failure(reply, `tag ${ref} of ${repo.fullName}`);
      const next = gitObject((reply.json as { object?: unknown }).object);
      if (!next) throw this.#malformed(`tag ${ref} of ${repo.fullName}`);
      target = next;
    }
    if (target.type !== 'commit') {
      throw new ApiError('NOT_FOUND', `tag ${JSON.stringify(ref)} of ${repo.fullName} points to a ${target.type}, not a commit`);
    }
    return target.sha;
  }

  /**
   * Every entry of the commit's tree. GitHub cuts a recursive listing of a very large tree short
   * and says so; such a tree is then listed one folder level at a time, each subfolder again
   * recursively, so nothing is silently left out.
   */
  async listTree(repo: Repository, commit: string): Promise<TreeEntry[]> {
    let budget = this.#opts.maxTreeRequests;
    // Walkers side by side all run out at once: one failure, logged once.
    let exhausted: ApiError | undefined;
    // Subfolders are listed side by side; once one listing fails the others are of no use.
    const abandon = new AbortController();
    const fetchTree = async (sha: string, recursive: boolean) => {
      if (budget-- <= 0) {
        throw (exhausted ??= this.#unavailable(`the tree of ${repo.fullName} is too large to list within ${this.#opts.maxTreeRequests} GitHub requests`, {}));
      }
      const reply = await this.#api(`${repoPath(repo)}/git/trees/${sha}${recursive ? '?recursive=1' : ''}`, false, repo.lane, abandon.signal);
      if (reply.status === 409) throw emptyRepository(repo);
      if (reply.status === 404) throw new ApiError('NOT_FOUND', `commit ${commit} of ${repo.fullName} has no readable tree`);
      if (reply.status !== 200) throw this.#failure(reply, `the tree of ${repo.fullName}`);
      const body = reply.json as { tree?: unknown; truncated?: unknown };
      if (!Array.isArray(body.tree) || !body.tree.every(isTreeEntry)) throw this.#malformed(`the tree of ${repo.fullName}`);
      return { entries: body.tree as TreeEntry[], truncated: body.truncated === true };
    };
    const walk = async (sha: string, prefix: string): Promise<TreeEntry[]> => {
      const whole = await fetchTree(sha, true);
      if (!whole.truncated) return whole.entries.map((e) => ({ ...e, path: prefix + e.path }));
      const level = await fetchTree(sha, false);
      if (level.truncated) {
        throw this.#unavailable(`the folder ${JSON.stringify(prefix || '/')} of ${repo.fullName} has too many entries to list`, {});
      }
      const here = level.entries.map((e) => ({ ...e, path: prefix + e.path }));
      const below = await Promise.all(
        here.filter((e) => e.type === 'tree').map((folder) => walk(folder.sha, `${folder.path}/`)),
      );
      return here.concat(...below);
    };
    try {
      return await walk(commit, '');
    } finally {
      abandon.abort();
    }
  }

  /**
   * The file's bytes at the commit, 'too-large' when it runs past maxBytes (not read further), or
   * 'missing' when the raw host answers 404.
   * Once `abandoned` fires the download is cancelled, or never started if it is still waiting.
   */
  async readFile(
    repo: Repository,
    commit: string,
    path: string,
    maxBytes: number,
    abandoned?: AbortSignal,
  ): Promise<Buffer | 'too-large' | 'missing'> {
    const url = `${this.#rawBase}/${enc(repo.owner)}/${enc(repo.name)}/${commit}/${encPath(path)}`;
    const reply = await this.#fetch(url, { 'user-agent': USER_AGENT }, maxBytes, repo.lane, abandoned);
    // The tree lists it, the raw host has none (a file in Git LFS storage, a host lagging behind).
    if (reply.status === 404) return 'missing';
    if (reply.status !== 200) {
      const what = `${path} of ${repo.fullName}`;
      if (isRateLimited(reply.status, reply.headers, reply.body.toString('utf8'))) {
        throw this.#unavailable(`GitHub's raw content host is rate limiting us while reading ${what}; try again later`, {
          status: reply.status,
        });
      }
      throw this.#unavailable(`GitHub's raw content host answered ${reply.status} while reading ${what}`, {
        status: reply.status,
      });
    }
    return reply.overflow ? 'too-large' : reply.body;
  }

  async #api(path: string, conditional: boolean, lane: string, abandoned?: AbortSignal): Promise<JsonReply> {
    let url = this.#apiBase + path;
    const cached = conditional ? this.#etags.get(url) : undefined;
    for (let hops = 0; ; hops++) {
      const headers: Record<string, string> = {
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': USER_AGENT,
      };
      if (this.#opts.token) headers.authorization = `Bearer ${this.#opts.token}`;
      if (cached && hops === 0) headers['if-none-match'] = cached.etag;
      const reply = await this.#fetch(url, headers, MAX_API_BODY_BYTES, lane, abandoned);
      if (reply.overflow) throw this.#unavailable('GitHub sent an answer larger than the scanner reads', { path });
      const location = header(reply.headers, 'location');
      if ([301, 302, 307, 308].includes(reply.status) && location) {
        // A renamed repository redirects; follow it, but never carry the token to another host.
        const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
        if (!next || next.origin !== this.#apiOrigin || hops >= MAX_REDIRECTS) {
          throw this.#unavailable('GitHub redirected the request somewhere the scanner does not follow', { path });
        }
        url = next.href;
        continue;
      }
      const text = reply.body.toString('utf8');
      if (reply.status === 304 && cached) return { status: 200, headers: reply.headers, json: cached.value, text: '' };
      let json: unknown;
      if (reply.status >= 200 && reply.status < 300) {
        try {
          json = JSON.parse(text);
        } catch {
          throw this.#malformed(path);
        }
        // Every endpoint read here answers an object (or a list); anything else would be read
        // as one and fail with a TypeError, a 500, instead of saying GitHub was unreadable.
        if (typeof json !== 'object' || json === null) throw this.#malformed(path);
        const etag = header(reply.headers, 'etag');
        if (conditional && etag && hops === 0) this.#etags.set(url, { etag, value: json });
      }
      return { status: reply.status, headers: reply.headers, json, text };
    }
  }

  async #fetch(url: string, headers: Record<string, string>, maxBytes: number, lane: string, abandoned?: AbortSignal): Promise<Reply> {
    return this.#limiter.run(lane, async () => {
      // A request of a scan that has already failed gives its turn straight back: nobody needs
      // it, and hundreds of them queued would otherwise hold up every other scan.
      abandoned?.throwIfAborted();
      const timeout = AbortSignal.timeout(this.#opts.timeoutMs);
      try {
        const res = await undici().request(url, {
          method: 'GET',
          headers,
          dispatcher: this.#agent(),
          signal: abandoned ? AbortSignal.any([timeout, abandoned]) : timeout,
        });
        const chunks: Buffer[] = [];
        let size = 0;
        let overflow = false;
        for await (const chunk of res.body) {
          size += (chunk as Buffer).length;
          if (size > maxBytes) {
            overflow = true;
            break;
          }
          chunks.push(chunk as Buffer);
        }
        return { status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks), overflow };
      } catch (err) {
        // Nobody waits for an abandoned request any more: no failure to report or log.
        abandoned?.throwIfAborted();
        throw this.#unavailable(networkReason(err, this.#opts.timeoutMs), { host: new URL(url).host });
      }
    });
  }

  #failure(reply: JsonReply, what: string): ApiError {
    if (isRateLimited(reply.status, reply.headers, reply.text)) {
      const when = retryHint(reply.headers);
      const tokenHint = this.#opts.token ? '' : ' (a GitHub token in SVC_GITHUB_TOKEN raises the limit)';
      return this.#unavailable(`GitHub's API rate limit is exhausted; try again ${when}${tokenHint}`, {
        status: reply.status,
      });
    }
    if (reply.status === 401) {
      return this.#unavailable('GitHub rejected the configured token (401)', { status: 401 });
    }
    return this.#unavailable(`GitHub answered ${reply.status} while reading ${what}`, { status: reply.status });
  }

  #malformed(what: string): ApiError {
    return this.#unavailable(`GitHub sent an answer the scanner could not understand while reading ${what}`, {});
  }

  #unavailable(message: string, detail: object): ApiError {
    this.#opts.logger?.warn({ ...detail }, `skill scan: ${message}`);
    return new ApiError('SKILL_SOURCE_UNAVAILABLE', message);
  }
}

interface GitObject {
  sha: string;
  type: string;
}

function gitObject(value: unknown): GitObject | undefined {
  const v = value as { sha?: unknown; type?: unknown } | undefined;
  return v && typeof v.sha === 'string' && SHA.test(v.sha) && typeof v.type === 'string'
    ? { sha: v.sha, type: v.type }
    : undefined;
}

function isTreeEntry(value: unknown): boolean {
  const v = value as Partial<TreeEntry> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.path === 'string' &&
    typeof v.mode === 'string' &&
    typeof v.type === 'string' &&
    typeof v.sha === 'string' &&
    (v.size === undefined || typeof v.size === 'number')
  );
}

function emptyRepository(repo: Repository): ApiError {
  return new ApiError('NOT_FOUND', `repository ${repo.fullName} is empty`);
}

function repoPath(repo: Repository): string {
  return `/repos/${enc(repo.owner)}/${enc(repo.name)}`;
}

function enc(part: string): string {
  return encodeURIComponent(part);
}

function encPath(path: string): string {
  return path.split('/').map(enc).join('/');
}

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** GitHub's primary limit (remaining 0) and its secondary limits (a retry-after or the message). */
export function isRateLimited(status: number, headers: Headers, body: string): boolean {
  if (status === 429) return true;
  if (status !== 403) return false;
  return header(headers, 'x-ratelimit-remaining') === '0' || header(headers, 'retry-after') !== undefined || /rate limit/i.test(body);
}

function retryHint(headers: Headers): string {
  const retryAfter = Number(header(headers, 'retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return `in ${Math.ceil(retryAfter)} seconds`;
  const reset = Number(header(headers, 'x-ratelimit-reset'));
  if (Number.isFinite(reset) && reset > 0) return `after ${new Date(reset * 1000).toISOString()}`;
  return 'later';
}

function networkReason(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string };
  const timedOut =
    e?.name === 'TimeoutError' ||
    e?.code === 'UND_ERR_CONNECT_TIMEOUT' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT';
  if (timedOut) return `GitHub did not answer within ${timeoutMs} ms`;
  const cause = e?.code ? NETWORK_CAUSES[e.code] : undefined;
  return `could not reach GitHub${e?.code ? ` (${e.code})` : ''}: ${cause ?? 'try again later'}`;
}

const NO_DNS = "the daemon's host could not look up GitHub's address: check that it is online and can resolve names, then try again";
/** What the common failures mean, said from the daemon's side: the scan runs there, not in the CLI. */
const NETWORK_CAUSES: Record<string, string> = {
  ENOTFOUND: NO_DNS,
  EAI_AGAIN: NO_DNS,
  ECONNREFUSED: "the connection was refused: check the daemon's host for a proxy or firewall in the way",
  ENETUNREACH: "the daemon's host has no route to GitHub: check that it is online",
};
