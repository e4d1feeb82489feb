// Provider deliveries as the providers send them, signed by code that is not the daemon's: GitHub's
// own `@octokit/webhooks-methods`, the Standard Webhooks authors' `standardwebhooks`, and HMACs
// written out here from each provider's documentation for the others. A test that signed with the
// daemon's code would pass whatever that code got wrong.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import type { ConnectionProvider } from '../../shared/schemas/connections.js';

export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** A delivery of one provider: its body (pretty-printed, as several providers send) and event type. */
export interface ProviderCase {
  provider: ConnectionProvider;
  /** the event_type svc reads from the delivery */
  eventType: string;
  /** the subject svc reads, or null */
  subject: string | null;
  /** whether the scheme carries a timestamp that goes stale */
  timestamped: boolean;
  /** whether the signature covers the body (GitLab's token is the secret itself, and signs nothing) */
  signsBody: boolean;
  /** the body, for a delivery id and time */
  body(deliveryId: string, now: Date): Record<string, unknown>;
}

const hex = (algorithm: 'sha1' | 'sha256', key: string, text: string) => createHmac(algorithm, key).update(text, 'utf8').digest('hex');

let githubExamples: { name: string; examples: Record<string, unknown>[] }[] | undefined;

/** A real payload GitHub sent, from `@octokit/webhooks-examples`: the first of `event` with `action`. */
export function githubExample(event: string, action?: string): Record<string, unknown> {
  githubExamples ??= JSON.parse(readFileSync(createRequire(import.meta.url).resolve('@octokit/webhooks-examples/api.github.com/index.json'), 'utf8'));
  const found = githubExamples!.find((e) => e.name === event)?.examples.find((x) => action === undefined || x.action === action);
  if (!found) throw new Error(`no GitHub example of ${event}${action ? `.${action}` : ''}`);
  return structuredClone(found);
}

export const PROVIDER_CASES: readonly ProviderCase[] = [
  { provider: 'github', eventType: 'pull_request.opened', subject: 'Codertocat/Hello-World', timestamped: false, signsBody: true, body: () => githubExample('pull_request', 'opened') },
  {
    provider: 'gitlab',
    eventType: 'merge_request.open',
    subject: 'group/project',
    timestamped: false,
    signsBody: false,
    body: () => ({ object_kind: 'merge_request', event_type: 'merge_request', project: { id: 1, path_with_namespace: 'group/project' }, object_attributes: { iid: 7, action: 'open', target_branch: 'main' } }),
  },
  {
    provider: 'linear',
    eventType: 'issue.create',
    subject: 'ENG-42',
    timestamped: true,
    signsBody: true,
    body: (_id, now) => ({ action: 'create', type: 'Issue', data: { id: 'a1b2', identifier: 'ENG-42', title: 'Crash on start' }, webhookTimestamp: now.getTime() }),
  },
  {
    provider: 'vercel',
    eventType: 'deployment.succeeded',
    subject: null,
    timestamped: false,
    signsBody: true,
    body: (id) => ({ id, type: 'deployment.succeeded', createdAt: 1_700_000_000_000, payload: { deployment: { id: 'dpl_1', url: 'app.vercel.app' } } }),
  },
  {
    provider: 'sentry',
    eventType: 'issue.created',
    subject: null,
    timestamped: false,
    signsBody: true,
    body: () => ({ action: 'created', installation: { uuid: 'inst-1' }, data: { issue: { id: '1', title: 'TypeError' } } }),
  },
  {
    provider: 'slack',
    eventType: 'app_mention',
    subject: null,
    timestamped: true,
    signsBody: true,
    body: (id) => ({ type: 'event_callback', team_id: 'T1', event_id: id, event: { type: 'app_mention', text: '<@U1> deploy', channel: 'C1' } }),
  },
  { provider: 'standard', eventType: 'invoice.paid', subject: null, timestamped: true, signsBody: true, body: () => ({ type: 'invoice.paid', data: { invoice: 'in_1' } }) },
];

/**
 * The headers `provider` sends with `body`, signed with `secret` at `now`. `eventType` is the
 * event svc should read, where a header carries it (GitHub's event name, Sentry's resource).
 */
export async function signDelivery(provider: ConnectionProvider, secret: string, body: string, opts: { now: Date; deliveryId: string; eventType: string }): Promise<Record<string, string>> {
  const { now, deliveryId, eventType } = opts;
  const seconds = String(Math.floor(now.getTime() / 1000));
  const json = { 'content-type': 'application/json' };
  switch (provider) {
    case 'github':
      return { ...json, 'x-github-event': eventType.split('.')[0]!, 'x-github-delivery': deliveryId, 'x-hub-signature-256': await githubSign(secret, body) };
    case 'gitlab':
      return { ...json, 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-event-uuid': deliveryId, 'x-gitlab-token': secret };
    case 'linear':
      return { ...json, 'linear-delivery': deliveryId, 'linear-event': 'Issue', 'linear-signature': hex('sha256', secret, body) };
    case 'vercel':
      return { ...json, 'x-vercel-signature': hex('sha1', secret, body) };
    case 'sentry':
      return { ...json, 'sentry-hook-resource': eventType.split('.')[0]!, 'request-id': deliveryId, 'sentry-hook-timestamp': seconds, 'sentry-hook-signature': hex('sha256', secret, body) };
    case 'slack':
      return { ...json, 'x-slack-request-timestamp': seconds, 'x-slack-signature': `v0=${hex('sha256', secret, `v0:${seconds}:${body}`)}` };
    case 'standard':
      return { ...json, 'webhook-id': deliveryId, 'webhook-timestamp': seconds, 'webhook-signature': new Webhook(secret).sign(deliveryId, now, body) };
  }
}

/** The header that carries the signature (or GitLab's token), for a test that drops or breaks it. */
export const SIGNATURE_HEADER: Readonly<Record<ConnectionProvider, string>> = {
  github: 'x-hub-signature-256',
  gitlab: 'x-gitlab-token',
  linear: 'linear-signature',
  vercel: 'x-vercel-signature',
  sentry: 'sentry-hook-signature',
  slack: 'x-slack-signature',
  standard: 'webhook-signature',
};

/** A whole delivery of `c`, its body pretty-printed as providers send them. */
export async function deliveryOf(c: ProviderCase, secret: string, opts: { now: Date; deliveryId: string }): Promise<Delivery> {
  const body = JSON.stringify(c.body(opts.deliveryId, opts.now), null, 2);
  return { body, headers: await signDelivery(c.provider, secret, body, { ...opts, eventType: c.eventType }) };
}
