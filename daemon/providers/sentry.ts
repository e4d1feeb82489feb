// Sentry: `Sentry-Hook-Signature: HEX`, HMAC-SHA256 of the body; the event is the
// `Sentry-Hook-Resource` header plus the body's `action` (CONTRACT §12).
import { PROVIDER_TITLES } from '../../shared/schemas/connections.js';
import { checkHexSignature, header, missingHeader, stringAt, withAction, type ProviderScheme } from './scheme.js';

export const sentry: ProviderScheme = {
  title: PROVIDER_TITLES.sentry,
  verify: (req) => checkHexSignature(req, { header: 'Sentry-Hook-Signature', title: 'Sentry', where: 'the Sentry integration settings (Client Secret)', algorithm: 'sha256', parts: [req.rawBody] }),
  normalise(body, req) {
    const id = header(req, 'Request-ID');
    const resource = header(req, 'Sentry-Hook-Resource');
    if (resource === null) return { kind: 'rejected', status: 400, reason: `${missingHeader('Sentry-Hook-Resource')}, which names the event: is this a Sentry webhook delivery?`, id };
    return { kind: 'event', eventType: withAction(resource, stringAt(body, 'action')), id, subject: null };
  },
  metadataHeaders: ['sentry-hook-resource', 'sentry-hook-timestamp', 'request-id', 'user-agent'],
  idHeader: 'Request-ID',
  eventHeader: 'Sentry-Hook-Resource',
};
