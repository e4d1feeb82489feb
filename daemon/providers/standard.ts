// Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp` within 5 minutes,
// `webhook-signature` a space-separated list of `v1,BASE64`, HMAC-SHA256 of
// `{id}.{timestamp}.{body}` keyed with the bytes of the secret `whsec_BASE64` (CONTRACT §12).
import { PROVIDER_TITLES } from '../../shared/schemas/connections.js';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { DeliveryRequest } from './delivery.js';
import { anySecret, exactUtf8, header, missingField, missingHeader, mismatch, safeEqual, staleness, stringAt, type ProviderScheme } from './scheme.js';

const TOLERANCE_S = 5 * 60;
const PREFIX = 'whsec_';

/**
 * The `v1,BASE64` this secret gives. The library's `Webhook.verify` checks the timestamp against
 * the machine's clock, while the daemon's is injected (`req.now`): so the freshness is checked
 * here and the library is asked only to sign, with the delivery's own timestamp. It signs a
 * string, which is the body only when the bytes are exact UTF-8 (see exactUtf8); any other body is
 * signed over its raw bytes with node:crypto (and then refused as not JSON).
 */
function expectedSignature(secret: string, id: string, ts: number, raw: Buffer): string | null {
  try {
    const text = exactUtf8(raw);
    if (text !== null) return new Webhook(secret).sign(id, new Date(ts * 1000), text);
    const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
    return `v1,${createHmac('sha256', key).update(`${id}.${ts}.`).update(raw).digest('base64')}`;
  } catch {
    return null; // a secret that is not base64 verifies nothing
  }
}

function verify(req: DeliveryRequest): string | null {
  const id = header(req, 'webhook-id');
  const timestamp = header(req, 'webhook-timestamp');
  const signatures = header(req, 'webhook-signature');
  if (signatures === null) return missingHeader('webhook-signature');
  if (id === null) return missingHeader('webhook-id');
  if (timestamp === null) return missingHeader('webhook-timestamp');
  if (!/^\d{1,12}$/.test(timestamp)) return 'webhook-timestamp is not a Unix time in seconds';
  const ts = Number(timestamp);
  const given = signatures.split(' ').filter((s) => s.startsWith('v1,'));
  if (given.length === 0) return 'webhook-signature has no v1 signature ("v1,BASE64"): is this a Standard Webhooks delivery?';
  const ok = anySecret(req.secrets, (secret) => {
    const expected = expectedSignature(secret, id, ts, req.rawBody);
    return expected !== null && given.map((g) => safeEqual(g, expected)).includes(true);
  });
  if (!ok) return mismatch('webhook-signature', "the sender's webhook settings (a whsec_ secret)", 'the id, timestamp and body signed');
  return staleness('webhook-timestamp', ts * 1000, req.now, TOLERANCE_S);
}

export const standard: ProviderScheme = {
  title: PROVIDER_TITLES.standard,
  verify,
  normalise(body, req) {
    const id = header(req, 'webhook-id');
    const type = stringAt(body, 'type');
    if (type === null) return { kind: 'rejected', status: 400, reason: missingField('type', 'Standard Webhooks'), id };
    return { kind: 'event', eventType: type, id, subject: null };
  },
  metadataHeaders: ['webhook-id', 'webhook-timestamp', 'user-agent'],
  idHeader: 'webhook-id',
};
