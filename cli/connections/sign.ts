// A provider delivery as that provider sends it, signed with a connection's secret: the headers
// and the exact body `svc connections test` posts to the connection's webhook_url (CONTRACT §12).
// GitHub's and Standard Webhooks' signatures come from their own libraries, the others from
// node:crypto; none of this is the daemon's code, so a test round trip checks one against the other.
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import type { ConnectionProvider } from '../../shared/schemas/connections.js';
import { GITLAB_EVENT_HEADERS } from './samples/gitlab.js';

export interface SignOptions {
  now: Date;
  /** svc's event type (`pull_request.opened`): the event headers of GitHub and Sentry come from it */
  eventType: string;
  /** the delivery's id, where the provider puts it (a header, or the body for Vercel and Slack) */
  deliveryId: string;
}

export interface SignedDelivery {
  headers: Record<string, string>;
  body: string;
}

const hex = (algorithm: 'sha1' | 'sha256', key: string, data: string) => createHmac(algorithm, key).update(data, 'utf8').digest('hex');

/** The body with some top-level fields set, as JSON; a body that is not a JSON object is left as it is. */
function withFields(body: string, fields: Record<string, unknown>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return body;
  return JSON.stringify({ ...parsed, ...fields });
}

const prefix = (eventType: string) => eventType.split('.')[0];

export async function signedDelivery(provider: ConnectionProvider, secret: string, body: string, opts: SignOptions): Promise<SignedDelivery> {
  const json = { 'Content-Type': 'application/json' };
  const seconds = String(Math.floor(opts.now.getTime() / 1000));
  switch (provider) {
    case 'github':
      return {
        headers: {
          ...json,
          'User-Agent': 'GitHub-Hookshot/svc-test',
          'X-GitHub-Event': prefix(opts.eventType),
          'X-GitHub-Delivery': opts.deliveryId,
          'X-Hub-Signature-256': await githubSign(secret, body),
        },
        body,
      };
    case 'gitlab': {
      let kind = prefix(opts.eventType);
      try {
        kind = String(JSON.parse(body).object_kind ?? kind);
      } catch {
        // not JSON: the header is a guess, and the daemon will refuse the body anyway
      }
      return {
        headers: {
          ...json,
          'User-Agent': 'GitLab/svc-test',
          'X-Gitlab-Event': GITLAB_EVENT_HEADERS[kind] ?? `${kind} Hook`,
          'X-Gitlab-Event-UUID': opts.deliveryId,
          'X-Gitlab-Token': secret,
        },
        body,
      };
    }
    case 'linear': {
      // Linear's timestamp is in the body, under the signature: set it before signing.
      const signed = withFields(body, { webhookTimestamp: opts.now.getTime() });
      let type = prefix(opts.eventType);
      try {
        type = String(JSON.parse(signed).type ?? type);
      } catch {
        // not JSON: keep the guess from the event type
      }
      return {
        headers: { ...json, 'User-Agent': 'Linear-Webhook', 'Linear-Delivery': opts.deliveryId, 'Linear-Event': type, 'Linear-Signature': hex('sha256', secret, signed) },
        body: signed,
      };
    }
    case 'vercel': {
      const signed = withFields(body, { id: opts.deliveryId });
      return { headers: { ...json, 'User-Agent': 'Vercel-Webhook', 'x-vercel-signature': hex('sha1', secret, signed) }, body: signed };
    }
    case 'sentry':
      return {
        headers: {
          ...json,
          'User-Agent': 'sentry-integration',
          'Sentry-Hook-Resource': prefix(opts.eventType),
          'Sentry-Hook-Timestamp': seconds,
          'Request-ID': opts.deliveryId,
          'Sentry-Hook-Signature': hex('sha256', secret, body),
        },
        body,
      };
    case 'slack': {
      const signed = withFields(body, { event_id: opts.deliveryId });
      return {
        headers: {
          ...json,
          'User-Agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
          'X-Slack-Request-Timestamp': seconds,
          'X-Slack-Signature': `v0=${hex('sha256', secret, `v0:${seconds}:${signed}`)}`,
        },
        body: signed,
      };
    }
    case 'standard':
      return {
        headers: {
          ...json,
          'webhook-id': opts.deliveryId,
          'webhook-timestamp': seconds,
          'webhook-signature': new Webhook(secret).sign(opts.deliveryId, opts.now, body),
        },
        body,
      };
  }
}
