// The API client against a scripted local HTTP server: envelope handling, pagination, the 429
// wait-and-retry-once rule and retries of idempotent requests. Sleeps are recorded, not slept.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApiFailure, ConnectionFailure, apiPath, createClient, normalizeBaseUrl, rateLimitWaitMs } from '../../shared/client.js';

interface Seen {
  method: string;
  url: string;
  auth?: string;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => void;

let server: Server;
let base: string;
let seen: Seen[];
let handler: Handler;

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body === undefined ? '' : JSON.stringify(body));
}

beforeEach(async () => {
  seen = [];
  handler = (_req, res) => json(res, 200, { data: null });
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      handler(req, res, seen);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function client(extra: Partial<Parameters<typeof createClient>[0]> = {}) {
  const sleeps: number[] = [];
  const c = createClient({ baseUrl: base, token: 'svc_team_test', sleep: async (ms) => void sleeps.push(ms), ...extra });
  return { c, sleeps };
}

describe('normalizeBaseUrl', () => {
  it('adds /api/v1 when missing and drops trailing slashes', () => {
    expect(normalizeBaseUrl('http://h:1')).toBe('http://h:1/api/v1');
    expect(normalizeBaseUrl('http://h:1/')).toBe('http://h:1/api/v1');
    expect(normalizeBaseUrl('http://h:1/api/v1/')).toBe('http://h:1/api/v1');
    expect(normalizeBaseUrl(' https://x.example/svc/api/v1 ')).toBe('https://x.example/svc/api/v1');
    expect(normalizeBaseUrl('https://x.example/svc')).toBe('https://x.example/svc/api/v1');
  });

  it('rejects what is not an http(s) URL', () => {
    expect(() => normalizeBaseUrl('ftp://h')).toThrow(TypeError);
    expect(() => normalizeBaseUrl('not a url')).toThrow(TypeError);
  });
});

describe('apiPath', () => {
  it('encodes each interpolated value as one path segment', () => {
    expect(apiPath`/teams/${'a b'}/env-vars/${'X/Y'}`).toBe('/teams/a%20b/env-vars/X%2FY');
  });
});

describe('rateLimitWaitMs', () => {
  it('prefers X-RateLimit-Reset (Unix seconds) and falls back to Retry-After', () => {
    expect(rateLimitWaitMs({ 'x-ratelimit-reset': '100' }, 98_000)).toBe(2_100);
    expect(rateLimitWaitMs({ 'retry-after': '3' }, 0)).toBe(3_000);
    expect(rateLimitWaitMs({}, 0)).toBeUndefined();
  });
});

describe('createClient', () => {
  it('sends the bearer key and a JSON body, and returns data', async () => {
    handler = (_req, res) => json(res, 201, { data: { id: 'a1' } });
    const { c } = client();
    const data = await c.post('/teams/acme/automations', { name: 'n' }, { dry_run: true });
    expect(data).toEqual({ id: 'a1' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/api/v1/teams/acme/automations?dry_run=true', auth: 'Bearer svc_team_test', body: '{"name":"n"}' });
  });

  it('returns next_cursor beside data and follows it in listAll', async () => {
    handler = (req, res) => {
      const cursor = new URL(req.url!, base).searchParams.get('cursor');
      if (!cursor) json(res, 200, { data: [1, 2], next_cursor: 'c2' });
      else json(res, 200, { data: [3] });
    };
    const { c } = client();
    expect(await c.list('/things', { limit: 2 })).toEqual({ data: [1, 2], next_cursor: 'c2' });
    expect(await c.listAll('/things', { limit: 2 })).toEqual([1, 2, 3]);
    expect(seen.map((s) => s.url)).toEqual(['/api/v1/things?limit=2', '/api/v1/things?limit=2', '/api/v1/things?limit=2&cursor=c2']);
  });

  it('throws ApiFailure with the status, code and message of the error envelope', async () => {
    handler = (_req, res) => json(res, 409, { error: { code: 'CONFLICT', message: 'slug taken' } });
    const { c } = client();
    const err = await c.post('/admin/teams', {}).catch((e) => e);
    expect(err).toBeInstanceOf(ApiFailure);
    expect(err).toMatchObject({ status: 409, code: 'CONFLICT', message: 'slug taken' });
  });

  it('gives a non-envelope 5xx an HTTP_<status> code', async () => {
    handler = (_req, res) => {
      res.writeHead(502);
      res.end('bad gateway');
    };
    const err = await client().c.post('/x').catch((e) => e);
    expect(err).toBeInstanceOf(ApiFailure);
    expect(err).toMatchObject({ status: 502, code: 'HTTP_502' });
    expect(err.message).toBe("the server at the URL answered HTTP 502 without the svc API's error envelope: a proxy whose daemon is down, or not the svc daemon's URL");
  });

  it('reads a 3xx or 4xx without the error envelope as some other server answering, not as the API refusing', async () => {
    for (const status of [301, 401, 404, 418, 429]) {
      handler = (_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html', 'retry-after': '1' });
        res.end('<html>nginx</html>');
      };
      const err = await client({ noWait: true }).c.get('/x').catch((e) => e);
      expect(err, String(status)).toBeInstanceOf(ConnectionFailure);
      expect(err.message).toContain(`it answered HTTP ${status} without the svc API's error envelope`);
    }
  });

  it('on 429 waits until X-RateLimit-Reset and retries once', async () => {
    handler = (_req, res, s) => {
      if (s.length === 1) json(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'x-ratelimit-reset': '1000', 'retry-after': '7' });
      else json(res, 200, { data: 'ok' });
    };
    const waits: number[] = [];
    const { c, sleeps } = client({ now: () => 998_000, onRateLimitWait: (ms) => waits.push(ms) });
    expect(await c.post('/events', {})).toBe('ok');
    expect(seen).toHaveLength(2);
    expect(sleeps).toEqual([2_100]);
    expect(waits).toEqual([2_100]);
  });

  it('on a second 429 gives up with RATE_LIMITED', async () => {
    handler = (_req, res) => json(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '1' });
    const { c } = client();
    const err = await c.get('/x').catch((e) => e);
    expect(err).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect(seen).toHaveLength(2);
  });

  it('with noWait fails on the first 429 without waiting', async () => {
    handler = (_req, res) => json(res, 429, { error: { code: 'RATE_LIMITED', message: 'slow down' } }, { 'retry-after': '1' });
    const { c, sleeps } = client({ noWait: true });
    const err = await c.get('/x').catch((e) => e);
    expect(err).toMatchObject({ status: 429 });
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('retries GET, PUT and DELETE on 5xx with doubling backoff, three tries in all', async () => {
    handler = (_req, res) => json(res, 503, { error: { code: 'INTERNAL_ERROR', message: 'down' } });
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      seen.length = 0;
      const { c, sleeps } = client();
      const err = await c.request(method, '/x').catch((e) => e);
      expect(err).toMatchObject({ status: 503 });
      expect(seen).toHaveLength(3);
      expect(sleeps).toEqual([250, 500]);
    }
  });

  it('does not retry POST or PATCH on 5xx (they may have taken effect)', async () => {
    handler = (_req, res) => json(res, 502, { error: { code: 'SESSION_START_FAILED', message: 'runner down' } });
    const { c } = client();
    expect(await c.post('/x').catch((e) => e)).toMatchObject({ status: 502, code: 'SESSION_START_FAILED' });
    expect(await c.patch('/x').catch((e) => e)).toMatchObject({ status: 502 });
    expect(seen).toHaveLength(2);
  });

  it("never retries a 502 that is the daemon's verdict, even on a request marked idempotent; a bare 502 is retried", async () => {
    for (const code of ['SESSION_START_FAILED', 'MESSAGE_PUBLISH_FAILED', 'SKILL_SOURCE_UNAVAILABLE']) {
      seen.length = 0;
      handler = (_req, res) => json(res, 502, { error: { code, message: 'refused' } });
      const { c, sleeps } = client();
      expect(await c.request('POST', '/events', { idempotent: true }).catch((e) => e)).toMatchObject({ status: 502, code });
      expect([code, seen.length, sleeps]).toEqual([code, 1, []]);
    }
    seen.length = 0;
    handler = (_req, res) => json(res, 502, undefined);
    await client().c.request('GET', '/x').catch(() => undefined);
    expect(seen).toHaveLength(3);
  });

  it('recovers when a retried GET succeeds', async () => {
    handler = (_req, res, s) => (s.length < 3 ? json(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'x' } }) : json(res, 200, { data: 7 }));
    expect(await client().c.get('/x')).toBe(7);
    expect(seen).toHaveLength(3);
  });

  it('gives up on a daemon that takes a request and never answers, once the timeout passes, without retrying', async () => {
    handler = () => undefined; // never answers
    const { c, sleeps } = client({ timeoutMs: 300 });
    const err = await c.get('/slow').catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionFailure);
    expect(err.message).toContain('no answer within 0.3 s');
    expect(seen).toHaveLength(1);
    expect(sleeps).toEqual([]);
    // an answer that stops half-way counts too
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"data": [');
    };
    const half = await client({ timeoutMs: 300 }).c.get('/half').catch((e) => e);
    expect(half).toBeInstanceOf(ConnectionFailure);
    expect(half.message).toContain('no answer within');
    server.closeAllConnections();
  });

  it('keeps one connection alive across requests', async () => {
    let connections = 0;
    server.on('connection', () => connections++);
    const { c } = client();
    for (let i = 0; i < 3; i++) await c.get('/x');
    await c.post('/y', { a: 1 });
    expect(seen.map((s) => s.method)).toEqual(['GET', 'GET', 'GET', 'POST']);
    expect(connections).toBe(1);
    await c.close();
  });

  it('reads an answer cut short as a reset connection, and retries only an idempotent request', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"data": [');
      setImmediate(() => res.destroy());
    };
    const { c, sleeps } = client();
    const get = await c.get('/cut').catch((e) => e);
    expect(get).toBeInstanceOf(ConnectionFailure);
    expect(get.message).toContain('connection reset');
    expect(sleeps).toEqual([250, 500]);
    seen = [];
    const post = await c.post('/cut', {}).catch((e) => e);
    expect(post).toBeInstanceOf(ConnectionFailure);
    expect(seen).toHaveLength(1);
  });

  it('refuses a header it cannot send before sending anything, without retrying', async () => {
    const { c, sleeps } = client();
    const err = await c.request('GET', '/x', { headers: { 'x-note': 'two\nlines' } }).catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionFailure);
    expect(err.message).toContain('the request could not be sent');
    expect(err.retryable).toBe(false);
    expect(seen).toEqual([]);
    expect(sleeps).toEqual([]);
  });

  it('decodes a UTF-8 answer whose characters span chunks', async () => {
    handler = (_req, res) => {
      const bytes = Buffer.from(JSON.stringify({ data: 'Straße ✓ 😀' }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes.length) });
      // split inside the emoji's four bytes
      res.write(bytes.subarray(0, bytes.length - 4));
      setTimeout(() => res.end(bytes.subarray(bytes.length - 4)), 20);
    };
    expect(await client().c.get('/utf8')).toBe('Straße ✓ 😀');
  });

  it('speaks TLS to an https URL, and says why a certificate is refused', async () => {
    const fixture = (name: string) => readFileSync(new URL(`../fixtures/tls/${name}`, import.meta.url));
    const tls = createTlsServer({ key: fixture('localhost.key'), cert: fixture('localhost.crt') }, (_req, res) => json(res, 200, { data: 1 }));
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    try {
      const c = createClient({ baseUrl: `https://localhost:${(tls.address() as AddressInfo).port}`, tries: 1 });
      const err = await c.get('/x').catch((e) => e);
      expect(err).toBeInstanceOf(ConnectionFailure);
      // the handshake happened: the test certificate signs itself, which no default trust accepts
      // (Node 26 adds a hint about --use-system-ca between the two)
      expect(err.message).toMatch(/: self-signed certificate.* \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/);
    } finally {
      tls.closeAllConnections();
      await new Promise((r) => tls.close(r));
    }
  });

  it('turns a refused connection into ConnectionFailure after retrying an idempotent request', async () => {
    const port = (server.address() as AddressInfo).port;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    const sleeps: number[] = [];
    const c = createClient({ baseUrl: `http://127.0.0.1:${port}`, sleep: async (ms) => void sleeps.push(ms) });
    const err = await c.get('/health').catch((e) => e);
    expect(err).toBeInstanceOf(ConnectionFailure);
    expect(err.message).toContain('connection refused');
    expect(sleeps).toEqual([250, 500]);
    server = createServer().listen(0); // for afterEach
  });
});
