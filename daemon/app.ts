// Builds the Fastify app: plugins, auth, error envelope, routes. It never listens; server.ts does.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { registerAuth, type UnroutedCharge } from './auth/authenticate.js';
import { openRateCounters } from './auth/rate-limit.js';
import type { Clock } from './clock.js';
import { ApiError } from './errors.js';
import type { Logger } from './logger.js';
import { countRequests } from './metrics/http.js';
import type { DaemonMetrics } from './metrics/metrics.js';
import { answerClientError, answerConnect, answerFrameworkError, answerUnmetExpectation, MAX_PARAM_LENGTH, registerErrorHandling } from './http/error-handler.js';
import { bodyMayBeAbsent, carriesBody, parseJsonBody, parseNonJsonBody, refuseContentCoding } from './http/json-body.js';
import { lowerCaseBodyUuids, lowerCaseUuids, UUID_TEXT } from './http/uuid-case.js';
import { sharedSchemaCompilers } from './http/schema-compilers.js';
import { completeDocument, documentRouteConventions, SECURITY_SCHEMES } from './http/openapi.js';
import type { App } from './http/types.js';
import { adminRoutes } from './routes/admin.js';
import { API_VERSION, metaRoutes } from './routes/meta.js';
import { hookRoutes } from './routes/hooks.js';
import { metricsRoutes } from './routes/metrics.js';
import { projectRoutes } from './routes/projects.js';
import { teamRoutes } from './routes/teams.js';
import type { Services } from './services.js';
import type { Store } from './store/store.js';
import { newId } from './store/new-id.js';
import { ErrorBody, NoQuery } from '../shared/schemas/index.js';

