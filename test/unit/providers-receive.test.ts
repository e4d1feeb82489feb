// Every provider's scheme through receiveDelivery, table-driven: each delivery is signed here by
// an implementation independent of the daemon's (GitHub's and Standard Webhooks' own libraries,
// node:crypto HMACs written below), and the daemon must accept exactly the bytes that were signed.
import { createHmac, randomBytes } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryRequest } from '../../daemon/providers/delivery.js';
import { PROVIDER_SCHEMES, receiveDelivery } from '../../daemon/providers/receive.js';
import type { ConnectionProvider } from '../../shared/schemas/connections.js';

const NOW = new Date('2026-03-05T10:15:00.000Z');
const seconds = (at: Date) => String(Math.floor(at.getTime() / 1000));
const hmacHex = (algorithm: string, key: string, data: string) => createHmac(algorithm, key).update(data).digest('hex');

interface Case {
  provider: ConnectionProvider;
  secret: () => string;
  /** the body as the provider would build it at that time */
  body: (at: Date) => Record<string, unknown>;
  /** the provider's headers for that raw body, signed with that secret at that time */
  sign: (secret: string, raw: string, at: Date) => Promise<Record<string, string>> | Record<string, string>;
  signatureHeader: string;
  /** headers that carry a secret, a token or a signature: never metadata */
  secretHeaders: string[];
  expected: { event_type: string; id: string | null; subject: string | null; metadata: Record<string, string> };
  /** whether the signature covers the body (GitLab sends its token instead) */
  signsBody: boolean;
  /** how old a delivery may be, where the scheme has a timestamp */
  toleranceS?: number;
}

const rawSecret = () => randomBytes(32).toString('hex');

