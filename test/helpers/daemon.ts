// Starts a real daemon on port 0 with a temporary data folder, in the store of the test project
// (test-store.ts), plus small HTTP helpers the daemon tests share. Every test talks to the daemon
// over HTTP, as a client would.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DaemonOptions, RunningDaemon } from '../../daemon/config.js';
import { startDaemon } from '../../daemon/server.js';
import { dropTestStores, testStoreFor } from './test-store.js';

export interface TestDaemon extends RunningDaemon {
  dataDir: string;
  /** request with the admin token */
  admin: Requester;
  /** request with any bearer (or none) */
  as(token: string | null): Requester;
  /** stops the daemon and deletes its data folder (and its database on the postgres project) */
  destroy(): Promise<void>;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export type Requester = <T = any>(method: string, path: string, body?: unknown, init?: { headers?: Record<string, string>; raw?: string }) => Promise<ApiResponse<T>>;

export async function makeDataDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'svc-test-'));
}

/**
 * A daemon on `opts.dataDir` (default: a new temporary folder). On the postgres project its state
 * lives in the folder's own database, the same one for every start on that folder; a `store` in
 * `opts` wins.
 */
export async function startTestDaemon(opts: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const dataDir = opts.dataDir ?? (await makeDataDir());
  const store = opts.store ?? (await testStoreFor(dataDir));
  const daemon = await startDaemon({ port: 0, logLevel: 'silent', rateLimit: 10_000, adminRateLimit: 10_000, authFailureLimit: 10_000, ...opts, dataDir, store });
  const as = (token: string | null) => requester(daemon.url, token);
  return {
    ...daemon,
    dataDir,
    admin: as(daemon.adminToken),
    as,
    async destroy() {
      await daemon.close();
      await dropTestStores(dataDir);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A clock for tests that count requests against a rate limit. The limits' windows turn on the
 * whole minute of the daemon's clock, and a window turning between two requests resets the count
 * the test expects. This clock runs at real speed from one second into a minute, so a test has
 * 59 seconds before its window turns.
 */
export function clockInOneWindow(): () => Date {
  const started = Date.now();
  const windowStart = Math.ceil(started / 60_000) * 60_000 + 1_000;
  return () => new Date(windowStart + (Date.now() - started));
}

export function requester(baseUrl: string, token: string | null): Requester {
  return async (method, path, body, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let payload: string | undefined = init.raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + path, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // leave non-JSON bodies as text so a test can show what came back
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };
}

/** Creates a team through the admin API and a team key for it. */
export async function createTeam(d: TestDaemon, slug = 'acme') {
  const team = await d.admin('POST', '/admin/teams', { slug, name: slug.toUpperCase() });
  if (team.status !== 201) throw new Error(`team create failed: ${JSON.stringify(team.body)}`);
  const key = await d.admin('POST', `/admin/teams/${slug}/keys`, { name: 'test' });
  if (key.status !== 201) throw new Error(`key create failed: ${JSON.stringify(key.body)}`);
  return { team: team.body.data, key: key.body.data.key as string, keyId: key.body.data.id as string, api: d.as(key.body.data.key) };
}
