// Robustness: inputs found by black-box fuzzing that hung the daemon or were answered outside
// the error envelope. Each test talks to a real daemon over HTTP (raw sockets where fetch would
// refuse to send the request).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let d: TestDaemon;
let api: Requester;
let key: string;
beforeAll(async () => {
  d = await startTestDaemon();
  ({ api, key } = await createTeam(d, 'acme'));
});
afterAll(() => d.destroy());

/** Sends raw bytes and resolves with everything the daemon wrote before closing (or the timeout). */
function rawRequest(bytes: string, timeoutMs = 5000): Promise<string> {
  const { hostname, port } = new URL(d.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let out = '';
    socket.on('data', (chunk) => (out += chunk.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', () => resolve(out));
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(out);
    });
    socket.write(bytes);
  });
}

function parseRaw(out: string): { status: number; body: any } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(out)?.[1]);
  const text = out.slice(out.indexOf('\r\n\r\n') + 4);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text: the assertion shows it
  }
  return { status, body };
}

const expectEnvelope = (body: any, code: string) => {
  expect(body).toEqual({ error: { code, message: expect.any(String) } });
};

describe('requests Node rejects before routing', () => {
  const prefix = () => new URL(d.url).pathname;

  it('answers headers over the size limit with 431 in the error envelope', async () => {
    const out = await rawRequest(`GET ${prefix()}/teams/acme/automations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Big: ${'a'.repeat(20000)}\r\n\r\n`);
    const res = parseRaw(out);
    expect(res.status).toBe(431);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it('takes a request target in absolute form, as RFC 9112 requires of a server (a proxy sends it)', async () => {
    const origin = new URL(d.url).origin;
    // (Connection: close, so the answer ends the connection rather than the read's timeout)
    const health = parseRaw(await rawRequest(`GET ${origin}${prefix()}/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    expect([health.status, health.body.data?.status]).toEqual([200, 'ok']);
    const listed = parseRaw(await rawRequest(`GET ${origin}${prefix()}/teams/acme/automations?limit=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\n\r\n`));
    expect([listed.status, Array.isArray(listed.body.data)]).toEqual([200, true]);
  });

  it('answers a very long query string with 431 in the error envelope', async () => {
    const res = await api('GET', `/teams/acme/automations?x=${'a'.repeat(100_000)}`);
    expect(res.status).toBe(431);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it.each([
    ['a malformed request line', () => 'GARBAGE\r\n\r\n'],
    ['a bad chunk size', () => `POST ${prefix()}/teams/acme/webhooks/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`],
    ['both Content-Length and Transfer-Encoding', () => `POST ${prefix()}/teams/acme/webhooks/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`],
    ['a NUL byte in a header', () => `GET ${prefix()}/health HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n`],
  ])('answers %s with 400 in the error envelope', async (_name, request) => {
    const res = parseRaw(await rawRequest(request()));
    expect(res.status).toBe(400);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it('answers an Expect other than 100-continue with 417 in the error envelope', async () => {
    const res = parseRaw(
      await rawRequest(`POST ${prefix()}/teams/acme/webhooks/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}`),
    );
    expect(res.status).toBe(417);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
  });

  it('answers an HTTP/1.1 request without a Host header with 400 in the error envelope, and HTTP/1.0 without one normally', async () => {
    const res = parseRaw(await rawRequest(`GET ${prefix()}/teams/acme/automations HTTP/1.1\r\nAuthorization: Bearer ${key}\r\n\r\n`));
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/Host header/);
    expectEnvelope(res.body, 'VALIDATION_ERROR');
    const old = parseRaw(await rawRequest(`GET ${prefix()}/teams/acme/automations HTTP/1.0\r\nAuthorization: Bearer ${key}\r\n\r\n`));
    expect(old.status).toBe(200);
  });

  it('answers CONNECT (a proxy tunnel request) with 404 in the envelope instead of dropping the connection', async () => {
    const res = parseRaw(await rawRequest(`CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`));
    expect(res.status).toBe(404);
    expectEnvelope(res.body, 'NOT_FOUND');
  });

  it('keeps serving afterwards', async () => {
    expect((await api('GET', '/health')).status).toBe(200);
  });
});

describe('event filters whose JSONPath would take unbounded work', () => {
  // Each `..` multiplies the nodes visited by the depth of the payload: eight of them over a
  // 550 KB payload ten levels deep blocked the event loop for minutes and grew the heap by GBs.
  function deep(level: number): unknown {
    return level === 0 ? Array.from({ length: 5 }, (_, i) => `x${i}`) : Array.from({ length: 3 }, () => deep(level - 1));
  }
  const data = { a: deep(9) };

  beforeAll(async () => {
    for (const [i, jsonPath] of ['$..*..*..*..*..*..*..*..*', '$..[?@..[?@..[?@..*]]]', `$${'[*,*,*,*,*,*,*,*]'.repeat(20)}`].entries()) {
      const res = await api('POST', '/teams/acme/automations', {
        name: `heavy ${i}`,
        prompt: 'p',
        triggers: [{ kind: 'event', event_type: 'heavy', filters: [{ jsonPath, operator: 'equals', value: 'nope' }] }],
      });
      expect(res.status).toBe(201);
    }
    const light = await api('POST', '/teams/acme/automations', {
      name: 'light',
      prompt: 'p',
      triggers: [{ kind: 'event', event_type: 'heavy', filters: [{ jsonPath: '$.data.a[0][0][0][0][0][0][0][0][0][*]', operator: 'equals', value: 'x3' }] }],
    });
    expect(light.status).toBe(201);
  });

  it.each([['?dry_run=true'], ['']])('answers an event%s in bounded time, failing only those filters', async (query) => {
    const started = Date.now();
    const res = await api('POST', `/teams/acme/webhooks/events${query}`, { event_type: 'heavy', data });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.status).toBe(200);
    expect(res.body.data.dispatched).toHaveLength(1);
    expect(res.body.data.reason).toContain('1 automation');
    expect((await api('GET', '/health')).status).toBe(200);
  }, 30_000);

  it('explains the refused filter in a dry run', async () => {
    const res = await api('POST', '/teams/acme/webhooks/events?dry_run=true', { event_type: 'heavy', data });
    const heavy = res.body.data.matches.find((m: any) => m.name === 'heavy 0');
    expect(heavy.matched).toBe(false);
    expect(heavy.failed).toMatch(/more than [\d,]+ nodes/);
  }, 30_000);
});
