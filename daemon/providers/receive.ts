// A provider delivery, verified and normalised (CONTRACT §12): the signature over the raw bytes
// first, then the body as a JSON object, then the provider's reading of it, then the limits every
// event has. Each provider's scheme is a module of its own; this is the one path through them.
import type { ConnectionProvider } from '../../shared/schemas/connections.js';
import type { DeliveryOutcome, DeliveryRequest, ReceiveDelivery } from './delivery.js';
import { github } from './github.js';
import { gitlab } from './gitlab.js';
import { linear } from './linear.js';
import { header, parseObject, type ProviderScheme } from './scheme.js';
import { sentry } from './sentry.js';
import { slack } from './slack.js';
import { standard } from './standard.js';
import { vercel } from './vercel.js';

export const PROVIDER_SCHEMES: Readonly<Record<ConnectionProvider, ProviderScheme>> = { github, gitlab, linear, vercel, sentry, slack, standard };

/** The event schema's cap on an event type and an event id. */
const MAX_FIELD = 200;

/** A value read for the log of a refused delivery, if it fits there. */
const forLog = (value: string | null | undefined) => (value != null && value.length <= MAX_FIELD ? value : null);

export const receiveDelivery: ReceiveDelivery = async (provider, req) => {
  const scheme = PROVIDER_SCHEMES[provider];
  const reject = (status: 400 | 401, reason: string, deliveryId?: string | null, eventType?: string | null): DeliveryOutcome => ({
    kind: 'rejected',
    status,
    reason,
    // Until the signature is found right, only headers are read, never the body.
    deliveryId: forLog(deliveryId !== undefined ? deliveryId : scheme.idHeader ? header(req, scheme.idHeader) : null),
    eventType: forLog(eventType !== undefined ? eventType : scheme.eventHeader ? header(req, scheme.eventHeader) : null),
  });

  if (req.secrets.length === 0) return reject(401, 'this connection has no secret to verify deliveries with: rotate its secret');
  const wrong = await scheme.verify(req);
  if (wrong !== null) return reject(401, wrong);

  const parsed = parseObject(req.rawBody, scheme.title);
  if ('reason' in parsed) return reject(400, parsed.reason);

  const read = scheme.normalise(parsed.body, req);
  if (read.kind === 'rejected') return reject(read.status, read.reason, read.id, read.eventType);
  if (read.kind === 'reply') return { kind: 'reply', body: read.body };
  // An empty id is no id: the event gets one of its own, as when the provider sends none.
  const id = read.id || null;

  if (read.eventType === '') return reject(400, 'the event type is empty', id, null);
  if (read.eventType.length > MAX_FIELD) {
    return reject(400, `the event type is ${read.eventType.length} characters long (at most ${MAX_FIELD})`, id, null);
  }
  if (id !== null && id.length > MAX_FIELD) {
    return reject(400, `the delivery id is ${id.length} characters long (at most ${MAX_FIELD})`, null, read.eventType);
  }
  return {
    kind: 'event',
    event: { id, event_type: read.eventType, subject: read.subject, metadata: metadata(scheme, req), data: parsed.body },
  };
};

function metadata(scheme: ProviderScheme, req: DeliveryRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of scheme.metadataHeaders) {
    const value = header(req, name);
    if (value !== null) out[name] = value;
  }
  return out;
}
