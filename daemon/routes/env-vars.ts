// Team environment variables (spec §4.6-4.7, CONTRACT §7).
import Type from 'typebox';
import { Data, EnvSelectorQuery, EnvVar, EnvVarParams, NoBody, PutEnvVarBody, Success, TeamIdParams } from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

const config = { auth: 'team' as const };
const tags = ['env-vars'];

export function envVarRoutes(app: App, { envVars }: Services): void {
  // The spec names this path's parameter {id} (the team id), and so does the OpenAPI document;
  // the slug is accepted too (the auth hook resolves either).
  app.get(
    '/teams/:id/env-vars',
    { config, schema: { tags, params: TeamIdParams, querystring: EnvSelectorQuery, response: { 200: Data(Type.Array(EnvVar)) } } },
    async (req) => ({ data: await envVars.list(req.team!.id, req.query) }),
  );

  app.put(
    '/teams/:teamSlug/env-vars/:name',
    { config, schema: { tags, params: EnvVarParams, querystring: EnvSelectorQuery, body: PutEnvVarBody, response: { 200: Data(EnvVar) } } },
    async (req) => {
      // An id wins over a slug wherever each was sent (spec §4.6); of two ids (or two slugs), the query's.
      return {
        data: await envVars.put(req.team!.id, req.params.name, {
          value: req.body.value,
          is_secret: req.body.is_secret,
          environment_id: req.query.environment_id ?? req.body.environment_id,
          environment_slug: req.query.environment_slug ?? req.body.environment_slug,
        }),
      };
    },
  );

  app.delete(
    '/teams/:teamSlug/env-vars/:name',
    { config, schema: { tags, params: EnvVarParams, querystring: EnvSelectorQuery, body: NoBody, response: { 200: Data(Success) } } },
    async (req) => ({ data: await envVars.delete(req.team!.id, req.params.name, req.query) }),
  );
}
