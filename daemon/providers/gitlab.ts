// GitLab: the secret itself in `X-Gitlab-Token` (no signature); the event is the body's
// `object_kind` plus `object_attributes.action` (CONTRACT §12).
import { PROVIDER_TITLES } from '../../shared/schemas/connections.js';
import { anySecret, header, missingField, missingHeader, safeEqual, stringAt, withAction, type ProviderScheme } from './scheme.js';

const TOKEN = 'X-Gitlab-Token';

export const gitlab: ProviderScheme = {
  title: PROVIDER_TITLES.gitlab,
  verify(req) {
    const given = header(req, TOKEN);
    if (given === null) return `${missingHeader(TOKEN)}: set the Secret token in the GitLab webhook settings`;
    return anySecret(req.secrets, (secret) => safeEqual(given, secret))
      ? null
      : `${TOKEN} is not this connection's secret: check the Secret token in the GitLab webhook settings`;
  },
  normalise(body, req) {
    const kind = stringAt(body, 'object_kind');
    if (kind === null) return { kind: 'rejected', status: 400, reason: missingField('object_kind', 'GitLab') };
    return {
      kind: 'event',
      eventType: withAction(kind, stringAt(body, 'object_attributes', 'action')),
      id: header(req, 'X-Gitlab-Event-UUID'),
      subject: stringAt(body, 'project', 'path_with_namespace'),
    };
  },
  // Never x-gitlab-token: it is the secret.
  metadataHeaders: ['x-gitlab-event', 'x-gitlab-event-uuid', 'x-gitlab-webhook-uuid', 'x-gitlab-instance', 'idempotency-key', 'user-agent'],
  idHeader: 'X-Gitlab-Event-UUID',
};
