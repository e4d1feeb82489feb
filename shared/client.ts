// The typed API client: the CLI's only way to the daemon, also used by tests and benchmarks.
// Generic on purpose (request(method, path, ...)); command authors add thin typed helpers.
import { ApiFailure, ConnectionFailure } from './api-failure.js';
import { ERROR_STATUS } from './errors.js';
import type {
  ConnectionDto,
  ConnectionWithSecretDto,
  CreateConnectionInput,
  DeliveryDto,
  RotateSecretInput,
} from './schemas/connections.js';
import type { EventResultDto } from './schemas/events.js';
import { createTransport, TransportError, type TransportAnswer } from './http-transport.js';

export { ApiFailure, ConnectionFailure } from './api-failure.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryValue = string | number | boolean | null | undefined | readonly (string | number)[];
export type Query = Record<string, QueryValue>;

export interface ClientOptions {
  /** with or without the trailing `/api/v1` */
  baseUrl: string;
  /** bearer token (team key, project key or admin token) */
  token?: string;
  /** where the token came from (see ApiFailure.keyFrom) */
  tokenFrom?: string | null;
  /** on 429 fail at once instead of waiting for the window to reset and retrying once */
  noWait?: boolean;
  /** a 429 asking for a longer wait than this fails at once (default 2 min) */
  maxRateLimitWaitMs?: number;
  /** attempts for idempotent requests on connection errors and 5xx (default 3) */
  tries?: number;
  /** first backoff delay, doubled per retry (default 250 ms) */
  backoffMs?: number;
  /** told before a rate-limit wait, e.g. to say so on stderr */
  onRateLimitWait?: (ms: number) => void;
  userAgent?: string;
  /** the command that starts the daemon this client talks to, named when none answers (default `svc daemon start`) */
  startCommand?: string;
  /**
   * how long to wait for an answer to start, and between parts of it (default 60 s); past it the
   * request fails with a ConnectionFailure and is not tried again: a daemon that took a request
   * and went quiet would only take the next one the same way
   */
  timeoutMs?: number;
  /** for tests */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

export interface RequestOptions {
  /** sent as JSON */
  body?: unknown;
  query?: Query;
  headers?: Record<string, string>;
  /** override the method's default (GET, PUT, DELETE are idempotent) for the retry policy */
  idempotent?: boolean;
  /**
   * a request to a path of the caller's own (`svc api`): a 2xx answer may be any JSON without the
   * `{"data": ...}` envelope (/openapi.json) or plain text (/metrics), and a 404 for no route is
   * the path's. Otherwise such an answer is a ConnectionFailure: the URL is not the API's.
   */
  anyBody?: boolean;
}

export interface ApiResult<T> {
  status: number;
  data: T;
  /** beside `data` on list responses that have more */
  next_cursor?: string;
  headers: Record<string, string | undefined>;
  /** the whole parsed JSON body (undefined when it was not JSON) */
  body: unknown;
  /** the body of a plain-text answer (`text/plain`, as /metrics gives), with `anyBody` only */
  text?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor?: string;
}

export interface ApiClient {
  /** normalised, ends with /api/v1, no trailing slash */
  readonly baseUrl: string;
  request<T = unknown>(method: HttpMethod, path: string, options?: RequestOptions): Promise<ApiResult<T>>;
  get<T = unknown>(path: string, query?: Query): Promise<T>;
  /** one page of a list route */
  list<T = unknown>(path: string, query?: Query): Promise<Page<T>>;
  /** every page of a list route, following next_cursor */
  listAll<T = unknown>(path: string, query?: Query): Promise<T[]>;
  post<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  put<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  patch<T = unknown>(path: string, body?: unknown, query?: Query): Promise<T>;
  delete<T = unknown>(path: string, query?: Query): Promise<T>;
  /**
   * A provider's delivery, as the provider sends it: `body` byte for byte, `headers` as given, no
   * bearer key (the signature is the authentication), never retried (a delivery is one attempt).
   * `target` is a connection id (posted to `{baseUrl}/hooks/{id}`) or a whole URL. Any HTTP status
   * is an answer, not an error: only a daemon that cannot be reached throws (ConnectionFailure).
   */
  deliver(target: string, headers: Record<string, string>, body: string): Promise<HookAnswer>;
  /** closes the kept-alive connection (a CLI run need not: it exits) */
  close(): Promise<void>;
}

/** The daemon's answer to a delivery (`POST /hooks/{id}`), whatever its status. */
export interface HookAnswer {
  /** where it was posted */
  url: string;
  status: number;
  headers: Record<string, string | undefined>;
  /** the parsed JSON body (the raw text when it was not JSON) */
  body: unknown;
  /** a 2xx answer's `data`: the event's result, or Slack's `{challenge}` */
  data?: EventResultDto | { challenge: string };
  /** an error answer's envelope */
  error?: { code: string; message: string };
}

const API_PREFIX = '/api/v1';
const IDEMPOTENT: ReadonlySet<HttpMethod> = new Set(['GET', 'PUT', 'DELETE']);

/**
 * 5xx answers that are the daemon's considered verdict, not a passing fault: every 502 code of
 * the API (the runner refused the session or message, GitHub could not be read). Sending again
 * would only repeat the refusal (and, for an event, store one more receipt of it), so they are
 * never retried.
 */
const FINAL_5XX_CODES: ReadonlySet<string> = new Set(Object.entries(ERROR_STATUS).flatMap(([code, status]) => (status === 502 ? [code] : [])));

function isFinalAnswer(res: { json?: unknown }): boolean {
  const code = (res.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' && FINAL_5XX_CODES.has(code);
}

/**
 * `http://h:1`, `http://h:1/`, `http://h:1/api/v1/` all become `http://h:1/api/v1`.
 * Throws TypeError on anything that is not an http(s) URL.
 */
export function normalizeBaseUrl(input: string): string {
  const url = new URL(input.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`not an http(s) URL: ${input}`);
  }
  url.search = '';
  url.hash = '';
  let path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(API_PREFIX)) path += API_PREFIX;
  return `${url.origin}${path}`;
}

