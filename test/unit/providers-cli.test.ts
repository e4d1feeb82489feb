// The CLI's side of `svc connections test`: the samples it ships and the deliveries it signs, each
// one accepted by the daemon's verifier as the event it was meant to be.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signedDelivery } from '../../cli/connections/sign.js';
import { sampleDelivery, sampleEventTypes } from '../../cli/connections/samples.js';
import { UsageError } from '../../cli/errors.js';
import { receiveDelivery } from '../../daemon/providers/receive.js';
import { CONNECTION_PROVIDERS, type ConnectionProvider } from '../../shared/schemas/connections.js';

const NOW = new Date('2026-03-05T10:15:00.000Z');
const secretFor = (p: ConnectionProvider) => (p === 'standard' ? `whsec_${randomBytes(32).toString('base64')}` : randomBytes(32).toString('hex'));
const lower = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

async function roundTrip(provider: ConnectionProvider, eventType: string, payload: Record<string, unknown>, secret = secretFor(provider)) {
  const deliveryId = `svc-test-${randomBytes(6).toString('hex')}`;
  const signed = await signedDelivery(provider, secret, JSON.stringify(payload), { now: NOW, eventType, deliveryId });
  const outcome = await receiveDelivery(provider, { rawBody: Buffer.from(signed.body), headers: lower(signed.headers), secrets: [secret], now: NOW });
  return { outcome, deliveryId, signed };
}

const OWN = CONNECTION_PROVIDERS.filter((p) => p !== 'github');

describe('signedDelivery → receiveDelivery', () => {
  it.each(OWN)('every %s sample is accepted as its own event type, with the delivery id', async (provider) => {
    const types = await sampleEventTypes(provider);
    expect(types.length).toBeGreaterThanOrEqual(2);
    for (const eventType of types) {
      const { outcome, deliveryId } = await roundTrip(provider, eventType, await sampleDelivery(provider, eventType));
      // (Slack's url_verification is no event: it is answered with its challenge)
      const expected = provider === 'slack' && eventType === 'url_verification' ? { kind: 'reply', body: { challenge: expect.any(String) } } : { kind: 'event', event: { event_type: eventType, id: deliveryId } };
      expect({ eventType, outcome }).toMatchObject({ eventType, outcome: expected });
    }
  });

  it('every GitHub example svc ships is accepted as its event type', async () => {
    const index = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@octokit/webhooks-examples'), 'utf8')) as {
      name: string;
      examples: Record<string, unknown>[];
    }[];
    let count = 0;
    for (const { name, examples } of index) {
      for (const payload of examples) {
        const eventType = typeof payload.action === 'string' ? `${name}.${payload.action}` : name;
        const { outcome } = await roundTrip('github', eventType, payload, 'github-secret');
        if (outcome.kind !== 'event' || outcome.event.event_type !== eventType) throw new Error(`${eventType}: ${JSON.stringify(outcome)}`);
        count++;
      }
    }
    expect(count).toBeGreaterThan(100);
  });

  it.each(['push', 'ping', 'pull_request.opened', 'issues.opened'])('the github sample %s round-trips with its repository as subject', async (eventType) => {
    const payload = await sampleDelivery('github', eventType);
    const { outcome, deliveryId } = await roundTrip('github', eventType, payload);
    expect(outcome).toMatchObject({ kind: 'event', event: { event_type: eventType, id: deliveryId, subject: (payload.repository as { full_name: string }).full_name } });
  });

  it('Linear: the body is stamped with now before signing, so the delivery is fresh', async () => {
    const { signed } = await roundTrip('linear', 'issue.create', await sampleDelivery('linear', 'issue.create'));
    expect(JSON.parse(signed.body).webhookTimestamp).toBe(NOW.getTime());
  });

  it('the same signed delivery read an hour later is refused as stale where the scheme is timed', async () => {
    for (const provider of ['linear', 'slack', 'standard'] as const) {
      const [eventType] = await sampleEventTypes(provider);
      const secret = secretFor(provider);
      const signed = await signedDelivery(provider, secret, JSON.stringify(await sampleDelivery(provider, eventType)), { now: NOW, eventType, deliveryId: 'd1' });
      const later = new Date(NOW.getTime() + 3_600_000);
      const outcome = await receiveDelivery(provider, { rawBody: Buffer.from(signed.body), headers: lower(signed.headers), secrets: [secret], now: later });
      expect({ provider, outcome }).toMatchObject({ provider, outcome: { kind: 'rejected', status: 401, reason: expect.stringMatching(/3600 s old/) } });
    }
  });
});

describe('sampleDelivery', () => {
  it('returns a copy the caller may change', async () => {
    const a = await sampleDelivery('vercel', 'deployment.succeeded');
    a.type = 'changed';
    expect((await sampleDelivery('vercel', 'deployment.succeeded')).type).toBe('deployment.succeeded');
  });

  it('names the event types there are when there is no sample for one', async () => {
    await expect(sampleDelivery('gitlab', 'merge_request.nope')).rejects.toThrow(UsageError);
    await expect(sampleDelivery('gitlab', 'merge_request.nope')).rejects.toThrow(/no gitlab sample for event "merge_request.nope": there are .*merge_request\.open.*push/);
    await expect(sampleDelivery('github', 'pull_request.nope')).rejects.toThrow(/for pull_request there are .*pull_request\.opened/);
    await expect(sampleDelivery('github', 'nope')).rejects.toThrow(/there are .*pull_request\.ACTION.*push/);
  });

  it('lists github event types from the examples', async () => {
    const types = await sampleEventTypes('github');
    expect(types).toEqual(expect.arrayContaining(['push', 'ping', 'pull_request.opened', 'issues.opened']));
  });
});
