// Team-scoped routes. Each resource has its own module; this one wires them and holds the
// small ones (environments).
import Type from 'typebox';
import { Data, Environment, TeamSlugParams } from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';
import { automationRunRoutes } from './automation-runs.js';
import { automationRoutes } from './automations.js';
import { connectionRoutes } from './connections.js';
import { envVarRoutes } from './env-vars.js';
import { eventRoutes } from './events.js';
import { sessionRoutes } from './sessions.js';
import { skillRoutes } from './skills.js';

export const teamAuth = { auth: 'team' as const };

export function teamRoutes(app: App, services: Services): void {
  automationRoutes(app, services);
  envVarRoutes(app, services);
  sessionRoutes(app, services);
  eventRoutes(app, services);
  automationRunRoutes(app, services);
  skillRoutes(app, services);
  connectionRoutes(app, services);
  app.get(
    '/teams/:teamSlug/environments',
    { config: teamAuth, schema: { tags: ['environments'], params: TeamSlugParams, response: { 200: Data(Type.Array(Environment)) } } },
    async (req) => ({ data: await services.teams.listEnvironments(req.team!.id) }),
  );
}
