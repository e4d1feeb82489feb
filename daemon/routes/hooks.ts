// Provider deliveries (CONTRACT §12): no bearer key, the provider's signature over the raw body is
// the authentication. These routes keep the body as bytes (a re-serialised parse would not verify),
// and take up to 5 MiB of it, so they live in a plugin of their own with its own body parser.
import Type from 'typebox';
import { MAX_DELIVERY_BYTES } from '../../shared/schemas/connections.js';
import { Data, EventResult, HookParams, SlackChallenge } from '../../shared/schemas/index.js';
import { afterHit, rateLimited, setRateHeaders } from '../auth/rate-limit.js';
import type { Clock } from '../clock.js';
import type { DeliveryBytes } from '../connections/receiver.js';
import type { DeliveryTarget } from '../connections/service.js';
import { ApiError } from '../errors.js';
import { refuseContentCoding } from '../http/json-body.js';
import type { App } from '../http/types.js';
import { receiveDelivery } from '../providers/receive.js';
import type { Services } from '../services.js';
import type { RateCounters } from '../store/store.js';
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface HookRouteDeps {
  services: Services;
  counters: RateCounters;
  clock: Clock;
  /** deliveries per minute per connection */
  deliveryRateLimit: number;
  /** the secret of the service's own GitHub App (SVC_GITHUB_WEBHOOK_SECRET): `POST /hooks/github` is open only with it */
  githubAppSecret?: string;
}

const tags = ['connections'];
const config = { auth: 'none' as const };
/** the event result, as `POST .../webhooks/events` answers; or Slack's challenge, answered back */
const response = { 200: Type.Union([Data(EventResult), SlackChallenge]) };

export async function hookRoutes(app: App, deps: HookRouteDeps): Promise<void> {
  // Every content type, as bytes: providers send JSON, but the signature covers the bytes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    try {
      refuseContentCoding(req.headers['content-encoding']);
      done(null, body);
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  const { connections, deliveries: receiver } = deps.services;

  // Registered before the parametric route, and matched first: a static path wins in the router.
  app.post('/hooks/github', { config, bodyLimit: MAX_DELIVERY_BYTES, schema: { tags, security: [], response } }, async (req, reply) => {
    if (!deps.githubAppSecret) throw new ApiError('NOT_FOUND', 'this daemon takes no service-managed GitHub deliveries: SVC_GITHUB_WEBHOOK_SECRET is unset');
    const outcome = await receiveDelivery('github', { ...bytesOf(req), secrets: [deps.githubAppSecret], now: deps.clock() });
    // Refused before routing: a delivery that does not verify names no connection worth trusting.
    if (outcome.kind === 'rejected') throw new ApiError(outcome.status === 401 ? 'UNAUTHORIZED' : 'VALIDATION_ERROR', outcome.reason);
    const installation = outcome.kind === 'event' ? installationIdOf(outcome.event.data) : null;
    if (installation === null) throw new ApiError('VALIDATION_ERROR', 'the delivery names no installation (installation.id): it cannot be routed to a connection');
    const target = await connections.forInstallation('github', installation);
    if (!target) throw new ApiError('NOT_FOUND', `no GitHub connection has external_id ${installation}`);
    await spendAllowance(target, reply);
    return receiver.settle(target, outcome);
  });

  app.post('/hooks/:connectionId', { config, bodyLimit: MAX_DELIVERY_BYTES, schema: { tags, security: [], params: HookParams, response } }, async (req, reply) => {
    const target = await connections.forDelivery(req.params.connectionId);
    if (!target) throw new ApiError('NOT_FOUND', 'connection not found: it was deleted, or the webhook URL is mistyped');
    await spendAllowance(target, reply);
    return receiver.receive(target, bytesOf(req));
  });

  /** Counts the delivery against its connection's limit, before any work; 429 once over. */
  async function spendAllowance(target: DeliveryTarget, reply: FastifyReply): Promise<void> {
    const window = afterHit(deps.deliveryRateLimit, await deps.counters.hit(`delivery:${target.connection.id}`));
    setRateHeaders(reply, window);
    if (!window.allowed) throw rateLimited(reply, window, deps.clock().getTime(), 'delivery rate limit exceeded for this connection');
  }
}

const bytesOf = (req: FastifyRequest): DeliveryBytes => ({
  rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
  headers: req.headers,
});

/** The GitHub App installation a delivery is for, as the connection's `external_id` spells it. */
function installationIdOf(body: Record<string, unknown>): string | null {
  const installation = body.installation;
  if (typeof installation !== 'object' || installation === null) return null;
  const id = (installation as Record<string, unknown>).id;
  return typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : null;
}
