// The webhook runner against a real local HTTP server: signature, accept/complete/refuse, the
// generated secret file, and what refusals do to starts and follow-ups.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFile, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTeam, makeDataDir, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

interface Delivery {
  raw: string;
  body: any;
  signature: string | undefined;
  contentType: string | undefined;
}

interface Answer {
  status: number;
  body?: string;
  /** answer this much later */
  delayMs?: number;
}

/** A runtime that records deliveries and answers what the test tells it to (per turn, if it likes). */
class FakeRuntime {
  readonly deliveries: Delivery[] = [];
  answer: Answer | ((turn: any) => Answer) = { status: 202 };
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer(async (req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const raw = Buffer.concat(chunks).toString('utf8');
      this.deliveries.push({
        raw,
        body: JSON.parse(raw),
        signature: req.headers['x-svc-signature'] as string | undefined,
        contentType: req.headers['content-type'],
      });
      const answer = typeof this.answer === 'function' ? this.answer(JSON.parse(raw)) : this.answer;
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body ?? '');
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/turns`;
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

function validSignature(secret: string, d: Delivery): boolean {
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(d.raw).digest('hex'));
  const got = Buffer.from(d.signature ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

const SECRET = 'test-runner-secret-0123456789';

describe('webhook runner', () => {
  const runtime = new FakeRuntime();
  let d: TestDaemon;
  let api: Requester;
  const sessions = '/teams/hooks/sessions';

  beforeAll(async () => {
    await runtime.start();
    d = await startTestDaemon({ runner: 'webhook', runnerUrl: runtime.url, runnerSecret: SECRET });
    ({ api } = await createTeam(d, 'hooks'));
  });
  afterAll(async () => {
    await d.destroy();
    await runtime.stop();
  });
  beforeEach(() => {
    runtime.answer = { status: 202 };
  });

  it('POSTs the turn as JSON signed with X-Svc-Signature: sha256=HMAC of the raw body', async () => {
    const before = runtime.deliveries.length;
    const res = await api('POST', sessions, { prompt: 'do the thing' });
    expect(res.status).toBe(201);
    const delivery = runtime.deliveries[before];
    expect(delivery.contentType).toBe('application/json');
    expect(delivery.signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(validSignature(SECRET, delivery)).toBe(true);
    expect(validSignature('another secret', delivery)).toBe(false);
    expect(Object.keys(delivery.body).sort()).toEqual(['event', 'message', 'prompt', 'session']);
    expect(delivery.body).toMatchObject({ prompt: 'do the thing', message: 'do the thing', event: null });
    expect(delivery.body.session.session_id).toBe(res.body.data.session_id);
  });

  it('leaves an accepted session running when the 2xx answer carries no message', async () => {
    const res = await api('POST', sessions, { prompt: 'long job' });
    expect(res.body.data.status).toBe('running');
    expect(res.body.data.started_at).not.toBeNull();
    const got = await api('GET', `${sessions}/${res.body.data.session_id}`);
    expect(got.body.data.status).toBe('running');
    expect(got.body.data.messages).toHaveLength(1);
  });

  it('completes the turn at once when the 2xx answer is {"message": "..."}', async () => {
    runtime.answer = { status: 200, body: JSON.stringify({ message: 'done already' }) };
    const res = await api('POST', sessions, { prompt: 'quick job' });
    expect(res.body.data.status).toBe('completed');
    const got = await api('GET', `${sessions}/${res.body.data.session_id}`);
    expect(got.body.data.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'quick job'],
      ['assistant', 'done already'],
    ]);
  });

  it('completes the turn saying the answer was not kept when a 2xx answer is over 1 MiB, rather than leave it running', async () => {
    runtime.answer = { status: 200, body: JSON.stringify({ message: 'y'.repeat(3_000_000) }) };
    const res = await api('POST', sessions, { prompt: 'huge answer' });
    expect(res.body.data.status).toBe('completed');
    const got = await api('GET', `${sessions}/${res.body.data.session_id}`);
    expect(got.body.data.messages.at(-1)).toMatchObject({ role: 'assistant', content: "[the runner webhook's answer was larger than 1048576 bytes; it was not kept]" });
  });

  it('answers 502 SESSION_START_FAILED when the webhook answers non-2xx, and keeps the session as failed', async () => {
    runtime.answer = { status: 503, body: '{"error":"overloaded"}' };
    const res = await api('POST', sessions, { prompt: 'refused job' });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('SESSION_START_FAILED');
    expect(res.body.error.message).toContain('HTTP 503');
    const failed = (await api('GET', `${sessions}?status=failed`)).body.data;
    expect(failed[0]).toMatchObject({ prompt: 'refused job', status: 'failed' });
    expect(failed[0].last_error).toContain('HTTP 503');
  });

  it('sends follow-ups to a running session as new turns', async () => {
    const s = (await api('POST', sessions, { prompt: 'first' })).body.data;
    const before = runtime.deliveries.length;
    const res = await api('POST', `${sessions}/${s.session_id}/messages`, { message: '  next step ' });
    expect(res.status).toBe(202);
    const delivery = runtime.deliveries[before];
    expect(validSignature(SECRET, delivery)).toBe(true);
    expect(delivery.body).toMatchObject({ prompt: 'first', message: 'next step' });
    expect((await api('GET', `${sessions}/${s.session_id}`)).body.data.status).toBe('running');
  });

  it('completes a running session when the webhook answers a follow-up with a message', async () => {
    const s = (await api('POST', sessions, { prompt: 'open-ended' })).body.data;
    expect(s.status).toBe('running');
    runtime.answer = { status: 200, body: JSON.stringify({ message: 'all done' }) };
    expect((await api('POST', `${sessions}/${s.session_id}/messages`, { message: 'wrap up' })).status).toBe(202);
    const got = (await api('GET', `${sessions}/${s.session_id}`)).body.data;
    expect(got.status).toBe('completed');
    expect(got.messages.map((m: any) => m.content)).toEqual(['open-ended', 'wrap up', 'all done']);
  });

  it('answers 502 MESSAGE_PUBLISH_FAILED when the webhook refuses a follow-up, leaving the session as it was', async () => {
    runtime.answer = { status: 200, body: JSON.stringify({ message: 'answer one' }) };
    const s = (await api('POST', sessions, { prompt: 'first' })).body.data;
    expect(s.status).toBe('completed');
    runtime.answer = { status: 500 };
    const res = await api('POST', `${sessions}/${s.session_id}/messages`, { message: 'refused follow-up' });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('MESSAGE_PUBLISH_FAILED');
    const got = (await api('GET', `${sessions}/${s.session_id}`)).body.data;
    expect(got.status).toBe('completed');
    expect(got.completed_at).toBe(s.completed_at);
    expect(got.messages.map((m: any) => m.content)).toEqual(['first', 'answer one']);
  });

  it('makes a completed session running again when the webhook accepts a follow-up without an answer', async () => {
    runtime.answer = { status: 200, body: JSON.stringify({ message: 'answer one' }) };
    const s = (await api('POST', sessions, { prompt: 'first' })).body.data;
    runtime.answer = { status: 202 };
    expect((await api('POST', `${sessions}/${s.session_id}/messages`, { message: 'more' })).status).toBe(202);
    const got = (await api('GET', `${sessions}/${s.session_id}`)).body.data;
    expect(got.status).toBe('running');
    expect(got.completed_at).toBeNull();
  });
});

describe('webhook runner: a follow-up refused while another turn of the session settles', () => {
  const runtime = new FakeRuntime();
  let d: TestDaemon;
  let api: Requester;
  const sessions = '/teams/races/sessions';
  // 'slow-refuse' is refused after a while; 'answer' is answered at once; anything else accepted.
  const byMessage = (turn: any): Answer =>
    turn.message === 'slow-refuse'
      ? { status: 500, delayMs: 600 }
      : turn.message === 'answer'
        ? { status: 200, body: JSON.stringify({ message: 'done' }) }
        : { status: 202 };

  beforeAll(async () => {
    await runtime.start();
    runtime.answer = byMessage;
    d = await startTestDaemon({ runner: 'webhook', runnerUrl: runtime.url, runnerSecret: SECRET });
    ({ api } = await createTeam(d, 'races'));
  });
  afterAll(async () => {
    await d.destroy();
    await runtime.stop();
  });

  const followUp = (id: string, message: string) => api('POST', `${sessions}/${id}/messages`, { message });
  const delivered = (message: string) =>
    new Promise<void>((resolve) => {
      const poll = () => (runtime.deliveries.some((x) => x.body.message === message) ? resolve() : setTimeout(poll, 5));
      poll();
    });

  it('keeps the session running for a turn the runtime accepted meanwhile, not as it was before', async () => {
    const s = (await api('POST', sessions, { prompt: 'answer' })).body.data;
    expect(s.status).toBe('completed');
    const refused = followUp(s.session_id, 'slow-refuse');
    await delivered('slow-refuse');
    expect((await followUp(s.session_id, 'keep going')).status).toBe(202);
    expect((await refused).status).toBe(502);
    const got = (await api('GET', `${sessions}/${s.session_id}`)).body.data;
    expect(got).toMatchObject({ status: 'running', completed_at: null });
    expect(got.messages.map((m: any) => m.content)).toEqual(['answer', 'done', 'keep going']);
  });

  it('completes the session when a turn answered meanwhile was its last, not leave it running', async () => {
    const s = (await api('POST', sessions, { prompt: 'open-ended' })).body.data;
    expect(s.status).toBe('running');
    const refused = followUp(s.session_id, 'slow-refuse');
    await delivered('slow-refuse');
    expect((await followUp(s.session_id, 'answer')).status).toBe(202);
    expect((await api('GET', `${sessions}/${s.session_id}`)).body.data.status).toBe('running'); // the refused turn is still out
    expect((await refused).status).toBe(502);
    const got = (await api('GET', `${sessions}/${s.session_id}`)).body.data;
    expect(got.status).toBe('completed');
    expect(got.completed_at).not.toBeNull();
    expect(got.messages.map((m: any) => m.content)).toEqual(['open-ended', 'answer', 'done']);
  });
});

describe('webhook runner without a reachable runtime or a configured secret', () => {
  it('answers 502 SESSION_START_FAILED when nothing listens at the URL', async () => {
    const gone = new FakeRuntime();
    await gone.start();
    await gone.stop();
    const d = await startTestDaemon({ runner: 'webhook', runnerUrl: gone.url });
    try {
      const { api } = await createTeam(d, 'nobody');
      const res = await api('POST', '/teams/nobody/sessions', { prompt: 'x' });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('SESSION_START_FAILED');
      expect(res.body.error.message).toContain('could not be reached');
      expect(res.body.error.message).not.toContain('127.0.0.1');
    } finally {
      await d.destroy();
    }
  });

  it('answers 502 SESSION_START_FAILED when the webhook does not answer within the runner timeout', async () => {
    const silent = createServer(() => undefined); // takes the request, never answers
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
    const d = await startTestDaemon({ runner: 'webhook', runnerUrl: url, runnerSecret: SECRET, runnerTimeoutMs: 300 });
    try {
      const { api } = await createTeam(d, 'silent');
      const res = await api('POST', '/teams/silent/sessions', { prompt: 'x' });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('SESSION_START_FAILED');
      expect(res.body.error.message).toContain('did not answer within 300 ms');
    } finally {
      await d.destroy();
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });

  it('refuses to start without --runner-url, or with a URL that is not http(s)', async () => {
    const dataDir = await makeDataDir();
    try {
      await expect(startTestDaemon({ dataDir, runner: 'webhook' })).rejects.toThrow(/--runner-url/);
      await expect(startTestDaemon({ dataDir, runner: 'webhook', runnerUrl: 'ftp://example.com/' })).rejects.toThrow(/http\(s\) URL/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('generates DIR/runner-secret (mode 0600) on first start, signs with it and reuses it after a restart', async () => {
    const runtime = new FakeRuntime();
    await runtime.start();
    let d = await startTestDaemon({ runner: 'webhook', runnerUrl: runtime.url });
    const dataDir = d.dataDir;
    try {
      const { api, key } = await createTeam(d, 'gen');
      expect((await api('POST', '/teams/gen/sessions', { prompt: 'x' })).status).toBe(201);
      const file = join(dataDir, 'runner-secret');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const secret = (await readFile(file, 'utf8')).trim();
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(validSignature(secret, runtime.deliveries[0])).toBe(true);

      await d.close();
      d = await startTestDaemon({ runner: 'webhook', runnerUrl: runtime.url, dataDir });
      expect((await d.as(key)('POST', '/teams/gen/sessions', { prompt: 'y' })).status).toBe(201);
      expect(validSignature(secret, runtime.deliveries[1])).toBe(true);
    } finally {
      await d.destroy();
      await runtime.stop();
    }
  });
});
