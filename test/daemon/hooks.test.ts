// Provider deliveries over HTTP (CONTRACT §12): `POST /hooks/{connectionId}` for every provider,
// signed by the providers' own libraries or HMACs written from their documentation (never the
// daemon's code), on a real daemon whose clock the tests move; the deliveries log; the limits;
// the service-managed GitHub route; and a pull request filtered by its base branch, end to end.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectionProvider } from '../../shared/schemas/connections.js';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { deliveryOf, githubExample, PROVIDER_CASES, SIGNATURE_HEADER, signDelivery, type Delivery, type ProviderCase } from '../helpers/provider-deliveries.js';

const GITHUB_APP_SECRET = 'github-app-webhook-secret-for-tests';
const DAY_MS = 24 * 60 * 60 * 1000;

let d: TestDaemon;
let api: Requester;
/** the daemon's clock: real time, moved on by the tests that need a day to pass */
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

beforeAll(async () => {
  d = await startTestDaemon({ now, githubWebhookSecret: GITHUB_APP_SECRET });
  ({ api } = await createTeam(d, 'acme'));
});
afterAll(() => d.destroy());

interface Connection {
  id: string;
  secret: string;
  webhook_url: string;
}

async function connect(provider: ConnectionProvider, extra: Record<string, unknown> = {}): Promise<Connection> {
  const res = await api('POST', '/teams/acme/connections', { provider, name: `${provider} ${randomUUID()}`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** An automation listening to `eventType` from the connection; returns its id. */
async function listen(provider: ConnectionProvider, connectionId: string, eventType: string, filters: unknown[] = []): Promise<string> {
  const res = await api('POST', '/teams/acme/automations', {
    name: `on ${eventType} ${randomUUID()}`,
    prompt: 'Look at it',
    triggers: [{ kind: 'event', provider, event_type: eventType, connection_id: connectionId, filters }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.id;
}

const runsOf = async (automationId: string): Promise<number> => (await api('GET', `/teams/acme/automations/${automationId}`)).body.data.total_runs;

/** Posts a delivery to a connection's hook, as the provider would: no bearer key. */
const deliver = (connectionId: string, delivery: Delivery) => d.as(null)('POST', `/hooks/${connectionId}`, undefined, { headers: delivery.headers, raw: delivery.body });

const deliveriesOf = async (connectionId: string) => (await api('GET', `/teams/acme/connections/${connectionId}/deliveries`)).body.data as Record<string, unknown>[];

describe.each(PROVIDER_CASES)('deliveries from $provider', (c: ProviderCase) => {
  let conn: Connection;
  let automation: string;
  const fresh = (secret = conn.secret) => deliveryOf(c, secret, { now: now(), deliveryId: randomUUID() });

  beforeAll(async () => {
    conn = await connect(c.provider);
    automation = await listen(c.provider, conn.id, c.eventType);
  });

  it('starts a session for a delivery signed with the secret, as an event of the provider and connection', async () => {
    const delivery = await fresh();
    const res = await deliver(conn.id, delivery);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.accepted).toBe(true);
    expect(res.body.data.dispatched.map((x: { automationId: string }) => x.automationId)).toEqual([automation]);
    const [event] = (await api('GET', `/teams/acme/events?event_type=${encodeURIComponent(c.eventType)}`)).body.data.filter((e: { connection_id: string }) => e.connection_id === conn.id);
    expect(event).toMatchObject({ provider: c.provider, connection_id: conn.id, source: c.provider, subject: c.subject, data: JSON.parse(delivery.body) });
    // The delivery's headers are kept; the signature (or GitLab's token, the secret itself) is not.
    expect(JSON.stringify(event.metadata)).not.toContain(delivery.headers[SIGNATURE_HEADER[c.provider]]!);
    expect(JSON.stringify(event.metadata)).not.toContain(conn.secret);
    const [logged] = await deliveriesOf(conn.id);
    expect(logged).toMatchObject({ connection_id: conn.id, status: 'accepted', event_type: c.eventType, event_id: event.id });
  });

  it('starts nothing new for a redelivery of the same id, and logs it as a duplicate', async () => {
    const delivery = await fresh();
    expect((await deliver(conn.id, delivery)).status).toBe(200);
    const before = await runsOf(automation);
    const again = await deliver(conn.id, delivery);
    expect(again.status).toBe(200);
    expect(await runsOf(automation)).toBe(before);
    expect((await deliveriesOf(conn.id))[0]).toMatchObject({ status: 'duplicate' });
  });

  const bodyChanges: [string, (delivery: Delivery) => Delivery][] = [
    ['a body changed by one byte', (x) => ({ ...x, body: x.body.replace('{', '{ ') })],
    ['the body re-serialised (spaces removed)', (x) => ({ ...x, body: JSON.stringify(JSON.parse(x.body)) })],
  ];
  const refusals: [string, (delivery: Delivery) => Delivery][] = [
    ['a wrong signature', (x) => ({ ...x, headers: { ...x.headers, [SIGNATURE_HEADER[c.provider]]: flipLast(x.headers[SIGNATURE_HEADER[c.provider]]!) } })],
    ['no signature header', (x) => ({ ...x, headers: without(x.headers, SIGNATURE_HEADER[c.provider]) })],
    ...(c.signsBody ? bodyChanges : []),
  ];
  it.each(refusals)('refuses %s with 401, starts nothing, and logs the delivery as rejected with a reason', async (_what, spoil) => {
    const before = await runsOf(automation);
    const res = await deliver(conn.id, spoil(await fresh()));
    expect(res.status, JSON.stringify(res.body)).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.body.error.message).not.toContain(conn.secret);
    expect(await runsOf(automation)).toBe(before);
    const [logged] = await deliveriesOf(conn.id);
    expect(logged).toMatchObject({ status: 'rejected', event_id: null });
    expect(logged!.reason).toBe(res.body.error.message);
  });

  // GitLab sends its secret token as it is and signs no bytes: a changed body cannot be told apart (docs/providers.md).
  if (!c.signsBody) it.each(bodyChanges)('takes %s, as the scheme signs no body', async (_what, change) => {
    expect((await deliver(conn.id, change(await fresh()))).status).toBe(200);
  });

  if (c.timestamped) it('refuses a delivery signed 10 minutes ago (a stale timestamp) with 401', async () => {
    const stale = await deliveryOf(c, conn.secret, { now: new Date(now().getTime() - 10 * 60_000), deliveryId: randomUUID() });
    const res = await deliver(conn.id, stale);
    expect(res.status, JSON.stringify(res.body)).toBe(401);
    expect((await deliveriesOf(conn.id))[0]).toMatchObject({ status: 'rejected' });
  });

  it('verifies with the replaced secret for 24 hours after a rotation with previous: keep, then not; the new one throughout', async () => {
    const rotated = (await api('POST', `/teams/acme/connections/${conn.id}/secret`, { previous: 'keep' })).body.data;
    const old = conn.secret;
    conn.secret = rotated.secret;
    expect((await deliver(conn.id, await fresh(old))).status).toBe(200);
    expect((await deliver(conn.id, await fresh())).status).toBe(200);
    offsetMs += DAY_MS + 60_000;
    const late = await deliver(conn.id, await fresh(old));
    expect(late.status).toBe(401);
    expect((await deliveriesOf(conn.id))[0]).toMatchObject({ status: 'rejected' });
    expect((await deliver(conn.id, await fresh())).status).toBe(200);
  });

  it('stops verifying with the replaced secret at once after a rotation with previous: revoke', async () => {
    const rotated = (await api('POST', `/teams/acme/connections/${conn.id}/secret`, { previous: 'revoke' })).body.data;
    const old = conn.secret;
    conn.secret = rotated.secret;
    expect((await deliver(conn.id, await fresh(old))).status).toBe(401);
    expect((await deliver(conn.id, await fresh())).status).toBe(200);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 5 MiB, signed or not', async () => {
    const delivery = await fresh();
    const body = delivery.body.replace(/}\s*$/, `, "pad": "${'x'.repeat(5 * 1024 * 1024)}"}`);
    const res = await deliver(conn.id, { body, headers: await signDelivery(c.provider, conn.secret, body, { now: now(), deliveryId: randomUUID(), eventType: c.eventType }) });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: 'request body is larger than 5 MiB' });
  });

  it('answers 404 NOT_FOUND for an unknown connection, and for a deleted one, and logs nothing there', async () => {
    const doomed = await connect(c.provider);
    const delivery = await fresh(doomed.secret);
    expect((await deliver(randomUUID(), delivery)).status).toBe(404);
    expect((await deliver('not-a-uuid', delivery)).status).toBe(404);
    expect((await api('DELETE', `/teams/acme/connections/${doomed.id}`)).status).toBe(200);
    const res = await deliver(doomed.id, delivery);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('refuses a signed body nested 10,000 levels deep with 400, as any body, and takes the next delivery', async () => {
    const body = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const deep = `{"type":"x","object_kind":"x","event":{"type":"x"},"action":"x","id":"x","pad":${body}}`;
    const headers = await signDelivery(c.provider, conn.secret, deep, { now: now(), deliveryId: randomUUID(), eventType: c.eventType });
    const res = await deliver(conn.id, { headers, body: deep });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.message).toContain('levels deep');
    expect((await deliver(conn.id, await fresh())).status).toBe(200);
  });

  it('refuses a signed body that is not JSON with 400', async () => {
    const body = 'not json at all';
    const headers = await signDelivery(c.provider, conn.secret, body, { now: now(), deliveryId: randomUUID(), eventType: c.eventType });
    const res = await deliver(conn.id, { headers, body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('the limits of every hook', () => {
  const c = PROVIDER_CASES[0]!;

  it('takes a body of exactly 5 MiB', async () => {
    const conn = await connect('vercel');
    const shell = JSON.stringify({ id: randomUUID(), type: 'deployment.succeeded', payload: { pad: '' } });
    const body = shell.replace('"pad":""', `"pad":"${'x'.repeat(5 * 1024 * 1024 - shell.length)}"`);
    const headers = await signDelivery('vercel', conn.secret, body, { now: now(), deliveryId: randomUUID(), eventType: 'deployment.succeeded' });
    const res = await deliver(conn.id, { body, headers });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  });

  it('limits deliveries per connection (--delivery-rate-limit) with the usual 429, another connection unaffected', async () => {
    const limited = await startTestDaemon({ now, deliveryRateLimit: 3 });
    try {
      const team = await createTeam(limited, 'acme');
      const open = async () => (await team.api('POST', '/teams/acme/connections', { provider: 'github', name: randomUUID() })).body.data as Connection;
      const [busy, calm] = [await open(), await open()];
      const send = async (conn: Connection) => {
        const x = await deliveryOf(c, conn.secret, { now: now(), deliveryId: randomUUID() });
        return limited.as(null)('POST', `/hooks/${conn.id}`, undefined, { headers: x.headers, raw: x.body });
      };
      // The window is the clock's minute: start the count at its beginning, so it cannot roll over mid-test.
      offsetMs += 60_000 - (now().getTime() % 60_000) + 100;
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await send(busy)).status);
      const over = await send(busy);
      expect(statuses).toEqual([200, 200, 200]);
      expect(over.status).toBe(429);
      expect(over.body.error.code).toBe('RATE_LIMITED');
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await send(calm)).status).toBe(200);
    } finally {
      await limited.destroy();
    }
  });

  it("answers Slack's url_verification with its challenge and dispatches nothing", async () => {
    const conn = await connect('slack');
    const body = JSON.stringify({ token: 'legacy', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' });
    const headers = await signDelivery('slack', conn.secret, body, { now: now(), deliveryId: randomUUID(), eventType: 'url_verification' });
    const res = await deliver(conn.id, { headers, body });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    expect((await api('GET', '/teams/acme/events?event_type=url_verification')).body.data).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('lists both hook routes as taking no key, with the delivery as their body', async () => {
    const doc = (await d.as(null)('GET', '/openapi.json')).body;
    for (const path of ['/hooks/{connectionId}', '/hooks/github']) {
      const op = doc.paths[path].post;
      expect(op.security).toEqual([]);
      expect(op.requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { type: 'object' } } } });
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200']));
    }
  });
});

describe('secrets in the log', () => {
  it('appear in no log line of the daemon, at debug level, whatever is delivered', async () => {
    const lines: string[] = [];
    const logged = await startTestDaemon({ now, logLevel: 'debug', logStream: { write: (line) => void lines.push(line) } });
    try {
      const team = await createTeam(logged, 'acme');
      const made = await team.api('POST', '/teams/acme/connections', { provider: 'gitlab', name: 'gl' });
      const conn = made.body.data as Connection;
      const rotated = (await team.api('POST', `/teams/acme/connections/${conn.id}/secret`, {})).body.data as Connection;
      const c = PROVIDER_CASES.find((x) => x.provider === 'gitlab')!;
      for (const secret of [conn.secret, rotated.secret, 'a-wrong-token-entirely']) {
        const x = await deliveryOf(c, secret, { now: now(), deliveryId: randomUUID() });
        await logged.as(null)('POST', `/hooks/${conn.id}`, undefined, { headers: x.headers, raw: x.body });
      }
      expect(lines.length).toBeGreaterThan(5);
      // GitLab's token header is the secret itself: the one most likely to leak
      for (const secret of [conn.secret, rotated.secret, 'a-wrong-token-entirely']) expect(lines.join('\n')).not.toContain(secret);
    } finally {
      await logged.destroy();
    }
  });
});

describe('the service-managed GitHub route (POST /hooks/github)', () => {
  const c = PROVIDER_CASES[0]!;
  const appDelivery = async (installationId: number, secret = GITHUB_APP_SECRET) => {
    const payload = { ...githubExample('pull_request', 'opened'), installation: { id: installationId } };
    const body = JSON.stringify(payload);
    return { body, headers: await signDelivery('github', secret, body, { now: now(), deliveryId: randomUUID(), eventType: c.eventType }) };
  };
  const post = (x: Delivery) => d.as(null)('POST', '/hooks/github', undefined, { headers: x.headers, raw: x.body });

  it("routes a delivery signed with the App's secret to the connection whose external_id is its installation", async () => {
    const installation = 90_000 + Math.floor(Math.random() * 10_000);
    const conn = await connect('github', { external_id: String(installation) });
    const automation = await listen('github', conn.id, c.eventType);
    const res = await post(await appDelivery(installation));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.dispatched.map((x: { automationId: string }) => x.automationId)).toEqual([automation]);
    expect((await deliveriesOf(conn.id))[0]).toMatchObject({ status: 'accepted' });
  });

  it('answers 404 for an installation no connection has, and 401 for a wrong signature', async () => {
    expect((await post(await appDelivery(1))).status).toBe(404);
    expect((await post(await appDelivery(1, 'another secret entirely'))).status).toBe(401);
  });

  it('is closed on a daemon without SVC_GITHUB_WEBHOOK_SECRET', async () => {
    const plain = await startTestDaemon();
    try {
      const res = await plain.as(null)('POST', '/hooks/github', undefined, { headers: { 'content-type': 'application/json' }, raw: '{}' });
      expect(res.status).toBe(404);
      expect(res.body.error.message).toContain('SVC_GITHUB_WEBHOOK_SECRET');
    } finally {
      await plain.destroy();
    }
  });
});

describe('end to end: a pull request filtered by its base branch', () => {
  it("starts a session for a pull request into main, and none for one into another branch", async () => {
    const conn = await connect('github');
    const automation = await listen('github', conn.id, 'pull_request.opened', [{ jsonPath: '$.data.pull_request.base.ref', operator: 'equals', value: 'main' }]);
    const pullRequest = async (base: string) => {
      const payload = githubExample('pull_request', 'opened') as { pull_request: { base: { ref: string } } };
      payload.pull_request.base.ref = base;
      const body = JSON.stringify(payload, null, 2);
      return deliver(conn.id, { body, headers: await signDelivery('github', conn.secret, body, { now: now(), deliveryId: randomUUID(), eventType: 'pull_request.opened' }) });
    };
    const intoMain = await pullRequest('main');
    expect(intoMain.body.data).toMatchObject({ accepted: true });
    expect(await runsOf(automation)).toBe(1);
    const intoFeature = await pullRequest('feature/x');
    expect(intoFeature.status).toBe(200);
    expect(intoFeature.body.data).toMatchObject({ accepted: false, dispatched: [] });
    expect(intoFeature.body.data.reason).toContain('base.ref');
    expect(await runsOf(automation)).toBe(1);
  });
});

function flipLast(value: string): string {
  const last = value.at(-1)!;
  return value.slice(0, -1) + (last === 'a' ? 'b' : 'a');
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _dropped, ...rest } = headers;
  return rest;
}
