// Connections (CONTRACT §12): a team's links to provider accounts, their secrets and delivery logs.
import {
  Connection,
  ConnectionParams,
  ConnectionWithSecret,
  CreateConnectionBody,
  Data,
  Delivery,
  ListDeliveriesQuery,
  NoBody,
  Page,
  RotateSecretBody,
  Success,
  TeamSlugParams,
} from '../../shared/schemas/index.js';
import { requestApiBase } from '../connections/api-base.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

const config = { auth: 'team' as const };
const tags = ['connections'];
/** `?limit`, `?cursor`: the same page query as the deliveries'. */
const ListConnectionsQuery = ListDeliveriesQuery;

export function connectionRoutes(app: App, { connections, publicApiBase }: Services): void {
  /** The API base a webhook_url starts with: `--public-url`'s, else the one this request reached. */
  const apiBase = (req: { protocol: string; host: string }) => publicApiBase ?? requestApiBase(req);

  app.post(
    '/teams/:teamSlug/connections',
    { config, schema: { tags, params: TeamSlugParams, body: CreateConnectionBody, response: { 201: Data(ConnectionWithSecret) } } },
    async (req, reply) => reply.status(201).send({ data: await connections.create(req.team!.id, req.body, apiBase(req)) }),
  );

  app.get(
    '/teams/:teamSlug/connections',
    { config, schema: { tags, params: TeamSlugParams, querystring: ListConnectionsQuery, response: { 200: Page(Connection) } } },
    async (req) => connections.list(req.team!.id, apiBase(req), req.query),
  );

  app.get(
    '/teams/:teamSlug/connections/:id',
    { config, schema: { tags, params: ConnectionParams, response: { 200: Data(Connection) } } },
    async (req) => ({ data: await connections.get(req.team!.id, req.params.id, apiBase(req)) }),
  );

  app.post(
    '/teams/:teamSlug/connections/:id/secret',
    { config, schema: { tags, params: ConnectionParams, body: RotateSecretBody, response: { 200: Data(ConnectionWithSecret) } } },
    async (req) => ({ data: await connections.rotateSecret(req.team!.id, req.params.id, req.body, apiBase(req)) }),
  );

  app.delete(
    '/teams/:teamSlug/connections/:id',
    { config, schema: { tags, params: ConnectionParams, body: NoBody, response: { 200: Data(Success) } } },
    async (req) => ({ data: await connections.delete(req.team!.id, req.params.id) }),
  );

  app.get(
    '/teams/:teamSlug/connections/:id/deliveries',
    { config, schema: { tags, params: ConnectionParams, querystring: ListDeliveriesQuery, response: { 200: Page(Delivery) } } },
    async (req) => connections.deliveries(req.team!.id, req.params.id, req.query),
  );
}
