import { setImmediate as nextTurn } from 'node:timers/promises';
import { GitHubSource, type Repository, type SourceLogger } from './github-source.js';
import { assertRefName } from './ref-name.js';
import { parseRepositoryUrl } from './repository-url.js';
import { judgeSkillFile, MAX_SKILL_BYTES } from './skill-file.js';
import { byPath, pickSkillFiles, tooLargeReason, type SkillCandidate, type SkippedFile } from './tree-entries.js';

export type { SkippedFile } from './tree-entries.js';

export interface DiscoveredSkill {
  path: string;
  name: string;
  description: string;
  sizeBytes: number;
}

export interface SkillScanResult {
  repository: string;
  ref: string;
  commit: string;
  skills: DiscoveredSkill[];
  skipped: SkippedFile[];
}

export interface ScanFindings {
  skills: DiscoveredSkill[];
  skipped: SkippedFile[];
}

/**
 * Where finished scans are kept, keyed `${owner/name lower-cased}@${commit}` (the store's
 * skill_scans id): a commit never changes, so its findings never go stale.
 */
export interface ScanCache {
  get(key: string): Promise<ScanFindings | undefined>;
  put(key: string, value: ScanFindings & { repository: string; commit: string }): Promise<void>;
}

export interface SkillScannerOptions {
  apiUrl?: string;
  rawUrl?: string;
  token?: string;
  cache?: ScanCache;
  /** per GitHub request (default 20 s) */
  timeoutMs?: number;
  /** GitHub requests in flight at once per scanner (default 8) */
  concurrency?: number;
  /** GitHub tree requests one scan may spend on a truncated tree (default 100) */
  maxTreeRequests?: number;
  /** repository and ref answers remembered for conditional requests (default 500) */
  etagCacheSize?: number;
  logger?: SourceLogger;
}

export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';
export const DEFAULT_GITHUB_RAW_URL = 'https://raw.githubusercontent.com';

export function scanCacheKey(fullName: string, commit: string): string {
  return `${fullName.toLowerCase()}@${commit}`;
}

const MISSING_REASON = "GitHub's raw content host has no such file (404), though the commit's tree lists it (a file kept in Git LFS?)";

/** Lists the valid SKILL.md files of a public GitHub repository at a branch or tag. */
export class SkillScanner {
  readonly #source: GitHubSource;
  readonly #cache?: ScanCache;
  readonly #logger?: SourceLogger;
  /** scans of a commit under way, by cache key */
  readonly #inFlight = new Map<string, Promise<{ findings: ScanFindings; complete: boolean }>>();

  constructor(opts: SkillScannerOptions = {}) {
    this.#source = new GitHubSource({
      apiUrl: opts.apiUrl || DEFAULT_GITHUB_API_URL,
      rawUrl: opts.rawUrl || DEFAULT_GITHUB_RAW_URL,
      token: opts.token || undefined,
      timeoutMs: opts.timeoutMs ?? 20_000,
      concurrency: opts.concurrency ?? 8,
      maxTreeRequests: opts.maxTreeRequests ?? 100,
      etagCacheSize: opts.etagCacheSize ?? 500,
      logger: opts.logger,
    });
    this.#cache = opts.cache;
    this.#logger = opts.logger;
  }

  /** `teamId`: who scans; one team's scans get at most a share of the requests to GitHub at once */
  async scan(teamId: string, input: { repository: string; ref: string }): Promise<SkillScanResult> {
    const { owner, name } = parseRepositoryUrl(input.repository);
    assertRefName(input.ref);
    const repo = await this.#source.getRepository(owner, name, teamId);
    // Resolved on every scan, cached or not: a branch moves, its old commit's findings do not.
    const commit = await this.#source.resolveRef(repo, input.ref);
    const key = scanCacheKey(repo.fullName, commit);
    const cached = await this.#cacheGet(key);
    if (cached) return { repository: repo.fullName, ref: input.ref, commit, skills: cached.skills, skipped: cached.skipped };

    // Scans of a commit under way already wait for it rather than download every file again.
    let scanning = this.#inFlight.get(key);
    const first = scanning === undefined;
    if (!scanning) {
      scanning = this.#scanCommit(repo, commit).finally(() => this.#inFlight.delete(key));
      this.#inFlight.set(key, scanning);
    }
    const { findings, complete } = await scanning;
    // A file the raw host did not have may be there on the next scan: such findings are not kept.
    if (complete && first) await this.#cachePut(key, { repository: repo.fullName, commit, ...findings });
    return { repository: repo.fullName, ref: input.ref, commit, ...findings };
  }

  async close(): Promise<void> {
    await this.#source.close();
  }

  async #scanCommit(repo: Repository, commit: string): Promise<{ findings: ScanFindings; complete: boolean }> {
    const entries = await this.#source.listTree(repo, commit);
    const { candidates, skipped } = pickSkillFiles(entries, repo.name);
    const skills: DiscoveredSkill[] = [];
    // The source bounds how many downloads run at once; all are started so none waits on another's
    // turn. One failure fails the scan, and then the downloads still queued are dropped.
    const abandon = new AbortController();
    let verdicts: (DiscoveredSkill | SkippedFile)[];
    try {
      verdicts = await Promise.all(candidates.map((c) => this.#judge(repo, commit, c, abandon.signal)));
    } finally {
      abandon.abort();
    }
    let complete = true;
    for (const verdict of verdicts) {
      if ('reason' in verdict && verdict.reason === MISSING_REASON) complete = false;
      if ('reason' in verdict) skipped.push(verdict);
      else skills.push(verdict);
    }
    return { findings: { skills: skills.sort(byPath), skipped: skipped.sort(byPath) }, complete };
  }

  async #judge(
    repo: Repository,
    commit: string,
    candidate: SkillCandidate,
    abandoned: AbortSignal,
  ): Promise<DiscoveredSkill | SkippedFile> {
    const bytes = await this.#source.readFile(repo, commit, candidate.path, MAX_SKILL_BYTES, abandoned);
    if (bytes === 'too-large') return { path: candidate.path, reason: tooLargeReason() };
    if (bytes === 'missing') return { path: candidate.path, reason: MISSING_REASON };
    // Each file is parsed in a turn of its own, so requests queued meanwhile are served between
    // files rather than after all of a large repository's.
    await nextTurn();
    const verdict = judgeSkillFile(bytes, candidate.expected);
    if (!verdict.ok) return { path: candidate.path, reason: verdict.reason };
    return { path: candidate.path, ...verdict.skill, sizeBytes: bytes.length };
  }

  // The cache only saves work: when it fails the scan still answers, from GitHub.
  async #cacheGet(key: string): Promise<ScanFindings | undefined> {
    if (!this.#cache) return undefined;
    try {
      return await this.#cache.get(key);
    } catch (err) {
      this.#logger?.warn({ key, err: errorText(err) }, 'skill scan: cache read failed');
      return undefined;
    }
  }

  async #cachePut(key: string, value: ScanFindings & { repository: string; commit: string }): Promise<void> {
    if (!this.#cache) return;
    try {
      await this.#cache.put(key, value);
    } catch (err) {
      this.#logger?.warn({ key, err: errorText(err) }, 'skill scan: cache write failed');
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