const CASES: Case[] = [
  {
    provider: 'github',
    secret: rawSecret,
    body: () => ({ action: 'opened', number: 1, repository: { full_name: 'acme/web', description: 'check' }, sender: { login: 'octocat' } }),
    sign: async (secret, raw) => ({
      'x-github-event': 'pull_request',
      'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      'x-github-hook-id': '292430182',
      'x-hub-signature-256': await githubSign(secret, raw),
      'user-agent': 'GitHub-Hookshot/044aadd',
      'content-type': 'application/json',
    }),
    signatureHeader: 'x-hub-signature-256',
    secretHeaders: ['x-hub-signature-256', 'x-hub-signature'],
    expected: {
      event_type: 'pull_request.opened',
      id: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
      subject: 'acme/web',
      metadata: { 'x-github-event': 'pull_request', 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'x-github-hook-id': '292430182', 'user-agent': 'GitHub-Hookshot/044aadd' },
    },
    signsBody: true,
  },
  {
    provider: 'gitlab',
    secret: rawSecret,
    body: () => ({ object_kind: 'merge_request', project: { path_with_namespace: 'mike/diaspora' }, object_attributes: { iid: 1, action: 'open', title: 'check' } }),
    sign: (secret) => ({ 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e', 'x-gitlab-token': secret, 'user-agent': 'GitLab/17.0.0' }),
    signatureHeader: 'x-gitlab-token',
    secretHeaders: ['x-gitlab-token'],
    expected: {
      event_type: 'merge_request.open',
      id: '13792a34-cac6-4fda-95a8-c58e00a3954e',
      subject: 'mike/diaspora',
      metadata: { 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': '13792a34-cac6-4fda-95a8-c58e00a3954e', 'user-agent': 'GitLab/17.0.0' },
    },
    signsBody: false,
  },
  {
    provider: 'linear',
    secret: rawSecret,
    body: (at) => ({ action: 'create', type: 'Issue', webhookTimestamp: at.getTime(), data: { identifier: 'ENG-123', title: 'check' } }),
    sign: (secret, raw) => ({ 'linear-delivery': 'd1f2e3a4-0000-4000-8000-000000000001', 'linear-event': 'Issue', 'linear-signature': hmacHex('sha256', secret, raw) }),
    signatureHeader: 'linear-signature',
    secretHeaders: ['linear-signature'],
    expected: { event_type: 'issue.create', id: 'd1f2e3a4-0000-4000-8000-000000000001', subject: 'ENG-123', metadata: { 'linear-delivery': 'd1f2e3a4-0000-4000-8000-000000000001', 'linear-event': 'Issue' } },
    signsBody: true,
    toleranceS: 60,
  },
  {
    provider: 'vercel',
    secret: rawSecret,
    body: () => ({ id: 'uwhk_42', type: 'deployment.succeeded', payload: { deployment: { name: 'acme-check' } } }),
    sign: (secret, raw) => ({ 'x-vercel-signature': hmacHex('sha1', secret, raw), 'user-agent': 'Vercel-Webhook' }),
    signatureHeader: 'x-vercel-signature',
    secretHeaders: ['x-vercel-signature'],
    expected: { event_type: 'deployment.succeeded', id: 'uwhk_42', subject: null, metadata: { 'user-agent': 'Vercel-Webhook' } },
    signsBody: true,
  },
  {
    provider: 'sentry',
    secret: rawSecret,
    body: () => ({ action: 'created', data: { issue: { id: '1170820242', culprit: 'check' } } }),
    sign: (secret, raw, at) => ({
      'sentry-hook-resource': 'issue',
      'sentry-hook-timestamp': seconds(at),
      'request-id': 'c2d1a3b4-1111-4222-8333-444455556666',
      'sentry-hook-signature': hmacHex('sha256', secret, raw),
    }),
    signatureHeader: 'sentry-hook-signature',
    secretHeaders: ['sentry-hook-signature'],
    expected: {
      event_type: 'issue.created',
      id: 'c2d1a3b4-1111-4222-8333-444455556666',
      subject: null,
      metadata: { 'sentry-hook-resource': 'issue', 'sentry-hook-timestamp': seconds(NOW), 'request-id': 'c2d1a3b4-1111-4222-8333-444455556666' },
    },
    signsBody: true,
  },
  {
    provider: 'slack',
    secret: rawSecret,
    body: () => ({ type: 'event_callback', event_id: 'Ev08MFMKH6', team_id: 'T0001', event: { type: 'app_mention', text: 'check' } }),
    sign: (secret, raw, at) => ({
      'x-slack-request-timestamp': seconds(at),
      'x-slack-signature': `v0=${hmacHex('sha256', secret, `v0:${seconds(at)}:${raw}`)}`,
    }),
    signatureHeader: 'x-slack-signature',
    secretHeaders: ['x-slack-signature'],
    expected: { event_type: 'app_mention', id: 'Ev08MFMKH6', subject: null, metadata: { 'x-slack-request-timestamp': seconds(NOW) } },
    signsBody: true,
    toleranceS: 300,
  },
  {
    provider: 'standard',
    secret: () => `whsec_${randomBytes(32).toString('base64')}`,
    body: () => ({ type: 'invoice.paid', timestamp: '2026-03-05T10:15:00Z', data: { id: 'inv_1', customer: 'check' } }),
    sign: (secret, raw, at) => ({
      'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      'webhook-timestamp': seconds(at),
      'webhook-signature': new Webhook(secret).sign('msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', at, raw),
    }),
    signatureHeader: 'webhook-signature',
    secretHeaders: ['webhook-signature'],
    expected: {
      event_type: 'invoice.paid',
      id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
      subject: null,
      metadata: { 'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', 'webhook-timestamp': seconds(NOW) },
    },
    signsBody: true,
    toleranceS: 300,
  },
];

/** A pretty-printed body, as many providers send, so re-serialising it changes its bytes. */
const pretty = (c: Case, at = NOW) => JSON.stringify(c.body(at), null, 2);

async function deliver(c: Case, opts: { secrets: string[]; signWith?: string; raw?: string; signedRaw?: string; at?: Date; drop?: string; headers?: Record<string, string> }) {
  const at = opts.at ?? NOW;
  const raw = opts.raw ?? pretty(c, at);
  const headers: Record<string, string> = { ...(await c.sign(opts.signWith ?? opts.secrets[0], opts.signedRaw ?? raw, at)), ...opts.headers };
  if (opts.drop) delete headers[opts.drop];
  const req: DeliveryRequest = { rawBody: Buffer.from(raw, 'utf8'), headers, secrets: opts.secrets, now: NOW };
  return { outcome: await receiveDelivery(c.provider, req), headers };
}

function expectRejected(outcome: DeliveryOutcome, status: 400 | 401, reason?: RegExp) {
  expect(outcome.kind).toBe('rejected');
  if (outcome.kind !== 'rejected') return;
  expect({ status: outcome.status, reason: outcome.reason }).toMatchObject({ status });
  if (reason) expect(outcome.reason).toMatch(reason);
}

describe.each(CASES)('$provider deliveries', (c) => {
  it('a delivery signed with the secret becomes the event, its type, id, subject and metadata', async () => {
    const secret = c.secret();
    const { outcome } = await deliver(c, { secrets: [secret] });
    expect(outcome).toEqual({ kind: 'event', event: { ...c.expected, data: c.body(NOW) } });
  });

  it('metadata holds only allowlisted delivery headers, never a signature, token or secret', async () => {
    const secret = c.secret();
    const { outcome } = await deliver(c, { secrets: [secret], headers: { 'x-hub-signature': 'sha1=abc', authorization: 'Bearer x', cookie: 'a=b' } });
    if (outcome.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(outcome)}`);
    const keys = Object.keys(outcome.event.metadata);
    for (const h of [...c.secretHeaders, 'authorization', 'cookie']) expect(keys).not.toContain(h);
    expect(keys.every((k) => PROVIDER_SCHEMES[c.provider].metadataHeaders.includes(k))).toBe(true);
    expect(JSON.stringify(outcome.event.metadata)).not.toContain(secret);
    for (const h of PROVIDER_SCHEMES[c.provider].metadataHeaders) expect(h).not.toMatch(/signature|token|secret/);
  });

  it('a delivery signed with another secret is refused with 401, naming the header and no secret', async () => {
    const secret = c.secret();
    const { outcome } = await deliver(c, { secrets: [secret], signWith: c.secret() });
    expectRejected(outcome, 401, new RegExp(c.signatureHeader, 'i'));
    if (outcome.kind === 'rejected') expect(outcome.reason).not.toContain(secret);
  });

  it('a delivery without the signature header is refused with 401 "missing ... header"', async () => {
    const { outcome } = await deliver(c, { secrets: [c.secret()], drop: c.signatureHeader });
    expectRejected(outcome, 401, new RegExp(`^missing ${c.signatureHeader} header`, 'i'));
  });

  it('a malformed signature header is refused with 401, without throwing', async () => {
    for (const bad of ['zz', 'sha256=zz', 'v0=', 'v1,@@@', 'x'.repeat(5000)]) {
      const { outcome } = await deliver(c, { secrets: [c.secret()], headers: { [c.signatureHeader]: bad } });
      expectRejected(outcome, 401);
    }
  });

  it('a second secret (one rotated out, within its grace) verifies too', async () => {
    const current = c.secret();
    const previous = c.secret();
    const { outcome } = await deliver(c, { secrets: [current, previous], signWith: previous });
    expect(outcome).toMatchObject({ kind: 'event', event: { event_type: c.expected.event_type } });
    const byCurrent = await deliver(c, { secrets: [current, previous], signWith: current });
    expect(byCurrent.outcome.kind).toBe('event');
  });

  it('a body that is not JSON, signed right, is refused with 400', async () => {
    const { outcome } = await deliver(c, { secrets: [c.secret()], raw: 'payload=%7B%22a%22%3A1%7D' });
    expectRejected(outcome, 400, /not JSON/);
  });

  it('a JSON body that is not an object, signed right, is refused with 400', async () => {
    const { outcome } = await deliver(c, { secrets: [c.secret()], raw: '[1,2]' });
    expectRejected(outcome, 400, /not an object/);
  });

  if (c.signsBody) it('a body that is not JSON with a wrong signature is refused with 401: the signature comes first', async () => {
    const { outcome } = await deliver(c, { secrets: [c.secret()], signWith: c.secret(), raw: 'not json' });
    expectRejected(outcome, 401);
  });

  if (c.signsBody) it('a body changed by one byte after signing is refused with 401', async () => {
    const signed = pretty(c);
    const changed = signed.replace('c', 'd'); // 'c' is only ever inside a string here, so the JSON stays valid
    expect(changed).not.toBe(signed);
    expect(() => JSON.parse(changed)).not.toThrow();
    const { outcome } = await deliver(c, { secrets: [c.secret()], raw: changed, signedRaw: signed });
    expectRejected(outcome, 401);
  });

  if (c.signsBody) it('the body re-serialised (same JSON, other bytes) is refused with 401: the raw bytes are verified', async () => {
    const signed = pretty(c);
    const reserialised = JSON.stringify(JSON.parse(signed));
    expect(reserialised).not.toBe(signed);
    const { outcome } = await deliver(c, { secrets: [c.secret()], raw: reserialised, signedRaw: signed });
    expectRejected(outcome, 401);
  });

  if (c.toleranceS !== undefined) it('a delivery signed too long ago is refused with 401, saying how old it is', async () => {
    const tolerance = c.toleranceS ?? 0;
    const stale = new Date(NOW.getTime() - (tolerance + 252) * 1000);
    const { outcome } = await deliver(c, { secrets: [c.secret()], at: stale });
    expectRejected(outcome, 401, new RegExp(`is ${tolerance + 252} s old \\(at most ${tolerance} s\\)`));
    const fresh = new Date(NOW.getTime() - (tolerance - 5) * 1000);
    expect((await deliver(c, { secrets: [c.secret()], at: fresh })).outcome.kind).toBe('event');
  });

  if (c.toleranceS !== undefined) it('a delivery dated too far in the future is refused with 401', async () => {
    const ahead = new Date(NOW.getTime() + ((c.toleranceS ?? 0) + 60) * 1000);
    const { outcome } = await deliver(c, { secrets: [c.secret()], at: ahead });
    expectRejected(outcome, 401, /in the future/);
  });
});

describe('provider-specific readings', () => {
  const byProvider = (p: ConnectionProvider) => CASES.find((c) => c.provider === p)!;

  it('GitHub: the reason for a wrong signature says where to fix it', async () => {
    const c = byProvider('github');
    const { outcome } = await deliver(c, { secrets: [c.secret()], signWith: c.secret() });
    expect(outcome).toMatchObject({
      kind: 'rejected',
      status: 401,
      reason: "X-Hub-Signature-256 does not match the body signed with this connection's secret: check the secret in the GitHub webhook settings",
      deliveryId: c.expected.id,
      eventType: 'pull_request',
    });
  });

  it('GitHub: a body that is not UTF-8 is checked over its raw bytes, then refused with 400', async () => {
    const secret = byProvider('github').secret();
    const raw = Buffer.from([0x7b, 0xff, 0x7d]);
    const signature = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
    const headers = { 'x-github-event': 'push', 'x-hub-signature-256': signature };
    const outcome = await receiveDelivery('github', { rawBody: raw, headers, secrets: [secret], now: NOW });
    expectRejected(outcome, 400, /not UTF-8/);
    // the same signature over the bytes a UTF-8 decoder would make of it does not verify
    const replaced = await receiveDelivery('github', { rawBody: Buffer.from('{\uFFFD}'), headers, secrets: [secret], now: NOW });
    expectRejected(replaced, 401);
  });

  it('GitHub: an event without an action is the bare header event', async () => {
    const c = byProvider('github');
    const secret = c.secret();
    const raw = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/web' } });
    const headers = { 'x-github-event': 'push', 'x-github-delivery': 'd-1', 'x-hub-signature-256': await githubSign(secret, raw) };
    const outcome = await receiveDelivery('github', { rawBody: Buffer.from(raw), headers, secrets: [secret], now: NOW });
    expect(outcome).toMatchObject({ kind: 'event', event: { event_type: 'push', id: 'd-1', subject: 'acme/web' } });
  });

  it('GitHub: a delivery id over 200 characters is refused with 400', async () => {
    const c = byProvider('github');
    const { outcome } = await deliver(c, { secrets: [c.secret()], headers: { 'x-github-delivery': 'd'.repeat(201) } });
    expectRejected(outcome, 400, /delivery id is 201 characters long \(at most 200\)/);
  });

  it('Standard Webhooks: an event type over 200 characters is refused with 400', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const raw = JSON.stringify({ type: 't'.repeat(201), data: {} });
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': seconds(NOW), 'webhook-signature': new Webhook(secret).sign('msg_1', NOW, raw) };
    const outcome = await receiveDelivery('standard', { rawBody: Buffer.from(raw), headers, secrets: [secret], now: NOW });
    expectRejected(outcome, 400, /event type is 201 characters long \(at most 200\)/);
  });

  it('Standard Webhooks: any one of several space-separated signatures may match', async () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const raw = JSON.stringify({ type: 'user.created', data: {} });
    const good = new Webhook(secret).sign('msg_1', NOW, raw);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': seconds(NOW), 'webhook-signature': `v1,bm90IGl0 ${good} v2,other` };
    const outcome = await receiveDelivery('standard', { rawBody: Buffer.from(raw), headers, secrets: [secret], now: NOW });
    expect(outcome).toMatchObject({ kind: 'event', event: { event_type: 'user.created', id: 'msg_1' } });
  });

  it('Standard Webhooks: the signature covers the id, so another webhook-id is refused with 401', async () => {
    const c = byProvider('standard');
    const { outcome } = await deliver(c, { secrets: [c.secret()], headers: { 'webhook-id': 'msg_other' } });
    expectRejected(outcome, 401, /webhook-signature does not match/);
  });

  it('Slack: a url_verification is answered with its challenge and is no event', async () => {
    const secret = rawSecret();
    const raw = JSON.stringify({ token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl', challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P', type: 'url_verification' });
    const headers = await byProvider('slack').sign(secret, raw, NOW);
    const outcome = await receiveDelivery('slack', { rawBody: Buffer.from(raw), headers, secrets: [secret], now: NOW });
    expect(outcome).toEqual({ kind: 'reply', body: { challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' } });
  });

  it('Slack: a url_verification with a wrong signature is refused with 401, not answered', async () => {
    const raw = JSON.stringify({ challenge: 'abc', type: 'url_verification' });
    const headers = await byProvider('slack').sign(rawSecret(), raw, NOW);
    const outcome = await receiveDelivery('slack', { rawBody: Buffer.from(raw), headers, secrets: [rawSecret()], now: NOW });
    expectRejected(outcome, 401);
  });

  it('Slack: an envelope other than event_callback becomes an event of its own type', async () => {
    const secret = rawSecret();
    const raw = JSON.stringify({ token: 'x', type: 'app_rate_limited', team_id: 'T1', minute_rate_limited: 1518467820, api_app_id: 'A1' });
    const headers = await byProvider('slack').sign(secret, raw, NOW);
    const outcome = await receiveDelivery('slack', { rawBody: Buffer.from(raw), headers, secrets: [secret], now: NOW });
    expect(outcome).toMatchObject({ kind: 'event', event: { event_type: 'app_rate_limited', id: null } });
  });

  it('Slack: a missing timestamp header is refused with 401', async () => {
    const c = byProvider('slack');
    const { outcome } = await deliver(c, { secrets: [c.secret()], drop: 'x-slack-request-timestamp' });
    expectRejected(outcome, 401, /^missing X-Slack-Request-Timestamp header/);
  });

  it('Linear: a body without webhookTimestamp is refused with 401', async () => {
    const secret = rawSecret();
    const raw = JSON.stringify({ action: 'create', type: 'Issue', data: {} });
    const outcome = await receiveDelivery('linear', { rawBody: Buffer.from(raw), headers: { 'linear-signature': hmacHex('sha256', secret, raw) }, secrets: [secret], now: NOW });
    expectRejected(outcome, 401, /webhookTimestamp/);
  });

  it('Linear: the stale reason reads as the brief asks', async () => {
    const c = byProvider('linear');
    const { outcome } = await deliver(c, { secrets: [c.secret()], at: new Date(NOW.getTime() - 312_000) });
    expectRejected(outcome, 401, /^Linear-Signature timestamp is 312 s old \(at most 60 s\)/);
  });

  it('GitLab: a body without object_kind is refused with 400 naming the field', async () => {
    const secret = rawSecret();
    const outcome = await receiveDelivery('gitlab', { rawBody: Buffer.from('{"a":1}'), headers: { 'x-gitlab-token': secret }, secrets: [secret], now: NOW });
    expectRejected(outcome, 400, /"object_kind"/);
  });

  it('Sentry: a delivery without Sentry-Hook-Resource is refused with 400', async () => {
    const c = byProvider('sentry');
    const { outcome } = await deliver(c, { secrets: [c.secret()], drop: 'sentry-hook-resource' });
    expectRejected(outcome, 400, /Sentry-Hook-Resource/);
  });

  it('a connection with no secret verifies nothing', async () => {
    const c = byProvider('vercel');
    const { outcome } = await deliver(c, { secrets: [], signWith: 'x'.repeat(32) });
    expectRejected(outcome, 401);
  });
});
