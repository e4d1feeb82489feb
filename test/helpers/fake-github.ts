// A local stand-in for GitHub: the REST endpoints the skill scanner uses and the raw content
// host, serving repositories described in code as path -> content maps. It records every
// request so tests can assert what the scanner asked for (and what it did not).
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type FakeFile = string | Buffer | { symlink: string } | { submodule: string };

export interface RecordedRequest {
  kind: 'api' | 'raw';
  method: string;
  /** path and query as received, after the /api or /raw prefix */
  path: string;
  headers: IncomingHttpHeaders;
  status: number;
}

export interface Intercept {
  /** matched against `${kind} ${path}`, e.g. /^raw /, /^api \/repos\/o\/n$/ */
  match: RegExp;
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** how many requests it answers before it stops matching (default: all) */
  times?: number;
  /** answer nothing, never (to exercise timeouts) */
  hang?: boolean;
  /** wait before answering normally (or with `status`, when set) */
  delayMs?: number;
}

interface TreeObject {
  type: 'tree';
  entries: { name: string; mode: string; type: 'blob' | 'tree' | 'commit'; sha: string; size?: number }[];
}
type GitObject =
  | TreeObject
  | { type: 'blob'; content: Buffer }
  | { type: 'commit'; tree: string; files: Map<string, Buffer> }
  | { type: 'tag'; name: string; object: { sha: string; type: string } };

function sha1(text: Buffer | string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** One repository: its git objects, branches and tags. */
export class FakeRepo {
  readonly objects = new Map<string, GitObject>();
  readonly branches = new Map<string, string>();
  readonly tags = new Map<string, string>();
  /** a recursive tree listing with more entries than this answers truncated:true */
  recursiveLimit = Infinity;
  #counter = 0;

  constructor(
    readonly id: number,
    readonly owner: string,
    readonly name: string,
    readonly isPrivate: boolean,
  ) {}

  get fullName(): string {
    return `${this.owner}/${this.name}`;
  }

  /** Stores a commit holding exactly `files`; returns its sha. */
  commit(files: Record<string, FakeFile>): string {
    const root = this.#tree(files);
    const blobs = new Map<string, Buffer>();
    for (const [path, file] of Object.entries(files)) {
      if (typeof file === 'string' || Buffer.isBuffer(file)) blobs.set(path, Buffer.from(file));
    }
    const sha = sha1(`commit ${this.fullName} ${root} ${this.#counter++}`);
    this.objects.set(sha, { type: 'commit', tree: root, files: blobs });
    return sha;
  }

  branch(name: string, commit: string): this {
    this.branches.set(name, commit);
    return this;
  }

  /** A lightweight tag, or an annotated one (a tag object) when `annotated`. */
  tag(name: string, commit: string, opts: { annotated?: boolean } = {}): this {
    if (!opts.annotated) {
      this.tags.set(name, commit);
      return this;
    }
    const sha = sha1(`tag ${name} ${commit}`);
    this.objects.set(sha, { type: 'tag', name, object: { sha: commit, type: 'commit' } });
    this.tags.set(name, sha);
    return this;
  }

  #tree(files: Record<string, FakeFile>): string {
    const here = new Map<string, FakeFile | Record<string, FakeFile>>();
    for (const [path, file] of Object.entries(files)) {
      const [head, ...rest] = path.split('/');
      if (rest.length === 0) here.set(head, file);
      else {
        const sub = (here.get(head) as Record<string, FakeFile> | undefined) ?? {};
        sub[rest.join('/')] = file;
        here.set(head, sub);
      }
    }
    const entries: TreeObject['entries'] = [];
    for (const [name, value] of here) {
      if (typeof value === 'string' || Buffer.isBuffer(value)) {
        const content = Buffer.from(value);
        const sha = sha1(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]));
        this.objects.set(sha, { type: 'blob', content });
        entries.push({ name, mode: '100644', type: 'blob', sha, size: content.length });
      } else if ('symlink' in value && typeof value.symlink === 'string') {
        const content = Buffer.from(value.symlink);
        const sha = sha1(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]));
        this.objects.set(sha, { type: 'blob', content });
        entries.push({ name, mode: '120000', type: 'blob', sha, size: content.length });
      } else if ('submodule' in value && typeof value.submodule === 'string') {
        entries.push({ name, mode: '160000', type: 'commit', sha: value.submodule });
      } else {
        entries.push({ name, mode: '040000', type: 'tree', sha: this.#tree(value as Record<string, FakeFile>) });
      }
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const sha = sha1(JSON.stringify(entries));
    this.objects.set(sha, { type: 'tree', entries });
    return sha;
  }

  /** Every entry under a tree, depth first, as GitHub's recursive listing gives them. */
  listing(treeSha: string, recursive: boolean, prefix = ''): Record<string, unknown>[] {
    const tree = this.objects.get(treeSha) as TreeObject;
    const out: Record<string, unknown>[] = [];
    for (const e of tree.entries) {
      const path = prefix + e.name;
      out.push(e.type === 'blob' ? { path, mode: e.mode, type: e.type, sha: e.sha, size: e.size } : { path, mode: e.mode, type: e.type, sha: e.sha });
      if (recursive && e.type === 'tree') out.push(...this.listing(e.sha, true, `${path}/`));
    }
    return out;
  }
}

