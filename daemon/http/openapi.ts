// What every route's OpenAPI entry says beyond its own schema: routes without a key say so,
// error answers are the one envelope, and a body that may be left out is not `required`.
import type { FastifyInstance, RouteOptions } from 'fastify';
import { bodyMayBeAbsent } from './json-body.js';

const ERROR_RESPONSE = { description: 'the error envelope (docs/api.md, Errors)', $ref: 'ErrorEnvelope#' };

/** Call before the routes are registered: onRoute sees only routes added after it. */
export function documentRouteConventions(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as (Record<string, unknown> & { hide?: boolean; response?: Record<string, unknown> }) | undefined;
    if (!schema || schema.hide) return;
    const auth = (route.config as { auth?: string } | undefined)?.auth ?? 'none';
    if (auth === 'none') schema.security = [];
    schema.response = { '4xx': ERROR_RESPONSE, '5xx': ERROR_RESPONSE, ...schema.response };
  });
}

type Operation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } };
type Document = { paths?: Record<string, Record<string, Operation>> };

/** @fastify/swagger marks every body required; one whose fields are all optional may be left out. */
export function markOptionalBodies(doc: { openapiObject: Partial<object> } | { swaggerObject: Partial<object> }) {
  const document = ('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject) as Document;
  for (const methods of Object.values(document.paths ?? {})) {
    for (const op of Object.values(methods)) {
      const body = op?.requestBody;
      if (body && bodyMayBeAbsent(body.content?.['application/json']?.schema)) body.required = false;
    }
  }
  return document;
}
