// Inbound events (spec §4.8, CONTRACT §3, §6 and §12): send one, dry-run one, list what was received,
// replay one.
import { Data, EventResult, ListEventsQuery, NoBody, Page, ReceivedEvent, ReplayParams, SendEventBody, SendEventQuery, TeamSlugParams } from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { Services } from '../services.js';

const config = { auth: 'team' as const };
const tags = ['events'];

export function eventRoutes(app: App, { events }: Services): void {
  app.post(
    '/teams/:teamSlug/webhooks/events',
    { config, schema: { tags, params: TeamSlugParams, querystring: SendEventQuery, body: SendEventBody, response: { 200: Data(EventResult) } } },
    async (req) => {
      const dryRun = req.query.dry_run === 'true' || req.query.dry_run === '1';
      return { data: await events.send(req.team!, req.body, { dryRun }) };
    },
  );

  app.post(
    '/teams/:teamSlug/events/:eventId/replay',
    { config, schema: { tags, params: ReplayParams, querystring: SendEventQuery, body: NoBody, response: { 200: Data(EventResult) } } },
    async (req) => {
      const dryRun = req.query.dry_run === 'true' || req.query.dry_run === '1';
      return { data: await events.replay(req.team!, req.params.eventId, { dryRun }) };
    },
  );

  app.get(
    '/teams/:teamSlug/events',
    { config, schema: { tags, params: TeamSlugParams, querystring: ListEventsQuery, response: { 200: Page(ReceivedEvent) } } },
    async (req) => events.list(req.team!.id, req.query),
  );
}
