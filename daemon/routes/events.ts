// Inbound events (spec §4.8, CONTRACT §3 and §6): send one, dry-run one, list what was received.
import { Data, EventResult, ListEventsQuery, Page, ReceivedEvent, SendEventBody, SendEventQuery, TeamSlugParams } from '../../shared/schemas/index.js';
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

  app.get(
    '/teams/:teamSlug/events',
    { config, schema: { tags, params: TeamSlugParams, querystring: ListEventsQuery, response: { 200: Page(ReceivedEvent) } } },
    async (req) => events.list(req.team!.id, req.query),
  );
}