export interface FakeGitHubOptions {
  /** a bearer token that lets requests see private repositories */
  token?: string;
}

export class FakeGitHub {
  readonly requests: RecordedRequest[] = [];
  readonly #repos = new Map<string, FakeRepo>();
  readonly #renamed = new Map<string, FakeRepo>();
  readonly #intercepts: Intercept[] = [];
  readonly #server: Server;
  readonly #hanging = new Set<ServerResponse>();
  #nextId = 1000;
  #inFlight = { api: 0, raw: 0 };
  /** when a request last arrived or was answered (performance.now()) */
  #lastActivity = 0;
  /** the most requests of each kind the server was answering at the same moment */
  readonly maxInFlight = { api: 0, raw: 0 };
  base = '';

  private constructor(readonly opts: FakeGitHubOptions) {
    this.#server = createServer((req, res) => {
      void this.#handle(req.method ?? 'GET', req.url ?? '/', req.headers, res);
    });
  }

  static async start(opts: FakeGitHubOptions = {}): Promise<FakeGitHub> {
    const fake = new FakeGitHub(opts);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.base = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  /** Like a GitHub Enterprise base URL, the API sits under a path prefix. */
  get apiUrl(): string {
    return `${this.base}/api`;
  }

  get rawUrl(): string {
    return `${this.base}/raw`;
  }

  async close(): Promise<void> {
    for (const res of this.#hanging) res.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /**
   * Adds a repository; with `files` it gets one commit on `branch` (default main).
   * Without files it is empty, as a freshly created repository is.
   */
  addRepo(fullName: string, init: { files?: Record<string, FakeFile>; branch?: string; private?: boolean } = {}): FakeRepo {
    const [owner, name] = fullName.split('/');
    const repo = new FakeRepo(this.#nextId++, owner, name, init.private ?? false);
    this.#repos.set(fullName.toLowerCase(), repo);
    if (init.files) repo.branch(init.branch ?? 'main', repo.commit(init.files));
    return repo;
  }

  /** GitHub keeps answering a repository's old name with a redirect after a rename. */
  addRename(oldFullName: string, repo: FakeRepo): void {
    this.#renamed.set(oldFullName.toLowerCase(), repo);
  }

  intercept(rule: Intercept): void {
    this.#intercepts.push(rule);
  }

  /** Stops hanging: drops the rules that hang and cuts the connections they held so far. */
  release(): void {
    for (let i = this.#intercepts.length - 1; i >= 0; i--) if (this.#intercepts[i].hang) this.#intercepts.splice(i, 1);
    for (const res of this.#hanging) res.destroy();
    this.#hanging.clear();
    // what hung was never answered: it is in flight no longer
    this.#inFlight = { api: 0, raw: 0 };
  }

  /**
   * Resolves once no request is being answered and none has come for `quietMs`: a client that
   * goes on reading after its requests in flight were answered is seen within that time.
   */
  async settled(quietMs: number, timeoutMs = 10_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const busy = this.#inFlight.api + this.#inFlight.raw > 0;
      const quietFor = performance.now() - this.#lastActivity;
      if (!busy && quietFor >= quietMs) return;
      if (performance.now() > deadline) throw new Error(`GitHub was not left alone for ${quietMs} ms within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, busy ? 10 : quietMs - quietFor));
    }
  }

  requestsOf(kind: 'api' | 'raw'): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === kind);
  }

  async #handle(method: string, url: string, headers: IncomingHttpHeaders, res: ServerResponse): Promise<void> {
    const kind = url.startsWith('/raw/') ? 'raw' : 'api';
    const path = url.replace(/^\/(api|raw)/, '');
    const record: RecordedRequest = { kind, method, path, headers, status: 0 };
    this.requests.push(record);
    this.#lastActivity = performance.now();
    this.#inFlight[kind]++;
    this.maxInFlight[kind] = Math.max(this.maxInFlight[kind], this.#inFlight[kind]);
    const send = (status: number, body: unknown, extra: Record<string, string> = {}) => {
      record.status = status;
      this.#lastActivity = performance.now();
      this.#inFlight[kind]--;
      const payload = Buffer.isBuffer(body) ? body : body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
      res.writeHead(status, { 'content-length': String(payload.length), ...extra });
      res.end(payload);
    };

    const rule = this.#intercepts.find((r) => r.match.test(`${kind} ${path}`) && (r.times === undefined || r.times > 0));
    if (rule) {
      if (rule.times !== undefined) rule.times--;
      if (rule.hang) {
        this.#hanging.add(res);
        return;
      }
      if (rule.delayMs) await new Promise((resolve) => setTimeout(resolve, rule.delayMs));
      if (rule.status !== undefined) return send(rule.status, rule.body, rule.headers);
    }
    if (method !== 'GET') return send(405, { message: 'Method Not Allowed' });
    if (kind === 'raw') return this.#raw(path, send);
    return this.#api(path, headers, send);
  }

  #raw(path: string, send: (status: number, body: unknown, extra?: Record<string, string>) => void): void {
    const [owner, name, commit, ...rest] = path.slice(1).split('/').map(decodeURIComponent);
    const repo = this.#repos.get(`${owner}/${name}`.toLowerCase());
    const obj = repo?.objects.get(commit);
    const content = obj?.type === 'commit' ? obj.files.get(rest.join('/')) : undefined;
    if (!content) return send(404, Buffer.from('404: Not Found'), { 'content-type': 'text/plain' });
    send(200, content, { 'content-type': 'text/plain; charset=utf-8' });
  }

  #api(
    path: string,
    headers: IncomingHttpHeaders,
    send: (status: number, body: unknown, extra?: Record<string, string>) => void,
  ): void {
    const [pathname, query = ''] = path.split('?');
    const notFound = () => send(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    const authorized = this.opts.token !== undefined && headers.authorization === `Bearer ${this.opts.token}`;
    const conditional = (body: unknown) => {
      const etag = `W/"${sha1(JSON.stringify(body))}"`;
      if (headers['if-none-match'] === etag) return send(304, undefined, { etag });
      send(200, body, { etag, 'content-type': 'application/json; charset=utf-8' });
    };

    const byId = /^\/repositories\/(\d+)$/.exec(pathname);
    if (byId) {
      const repo = [...this.#repos.values()].find((r) => r.id === Number(byId[1]));
      return repo && (!repo.isPrivate || authorized) ? conditional(repoJson(repo)) : notFound();
    }
    const m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(pathname);
    if (!m) return notFound();
    const key = `${decodeURIComponent(m[1])}/${decodeURIComponent(m[2])}`.toLowerCase();
    const rest = m[3] ?? '';
    const renamed = this.#renamed.get(key);
    if (renamed && rest === '') {
      return send(301, { message: 'Moved Permanently', url: `${this.apiUrl}/repositories/${renamed.id}` }, {
        location: `${this.apiUrl}/repositories/${renamed.id}`,
      });
    }
    const repo = this.#repos.get(key);
    if (!repo || (repo.isPrivate && !authorized)) return notFound();
    if (rest === '') return conditional(repoJson(repo));

    const empty = repo.branches.size === 0 && repo.tags.size === 0;
    const emptyReply = () => send(409, { message: 'Git Repository is empty.' });

    const ref = /^\/git\/ref\/(heads|tags)\/(.+)$/.exec(rest);
    if (ref) {
      if (empty) return emptyReply();
      const name = ref[2].split('/').map(decodeURIComponent).join('/');
      const sha = (ref[1] === 'heads' ? repo.branches : repo.tags).get(name);
      if (!sha) return notFound();
      const type = repo.objects.get(sha)?.type ?? 'commit';
      return conditional({ ref: `refs/${ref[1]}/${name}`, object: { sha, type } });
    }
    const tag = /^\/git\/tags\/([0-9a-f]{40})$/.exec(rest);
    if (tag) {
      const obj = repo.objects.get(tag[1]);
      if (obj?.type !== 'tag') return notFound();
      return conditional({ sha: tag[1], tag: obj.name, object: obj.object });
    }
    const tree = /^\/git\/trees\/([0-9a-f]{40})$/.exec(rest);
    if (tree) {
      if (empty) return emptyReply();
      const obj = repo.objects.get(tree[1]);
      const treeSha = obj?.type === 'commit' ? obj.tree : obj?.type === 'tree' ? tree[1] : undefined;
      if (!treeSha) return notFound();
      const recursive = new URLSearchParams(query).has('recursive');
      let entries = repo.listing(treeSha, recursive);
      const truncated = recursive && entries.length > repo.recursiveLimit;
      if (truncated) entries = entries.slice(0, repo.recursiveLimit);
      return send(200, { sha: treeSha, tree: entries, truncated }, { 'content-type': 'application/json; charset=utf-8' });
    }
    notFound();
  }
}

function repoJson(repo: FakeRepo): Record<string, unknown> {
  return {
    id: repo.id,
    name: repo.name,
    full_name: repo.fullName,
    owner: { login: repo.owner },
    private: repo.isPrivate,
    visibility: repo.isPrivate ? 'private' : 'public',
    default_branch: 'main',
  };
}
