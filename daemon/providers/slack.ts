// Slack: `X-Slack-Signature: v0=HEX`, HMAC-SHA256 of `v0:{X-Slack-Request-Timestamp}:{body}`,
// the timestamp within 5 minutes. An `event_callback` is the event `event.type`; a
// `url_verification` is answered with its challenge and dispatches nothing (CONTRACT §12).
import { PROVIDER_TITLES } from '../../shared/schemas/connections.js';
import { checkHexSignature, header, missingField, missingHeader, staleness, stringAt, type ProviderScheme } from './scheme.js';

const SIGNATURE = 'X-Slack-Signature';
const TIMESTAMP = 'X-Slack-Request-Timestamp';
const TOLERANCE_S = 5 * 60;

export const slack: ProviderScheme = {
  title: PROVIDER_TITLES.slack,
  verify(req) {
    const ts = header(req, TIMESTAMP);
    if (header(req, SIGNATURE) === null) return missingHeader(SIGNATURE);
    if (ts === null) return missingHeader(TIMESTAMP);
    if (!/^\d{1,12}$/.test(ts)) return `${TIMESTAMP} is not a Unix time in seconds`;
    const wrong = checkHexSignature(req, {
      header: SIGNATURE, title: 'Slack', where: "the Slack app's Basic Information (Signing Secret)", algorithm: 'sha256', prefix: 'v0=',
      parts: [`v0:${ts}:`, req.rawBody], signed: 'the timestamp and body signed',
    });
    // The signature first, so a forged request is told it is forged rather than late.
    return wrong ?? staleness(TIMESTAMP, Number(ts) * 1000, req.now, TOLERANCE_S);
  },
  normalise(body) {
    const type = stringAt(body, 'type');
    if (type === null) return { kind: 'rejected', status: 400, reason: missingField('type', 'Slack Events API') };
    if (type === 'url_verification') {
      const challenge = stringAt(body, 'challenge');
      if (challenge === null) return { kind: 'rejected', status: 400, reason: 'a url_verification without a string "challenge"', eventType: type };
      return { kind: 'reply', body: { challenge } };
    }
    if (type === 'event_callback') {
      const id = stringAt(body, 'event_id');
      const eventType = stringAt(body, 'event', 'type');
      if (eventType === null) return { kind: 'rejected', status: 400, reason: 'an event_callback without a string "event.type"', eventType: type, id };
      return { kind: 'event', eventType, id, subject: null };
    }
    // Slack's other envelopes (`app_rate_limited`, say) are verified deliveries about the app
    // itself: they become events of their own `type`, so an automation may listen for them, with
    // no id (Slack gives them none) rather than being refused as if the sender were wrong.
    return { kind: 'event', eventType: type, id: null, subject: null };
  },
  metadataHeaders: ['x-slack-request-timestamp', 'x-slack-retry-num', 'x-slack-retry-reason', 'user-agent'],
};