/**
 * Builds a path with every interpolated value URL-encoded as one segment:
 * apiPath`/teams/${slug}/automations/${id}`.
 */
export function apiPath(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0];
  values.forEach((v, i) => {
    out += encodeURIComponent(String(v)) + strings[i + 1];
  });
  return out;
}

export function buildQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) params.append(name, String(v));
    else params.append(name, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** How long a 429 asks us to wait, from Retry-After (seconds) or X-RateLimit-Reset (Unix seconds). */
export function rateLimitWaitMs(headers: Record<string, string | undefined>, nowMs: number): number | undefined {
  const reset = Number(headers['x-ratelimit-reset']);
  // A fixed window resets on a whole second; a little slack avoids arriving a hair early.
  if (headers['x-ratelimit-reset'] && Number.isFinite(reset)) return Math.max(0, reset * 1000 - nowMs) + 100;
  const retryAfter = Number(headers['retry-after']);
  if (headers['retry-after'] && Number.isFinite(retryAfter)) return Math.max(0, retryAfter * 1000);
  return undefined;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Node's words with its code ("self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)"). */
function otherFailure(code: string | undefined, message: string | undefined): string {
  if (!message) return code ?? 'network error';
  return code && !message.includes(code) ? `${message} (${code})` : message;
}

/** Why no answer came, in words; `retryable` false when trying again cannot help. */
function describeTransportError(err: unknown, startCommand: string): { reason: string; retryable: boolean } {
  // The transport rejects with a TransportError only; anything else is a fault of ours, said as it is.
  const code = err instanceof TransportError ? err.code : undefined;
  switch (code) {
    case 'TIMEOUT':
      return { reason: (err as TransportError).message, retryable: false };
    case 'ECONNREFUSED':
      return { reason: `connection refused (is the daemon running? \`${startCommand}\`)`, retryable: true };
    case 'ENOTFOUND':
      return { reason: 'host not found', retryable: true };
    case 'ECONNRESET':
    case 'EPIPE':
      return { reason: 'connection reset', retryable: true };
    default:
      // Node's own refusals (ERR_INVALID_CHAR, ERR_HTTP_INVALID_HEADER_VALUE...) come before anything is sent.
      if (code?.startsWith('ERR_')) return { reason: `the request could not be sent: ${(err as Error).message}`, retryable: false };
      return { reason: otherFailure(code, (err as Error)?.message), retryable: true };
  }
}

function isEnvelope(json: unknown): boolean {
  return typeof json === 'object' && json !== null && !Array.isArray(json) && 'data' in json;
}

interface RawResponse {
  status: number;
  headers: Record<string, string | undefined>;
  json: unknown;
  text: string;
}

export function createClient(options: ClientOptions): ApiClient {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const origin = new URL(baseUrl).origin;
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? Date.now;
  const tries = Math.max(1, options.tries ?? 3);
  const backoffMs = options.backoffMs ?? 250;
  const maxWait = options.maxRateLimitWaitMs ?? 120_000;
  const basePath = new URL(baseUrl).pathname;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const transport = createTransport();
  const startCommand = options.startCommand ?? 'svc daemon start';
  const unreachable = (at: string, err: unknown) => {
    const { reason, retryable } = describeTransportError(err, startCommand);
    return new ConnectionFailure(at, reason, retryable);
  };

  async function once(method: HttpMethod, path: string, opts: RequestOptions): Promise<RawResponse> {
    const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (options.userAgent) headers['user-agent'] = options.userAgent;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const fullPath = `${basePath}${path.startsWith('/') ? path : `/${path}`}${buildQuery(opts.query)}`;
    let res: TransportAnswer;
    try {
      res = await transport.send({ origin, path: fullPath, method, headers, body, timeoutMs });
    } catch (err) {
      throw unreachable(origin, err);
    }
    let json: unknown;
    if (res.text.length > 0) {
      try {
        json = JSON.parse(res.text);
      } catch {
        json = undefined;
      }
    }
    return { status: res.status, headers: res.headers, json, text: res.text };
  }

  function failure(res: RawResponse, path: string, opts: RequestOptions): ApiFailure | ConnectionFailure {
    const env = res.json as { error?: { code?: unknown; message?: unknown } } | undefined;
    const enveloped = typeof env?.error?.code === 'string';
    // The daemon answers every 3xx/4xx in its envelope (it never redirects): a bare 401 or 404 came
    // from some other server (a proxy, a wrong port), and "bad key" or "no such team" would mislead.
    if (!enveloped && res.status < 500) {
      return new ConnectionFailure(origin, `it answered HTTP ${res.status} without the svc API's error envelope: is this the svc daemon's URL?`, false);
    }
    const code = enveloped ? (env!.error!.code as string) : `HTTP_${res.status}`;
    const message =
      typeof env?.error?.message === 'string'
        ? env.error.message
        : `the server at the URL answered HTTP ${res.status} without the svc API's error envelope: a proxy whose daemon is down, or not the svc daemon's URL`;
    // The CLI asks only for routes the API has: a daemon that has no route for one is not at the
    // API's base URL (a reverse proxy's prefix left out, or one too many), which is no missing
    // automation or team. A path of the caller's own (`svc api`) may simply be wrong.
    if (res.status === 404 && enveloped && !opts.anyBody && message.startsWith('no route ')) {
      return new ConnectionFailure(origin, `a server answers there, but not the svc API (${message}): check the URL's path (http://HOST:PORT, or .../api/v1)`, false);
    }
    return new ApiFailure(res.status, code, message, Boolean(options.token), options.tokenFrom, path);
  }

  async function request<T>(method: HttpMethod, path: string, opts: RequestOptions = {}): Promise<ApiResult<T>> {
    const idempotent = opts.idempotent ?? IDEMPOTENT.has(method);
    const maxAttempts = idempotent ? tries : 1;
    let rateLimitRetried = false;
    let attempt = 0;
    for (;;) {
      attempt += 1;
      let res: RawResponse;
      try {
        res = await once(method, path, opts);
      } catch (err) {
        if (err instanceof ConnectionFailure && err.retryable && attempt < maxAttempts) {
          await sleep(backoffMs * 2 ** (attempt - 1));
          continue;
        }
        throw err;
      }
      if (res.status === 429 && !options.noWait && !rateLimitRetried) {
        const wait = rateLimitWaitMs(res.headers, now());
        if (wait !== undefined && wait <= maxWait) {
          rateLimitRetried = true;
          options.onRateLimitWait?.(wait);
          await sleep(wait);
          attempt -= 1; // the wait is not a failed attempt
          continue;
        }
      }
      if (res.status >= 500 && attempt < maxAttempts && !isFinalAnswer(res)) {
        await sleep(backoffMs * 2 ** (attempt - 1));
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        const err = failure(res, path, opts);
        if (err instanceof ApiFailure) err.waitedForRateLimit = rateLimitRetried;
        throw err;
      }
      // Some other web server at that URL: say so, rather than hand commands an answer they would
      // misread (or crash on). Any JSON, or plain text (/metrics), may answer `svc api`.
      const plainText = res.json === undefined && /^text\/plain\b/i.test(res.headers['content-type'] ?? '');
      const understood = opts.anyBody ? res.json !== undefined || plainText || res.text.length === 0 : isEnvelope(res.json);
      if (!understood) {
        throw new ConnectionFailure(origin, `it answered HTTP ${res.status} without the svc API's {"data": ...} body: is this the svc daemon's URL?`);
      }
      const envelope = (res.json ?? {}) as { data?: T; next_cursor?: unknown };
      const result: ApiResult<T> = { status: res.status, data: envelope.data as T, headers: res.headers, body: res.json };
      if (plainText) result.text = res.text;
      if (typeof envelope.next_cursor === 'string' && envelope.next_cursor) result.next_cursor = envelope.next_cursor;
      return result;
    }
  }

  return {
    baseUrl,
    request,
    async get<T>(path: string, query?: Query) {
      return (await request<T>('GET', path, { query })).data;
    },
    async list<T>(path: string, query?: Query) {
      const r = await request<T[]>('GET', path, { query });
      return r.next_cursor ? { data: r.data, next_cursor: r.next_cursor } : { data: r.data };
    },
    async listAll<T>(path: string, query?: Query) {
      const out: T[] = [];
      let cursor: string | undefined;
      do {
        const r = await request<T[]>('GET', path, { query: { ...query, cursor } });
        out.push(...(r.data ?? []));
        cursor = r.next_cursor;
      } while (cursor);
      return out;
    },
    async post<T>(path: string, body?: unknown, query?: Query) {
      return (await request<T>('POST', path, { body, query })).data;
    },
    async put<T>(path: string, body?: unknown, query?: Query) {
      return (await request<T>('PUT', path, { body, query })).data;
    },
    async patch<T>(path: string, body?: unknown, query?: Query) {
      return (await request<T>('PATCH', path, { body, query })).data;
    },
    async delete<T>(path: string, query?: Query) {
      return (await request<T>('DELETE', path, { query })).data;
    },
    async deliver(target, headers, body) {
      const url = /^https?:\/\//i.test(target) ? new URL(target) : new URL(`${baseUrl}${apiPath`/hooks/${target}`}`);
      const sent: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...headers };
      if (options.userAgent) sent['user-agent'] ??= options.userAgent;
      let res: TransportAnswer;
      try {
        res = await transport.send({ origin: url.origin, path: `${url.pathname}${url.search}`, method: 'POST', headers: sent, body, timeoutMs });
      } catch (err) {
        // A delivery is one attempt: never retried, whatever the failure.
        throw new ConnectionFailure(url.origin, describeTransportError(err, startCommand).reason, false);
      }
      const text = res.text;
      let parsed: unknown = text;
      try {
        parsed = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        // kept as text: the answer of something that is not the daemon, shown as it came
      }
      const answer: HookAnswer = { url: url.href, status: res.status, headers: res.headers, body: parsed };
      const env = parsed as { data?: unknown; error?: { code?: unknown; message?: unknown } } | undefined;
      if (res.status >= 200 && res.status < 300 && isEnvelope(parsed)) answer.data = env!.data as HookAnswer['data'];
      if (typeof env?.error?.code === 'string') {
        answer.error = { code: env.error.code, message: typeof env.error.message === 'string' ? env.error.message : '' };
      }
      return answer;
    },
    async close() {
      transport.close();
    },
  };
}

/** One page of a list, as `list` gives it, or every page. */
export interface PageQuery {
  limit?: number;
  cursor?: string;
}

/**
 * The connection routes of one team (CONTRACT §12), typed from shared/schemas/connections.ts.
 * Creating and rotating are never retried: a second attempt would make a second secret, and the
 * first, which the answer shows once, would be lost.
 */
export function connectionsClient(client: ApiClient, team: string) {
  const base = apiPath`/teams/${team}/connections`;
  const one = (id: string) => `${base}${apiPath`/${id}`}`;
  return {
    create: (input: CreateConnectionInput) => client.post<ConnectionWithSecretDto>(base, input),
    list: (query: PageQuery = {}) => client.list<ConnectionDto>(base, { ...query }),
    listAll: (query: Pick<PageQuery, 'limit'> = {}) => client.listAll<ConnectionDto>(base, { ...query }),
    get: (id: string) => client.get<ConnectionDto>(one(id)),
    rotateSecret: (id: string, input: RotateSecretInput = {}) => client.post<ConnectionWithSecretDto>(`${one(id)}/secret`, input),
    delete: (id: string) => client.delete<{ success: true }>(one(id)),
    deliveries: (id: string, query: PageQuery = {}) => client.list<DeliveryDto>(`${one(id)}/deliveries`, { ...query }),
    allDeliveries: (id: string, query: Pick<PageQuery, 'limit'> = {}) => client.listAll<DeliveryDto>(`${one(id)}/deliveries`, { ...query }),
    /** `POST /teams/{slug}/events/{eventId}/replay`: the stored event again, as a new event `{id}:replay:{n}` */
    replayEvent: (eventId: string, options: { dryRun?: boolean } = {}) =>
      client.post<EventResultDto>(apiPath`/teams/${team}/events/${eventId}/replay`, undefined, options.dryRun ? { dry_run: 'true' } : undefined),
    /** a delivery to this daemon's hook route of the connection (see ApiClient.deliver) */
    deliver: (connectionId: string, headers: Record<string, string>, body: string) => client.deliver(connectionId, headers, body),
  };
}

export type ConnectionsClient = ReturnType<typeof connectionsClient>;
