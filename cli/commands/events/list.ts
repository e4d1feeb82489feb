import { apiPath } from '../../../shared/client.js';
import type { NormalisedEventDto, EventResultDto } from '../../../shared/schemas/events.js';
import { defineCommand, integer } from '../../command.js';
import { formatTime } from '../../lib/format.js';
import { type Column } from '../../output.js';

type ReceivedEvent = NormalisedEventDto & Pick<EventResultDto, 'accepted' | 'dispatched' | 'reason'>;

interface ListOptions extends Record<string, unknown> {
  type?: string;
  limit?: number;
  all?: boolean;
  cursor?: string;
}

function columns(tty: boolean): Column<ReceivedEvent>[] {
  return [
    { header: 'Received', value: (e) => formatTime(e.received_at, tty) },
    { header: 'ID', value: (e) => e.id, keep: true },
    { header: 'Event', value: (e) => `${e.provider}/${e.event_type}` },
    { header: 'Dispatched', value: (e) => e.dispatched.length, style: (s, c) => (s === '0' ? c.dim(s) : c.green(s)) },
    { header: 'Reason', value: (e) => e.reason },
  ];
}

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'events list',
  description: 'List the events the team received, newest first, with what each dispatched',
  options: [
    { flags: '--type <type>', description: 'only events of this type' },
    { flags: '--limit <n>', description: 'at most N per page (1-200, default 50)', parse: integer({ min: 1, max: 200 }) },
    { flags: '--all', description: 'every page, not only the first' },
    { flags: '--cursor <cursor>', description: 'the page after this cursor (printed on stderr when there are more)', conflicts: ['all'] },
  ],
  examples: [
    { description: 'Recent events', command: 'svc events list' },
    { description: 'The last 5 deploy events, as JSON', command: 'svc events list --type deploy.finished --limit 5 --json' },
  ],
  async run(_args, opts, ctx) {
    const client = await ctx.client();
    const path = apiPath`/teams/${await ctx.team()}/events`;
    const query = { event_type: opts.type, limit: opts.limit, cursor: opts.cursor };
    let rows: ReceivedEvent[];
    let next: string | undefined;
    if (opts.all) {
      rows = await client.listAll<ReceivedEvent>(path, query);
    } else {
      const page = await client.list<ReceivedEvent>(path, query);
      rows = page.data;
      next = page.next_cursor;
    }
    ctx.out.result(rows, () => ctx.out.table(rows, columns(ctx.io.stdout.isTTY), { empty: 'No events.' }));
    if (next) ctx.out.status(`There are more: pass --all for every page, or --cursor ${next} for the next one.`);
  },
});