export const API_PREFIX = '/api/v1';
export const BODY_LIMIT = 1024 * 1024;
/** How long a client may take to send a whole request, headers and body. */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface AppDeps {
  store: Store;
  services: Services;
  clock: Clock;
  adminToken: string;
  rateLimit: number;
  adminRateLimit: number;
  authFailureLimit: number;
  /** provider deliveries per minute per connection */
  deliveryRateLimit: number;
  /** the service's own GitHub App's webhook secret: `POST /hooks/github` is open only with it */
  githubAppSecret?: string;
  logger: Logger;
  /** this daemon's id: what it writes as `lease_owner`, and `/health` shows */
  instanceId: string;
  /** this daemon's series, served by GET /metrics */
  metrics: DaemonMetrics;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  // Set once auth is registered; framework errors can only come once the app listens.
  let unrouted: UnroutedCharge | undefined;
  const app = Fastify({
    loggerInstance: deps.logger as unknown as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT,
    // A request must arrive whole within this (Fastify's default is no limit): a client that
    // stalls its body gets 408 rather than holding a connection and a parser forever.
    requestTimeout: REQUEST_TIMEOUT_MS,
    genReqId: newId,
    schemaController: sharedSchemaCompilers,
    ajv: {
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false },
      // ajv-formats' uuid also takes `urn:uuid:...`, which then found no row (every id was a
      // silent 404 or an empty list): an id is the bare UUID, in either case.
      onCreate: (ajv: { addFormat(name: string, format: RegExp): unknown }) => ajv.addFormat('uuid', UUID_TEXT),
    },
    // Requests that arrive while the daemon stops are answered by the onRequest hook below, in
    // the envelope; Fastify's own 503 has a body of another shape.
    return503OnClosing: false,
    // `/automations/` is the collection, not an item with an empty id (a 400 naming automationId).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
    frameworkErrors: (err, req, reply) => void answerFrameworkError(err, req, reply, (r, rep) => unrouted?.countUnrouted(r, rep) ?? Promise.resolve()),
    clientErrorHandler: answerClientError,
    // Node answers an HTTP/1.1 request without Host with a bare 400; the hook below answers it
    // in the envelope instead.
    http: { requireHostHeader: false },
    // RFC 9112 §3.2.2: a server must take a request target in absolute form
    // (`GET http://host/api/v1/health`, as proxies send it); routing needs its path.
    rewriteUrl: (req) => originForm(req.url ?? '/'),
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;

  // An empty body on a JSON request is "no body", so `curl -X POST -H 'content-type: application/json'`
  // on a route without a body works.
  const parser = (parse: (text: string) => unknown) => (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    try {
      refuseContentCoding(req.headers['content-encoding']);
      done(null, parse(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, parser(parseJsonBody));
  // Every other type (text/plain's built-in parser included): an empty body is no body too.
  app.addContentTypeParser(['text/plain', '*'], { parseAs: 'string', bodyLimit: BODY_LIMIT }, parser(parseNonJsonBody));

  app.addHook('preValidation', (req, _reply, done) => {
    // Fastify reads no body on GET or HEAD: a selector sent there was dropped without a word,
    // and the list covered more than asked (after authentication, as a bad body is elsewhere).
    if ((req.method === 'GET' || req.method === 'HEAD') && carriesBody(req.headers)) {
      done(new ApiError('VALIDATION_ERROR', `a ${req.method} request takes no body: send selectors in the query string`));
      return;
    }
    if (req.body === undefined && bodyMayBeAbsent(req.routeOptions.schema?.body)) req.body = {};
    lowerCaseUuids(req.params);
    lowerCaseUuids(req.query);
    req.body = lowerCaseBodyUuids(req.routeOptions.schema?.body, req.body);
    done();
  });

  // Set first, so every answer carries it, errors included (a synchronous hook: no promise per request).
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id);
    if (closing) {
      // 503, not 500: nothing went wrong, and a client may retry once the daemon is back.
      reply.status(503).send({ error: { code: 'INTERNAL_ERROR', message: 'the daemon is shutting down; retry once it is running again' } });
      return;
    }
    if (req.headers.host === undefined && req.raw.httpVersion === '1.1') {
      reply.header('connection', 'close').status(400).send({ error: { code: 'VALIDATION_ERROR', message: 'an HTTP/1.1 request must carry a Host header' } });
      return;
    }
    done();
  });

  registerErrorHandling(app as unknown as FastifyInstance);
  countRequests(app as unknown as FastifyInstance, deps.metrics);
  app.server.on('checkExpectation', answerUnmetExpectation);
  app.server.on('connect', answerConnect);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'svc team automation API', version: API_VERSION },
      servers: [{ url: API_PREFIX }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transformObject: completeDocument,
    // Shared schemas keep their $id as their component name (ErrorEnvelope, not def-0).
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  app.addSchema({ $id: 'ErrorEnvelope', ...ErrorBody });
  documentRouteConventions(app as unknown as FastifyInstance, API_PREFIX);
  // An API route without query parameters refuses unknown ones, as the routes with some do: a
  // mistyped `?limt=1` is 400 everywhere, rather than ignored here and refused there.
  app.addHook('onRoute', (route) => {
    const auth = (route.config as { auth?: string } | undefined)?.auth ?? 'none';
    if (route.schema && auth !== 'none') route.schema.querystring ??= NoQuery;
  });

  const counters = openRateCounters(deps.store, deps.clock);
  unrouted = registerAuth(app as unknown as FastifyInstance, { ...deps, counters });

  await app.register(
    async (api) => {
      const scoped = api as unknown as App;
      metaRoutes(scoped, deps.store, deps.instanceId);
      metricsRoutes(scoped, deps.metrics);
      adminRoutes(scoped, deps.services);
      teamRoutes(scoped, deps.services);
      // Deliveries take their bodies as bytes, under parsers of their own: a plugin of their own.
      await scoped.register(async (p) => hookRoutes(p as unknown as App, { ...deps, counters }));
      await scoped.register(async (p) => projectRoutes(p as unknown as App, deps.services));
    },
    { prefix: API_PREFIX },
  );

  return app;
}

/** The path and query of an absolute-form request target; any other target as it is. */
function originForm(target: string): string {
  if (target.startsWith('/') || !/^https?:\/\//i.test(target)) return target;
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return target;
  }
}
