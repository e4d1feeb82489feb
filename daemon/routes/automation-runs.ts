// Run an automation now, and list the sessions it started (CONTRACT §3).
// A paused or disabled automation can still be run by hand: pausing stops the scheduler and event
// dispatch, not its owner (as Temporal's "trigger now" works on a paused schedule).
import { AutomationParams, Data, ListRunsQuery, NoBody, Page, Session } from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

const config = { auth: 'team' as const };
const tags = ['automations'];

export function automationRunRoutes(app: App, { sessions }: Services): void {
  app.post(
    '/teams/:teamSlug/automations/:automationId/runs',
    { config, schema: { tags, params: AutomationParams, body: NoBody, response: { 201: Data(Session) } } },
    async (req, reply) => {
      const session = await sessions.runNow(req.team!.id, req.params.automationId);
      return reply.status(201).send({ data: session });
    },
  );

  app.get(
    '/teams/:teamSlug/automations/:automationId/runs',
    { config, schema: { tags, params: AutomationParams, querystring: ListRunsQuery, response: { 200: Page(Session) } } },
    async (req) => {
      const teamId = req.team!.id;
      return sessions.listRuns(teamId, req.params.automationId, req.query);
    },
  );
}
