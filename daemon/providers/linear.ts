// Linear: `Linear-Signature: HEX`, HMAC-SHA256 of the body, and the body's `webhookTimestamp`
// (ms) within 60 s; the event is the body's `type` lower-cased plus its `action` (CONTRACT §12).
import { PROVIDER_TITLES } from '../../shared/schemas/connections.js';
import { checkHexSignature, header, missingField, staleness, stringAt, withAction, type ProviderScheme } from './scheme.js';

const TOLERANCE_S = 60;

export const linear: ProviderScheme = {
  title: PROVIDER_TITLES.linear,
  verify: (req) => checkHexSignature(req, { header: 'Linear-Signature', title: 'Linear', where: 'the Linear webhook settings (Signing secret)', algorithm: 'sha256', parts: [req.rawBody] }),
  normalise(body, req) {
    // Linear's timestamp is in the body, not a header: it is read only once the signature has
    // vouched for the body, so a body that is not JSON is a 400 (with a right signature) and a
    // missing or stale timestamp a 401 after that.
    const id = header(req, 'Linear-Delivery');
    const ts = body.webhookTimestamp;
    if (typeof ts !== 'number' || !Number.isFinite(ts)) {
      return { kind: 'rejected', status: 401, reason: 'the body has no numeric webhookTimestamp (ms): is this a Linear webhook delivery?', id };
    }
    const stale = staleness('Linear-Signature timestamp', ts, req.now, TOLERANCE_S);
    if (stale) return { kind: 'rejected', status: 401, reason: stale, id };
    const type = stringAt(body, 'type');
    if (type === null) return { kind: 'rejected', status: 400, reason: missingField('type', 'Linear'), id };
    return { kind: 'event', eventType: withAction(type.toLowerCase(), stringAt(body, 'action')), id, subject: stringAt(body, 'data', 'identifier') };
  },
  metadataHeaders: ['linear-delivery', 'linear-event', 'user-agent'],
  idHeader: 'Linear-Delivery',
};
