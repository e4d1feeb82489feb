// What every route's OpenAPI entry says beyond its own schema: routes without a key say so,
// error answers are the one envelope, a body that may be left out is not `required`, and the
// headers every answer carries, and page sizes as the integers clients send.
import type { FastifyInstance, RouteOptions } from 'fastify';
import { bodyMayBeAbsent } from './json-body.js';
import { OPERATIONS } from './operations.js';
import { DEFAULT_LIMIT, MAX_LIMIT } from './pagination.js';

const ERROR_RESPONSE = { description: 'the error envelope (docs/api.md, Errors)', $ref: 'ErrorEnvelope#' };

/** One bearer scheme per kind of credential, so a client knows which token each operation takes. */
export const SECURITY_SCHEMES = {
  adminToken: { type: 'http' as const, scheme: 'bearer', description: "the daemon's admin token (svc_admin_…, in DATA_DIR/admin-token)" },
  teamKey: { type: 'http' as const, scheme: 'bearer', description: 'a team API key (svc_team_…), for the routes of its team' },
  projectKey: { type: 'http' as const, scheme: 'bearer', description: 'a project API key (svc_proj_…), for the routes of its project' },
};
const SCHEME_OF: Record<string, keyof typeof SECURITY_SCHEMES> = { admin: 'adminToken', team: 'teamKey', project: 'projectKey' };

/** Call before the routes are registered: onRoute sees only routes added after it. */
export function documentRouteConventions(app: FastifyInstance, prefix: string): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as (Record<string, unknown> & { hide?: boolean; response?: Record<string, unknown>; operationId?: string; summary?: string }) | undefined;
    if (!schema || schema.hide) return;
    const auth = (route.config as { auth?: string } | undefined)?.auth ?? 'none';
    schema.security = auth === 'none' ? [] : [{ [SCHEME_OF[auth]]: [] }];
    const operation = OPERATIONS[`${route.method} ${route.url.slice(prefix.length)}`];
    if (operation) [schema.operationId, schema.summary] = operation;
    schema.response = { '4xx': ERROR_RESPONSE, '5xx': ERROR_RESPONSE, ...schema.response };
  });
}

type Response = { description?: string; headers?: Record<string, unknown>; content?: unknown };
type Parameter = { in?: string; name?: string; schema?: unknown };
type Operation = {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; description?: string; content?: Record<string, { schema?: unknown }> };
  security?: unknown[];
  responses?: Record<string, Response>;
};
type Document = { paths?: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> };

/** Answers made before a key was counted carry no rate headers. */
const UNCOUNTED =
  '; absent on a 401 to a missing, unknown or revoked key (a valid key of another kind than the route takes is counted, and its 401 carries them) and on the 429 of too many failed authentications from one address';

/** The response headers docs/api.md promises, declared once and referred to by each response. */
const HEADERS = {
  'X-Request-Id': { description: 'the id of this request, also in the daemon\'s log line for it; a 500 names it', schema: { type: 'string', format: 'uuid' } },
  'X-RateLimit-Limit': { description: `requests the key may make in the current one-minute window${UNCOUNTED}`, schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: `requests left to the key in the current window${UNCOUNTED}`, schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: `when the current window ends, in Unix seconds${UNCOUNTED}`, schema: { type: 'integer' } },
  'Retry-After': { description: 'seconds until a request may succeed again', schema: { type: 'integer', minimum: 1 } },
};
const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];
const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/**
 * Finishes the document @fastify/swagger builds from the route schemas with what those cannot
 * say: which bodies may be left out, and the headers every answer carries.
 */
export function completeDocument(doc: { openapiObject: Partial<object> } | { swaggerObject: Partial<object> }) {
  const document = ('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as Document;
  document.components = { ...document.components, headers: HEADERS };
  for (const methods of Object.values(document.paths ?? {})) {
    for (const op of Object.values(methods)) {
      markOptionalBody(op);
      describeRawBody(op);
      declareResponseHeaders(op);
      declareLimitsAsIntegers(op);
    }
  }
  nameTitledSchemas(document);
  return document;
}

/**
 * Provider deliveries are read as bytes (their signature covers the bytes), so no body schema
 * validates them and none reaches the document: it says here what they take.
 */
const RAW_BODY_OPERATIONS = new Set(['deliverToConnection', 'deliverGitHubApp']);
function describeRawBody(op: Operation): void {
  if (!op.operationId || !RAW_BODY_OPERATIONS.has(op.operationId)) return;
  op.requestBody = {
    required: true,
    description: "the provider's delivery exactly as it sent it (at most 5 MiB), with its signature headers (docs/providers.md)",
    content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
  };
}

/**
 * The shared shapes (Automation, Trigger, Session, ...: the schemas in shared/ that carry a
 * `title`) become `components.schemas`, referred to wherever they appear, so generated clients
 * get one named type for each rather than an anonymous copy per route. A title met again with
 * another shape (none is, today) stays inline there rather than be misnamed.
 */
function nameTitledSchemas(document: Document): void {
  const named = ((document.components ??= {}).schemas ??= {}) as Record<string, unknown>;
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, visit(v)]));
    const title = (node as { title?: unknown }).title;
    if (typeof title !== 'string' || !/^[A-Z][A-Za-z]*$/.test(title)) return out;
    // A nullable use (Session.event) names the shape itself; the null stays with the use, as a
    // second choice beside the reference. OpenAPI 3.0 ignores whatever sits next to a bare $ref,
    // and `nullable` beside an allOf still fails the referenced non-nullable shape for null (strict
    // validators refused real sessions): only `{type, nullable, enum: [null]}` admits null alone.
    const { nullable, ...shape } = out as { nullable?: boolean; type?: string };
    const known = named[title];
    if (known === undefined) named[title] = shape;
    else if (JSON.stringify(known) !== JSON.stringify(shape)) return out;
    const ref = { $ref: `#/components/schemas/${title}` };
    return nullable ? { anyOf: [ref, { type: shape.type, nullable: true, enum: [null] }] } : ref;
  };
  document.paths = visit(document.paths) as Document['paths'];
}

/** @fastify/swagger marks every body required; one whose fields are all optional may be left out. */
function markOptionalBody(op: Operation): void {
  const body = op.requestBody;
  if (body && bodyMayBeAbsent(body.content?.['application/json']?.schema)) body.required = false;
}

/**
 * A query's `limit` arrives as text, so validation checks it as a string of digits and the range
 * with a message of its own (see QueryLimit); a client sees what it may send: an integer, 1-200.
 */
function declareLimitsAsIntegers(op: Operation): void {
  for (const p of op.parameters ?? []) {
    if (p.in === 'query' && p.name === 'limit') p.schema = { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT };
  }
}

/**
 * Every answer has X-Request-Id. An answer to a route that takes a key has the rate headers
 * (CONTRACT §9; not a 401, whose key was not counted), and one more status: 429 with
 * Retry-After, over the key's limit or after too many failed authentications.
 */
function declareResponseHeaders(op: Operation): void {
  const keyed = op.security !== undefined && op.security.length > 0;
  const responses = (op.responses ??= {});
  if (keyed) responses['429'] ??= { ...responses['4XX'], description: 'rate limited (docs/api.md, Rate limit): the error envelope, code RATE_LIMITED' };
  for (const [status, response] of Object.entries(responses)) {
    const names = ['X-Request-Id', ...(keyed ? RATE_HEADERS : []), ...(status === '429' ? ['Retry-After'] : [])];
    response.headers = { ...response.headers, ...Object.fromEntries(names.map((n) => [n, ref(n)])) };
  }
}
