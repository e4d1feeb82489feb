// Vercel: `x-vercel-signature: HEX`, HMAC-SHA1 of the body; the event is the body's `type`, its id
// the body's `id` (CONTRACT §12).
import { PROVIDER_TITLES } from '../../shared/schemas/connections.js';
import { checkHexSignature, missingField, stringAt, type ProviderScheme } from './scheme.js';

export const vercel: ProviderScheme = {
  title: PROVIDER_TITLES.vercel,
  verify: (req) => checkHexSignature(req, { header: 'x-vercel-signature', title: 'Vercel', algorithm: 'sha1', parts: [req.rawBody] }),
  normalise(body) {
    const type = stringAt(body, 'type');
    if (type === null) return { kind: 'rejected', status: 400, reason: missingField('type', 'Vercel'), id: stringAt(body, 'id') };
    return { kind: 'event', eventType: type, id: stringAt(body, 'id'), subject: null };
  },
  metadataHeaders: ['x-vercel-id', 'user-agent'],
};
