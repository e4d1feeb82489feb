// Team automations (spec §4.3-4.5, CONTRACT §3-4).
import {
  Automation, AutomationParams, CreateAutomationBody, Data, ListAutomationsQuery, NoBody, Page, Success, TeamSlugParams,
  UpdateAutomationBody,
} from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

const config = { auth: 'team' as const };
const tags = ['automations'];

export function automationRoutes(app: App, { automations }: Services): void {
  app.post(
    '/teams/:teamSlug/automations',
    { config, schema: { tags, params: TeamSlugParams, body: CreateAutomationBody, response: { 201: Data(Automation) } } },
    async (req, reply) => reply.status(201).send({ data: await automations.create(req.team!.id, req.body) }),
  );

  app.get(
    '/teams/:teamSlug/automations',
    { config, schema: { tags, params: TeamSlugParams, querystring: ListAutomationsQuery, response: { 200: Page(Automation) } } },
    async (req) => automations.list(req.team!.id, req.query),
  );

  app.get(
    '/teams/:teamSlug/automations/:automationId',
    { config, schema: { tags, params: AutomationParams, response: { 200: Data(Automation) } } },
    async (req) => ({ data: await automations.get(req.team!.id, req.params.automationId) }),
  );

  // PUT is the spec's compatibility alias of PATCH: both are partial updates.
  for (const method of ['PUT', 'PATCH'] as const) {
    app.route({
      method,
      url: '/teams/:teamSlug/automations/:automationId',
      config,
      schema: { tags, params: AutomationParams, body: UpdateAutomationBody, response: { 200: Data(Automation) } },
      handler: async (req) => ({ data: await automations.update(req.team!.id, req.params.automationId, req.body ?? {}) }),
    });
  }

  app.delete(
    '/teams/:teamSlug/automations/:automationId',
    { config, schema: { tags, params: AutomationParams, body: NoBody, response: { 200: Data(Success) } } },
    async (req) => ({ data: await automations.delete(req.team!.id, req.params.automationId) }),
  );
}
