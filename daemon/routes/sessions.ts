// Team sessions (CONTRACT §3) and the follow-up of spec §4.2.
import {
  Data, FollowUpAccepted, FollowUpBody, ListSessionsQuery, Page, Session, SessionParams, SessionWithMessages, StartSessionBody,
  TeamSlugParams,
} from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';
import { requirePromptText } from '../text-checks.js';

const config = { auth: 'team' as const };
const tags = ['sessions'];

export function sessionRoutes(app: App, { sessions }: Services): void {
  app.post(
    '/teams/:teamSlug/sessions',
    { config, schema: { tags, params: TeamSlugParams, body: StartSessionBody, response: { 201: Data(Session) } } },
    async (req, reply) => {
      const teamId = req.team!.id;
      requirePromptText(req.body.prompt);
      const environmentId = req.body.environment_id ?? (await sessions.defaultEnvironmentId(teamId));
      const { session } = await sessions.start({ teamId, prompt: req.body.prompt, environmentId });
      return reply.status(201).send({ data: session });
    },
  );

  app.get(
    '/teams/:teamSlug/sessions',
    { config, schema: { tags, params: TeamSlugParams, querystring: ListSessionsQuery, response: { 200: Page(Session) } } },
    async (req) => sessions.list(req.team!.id, req.query),
  );

  app.get(
    '/teams/:teamSlug/sessions/:sessionId',
    { config, schema: { tags, params: SessionParams, response: { 200: Data(SessionWithMessages) } } },
    async (req) => ({ data: await sessions.get(req.team!.id, req.params.sessionId) }),
  );

  app.post(
    '/teams/:teamSlug/sessions/:sessionId/messages',
    { config, schema: { tags, params: SessionParams, body: FollowUpBody, response: { 202: Data(FollowUpAccepted) } } },
    async (req, reply) => {
      const accepted = await sessions.followUp(req.team!.id, req.params.sessionId, req.body.message);
      return reply.status(202).send({ data: accepted });
    },
  );
}
