import { apiPath } from '../../../shared/client.js';
import type { NormalisedEventDto, EventResultDto } from '../../../shared/schemas/events.js';
import { defineCommand } from '../../command.js';
import { listRows, noteMorePages, PAGE_OPTIONS, type PageOptions } from '../../lib/pages.js';
import { formatTime } from '../../lib/format.js';
import { type Column } from '../../output.js';

type ReceivedEvent = NormalisedEventDto & Pick<EventResultDto, 'accepted' | 'dispatched' | 'reason'>;

interface ListOptions extends PageOptions, Record<string, unknown> {
  type?: string;
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
    ...PAGE_OPTIONS,
  ],
  examples: [
    { description: 'Recent events', command: 'svc events list' },
    { description: 'The last 5 deploy events, as JSON', command: 'svc events list --type deploy.finished --limit 5 --json' },
  ],
  async run(_args, opts, ctx) {
    const client = await ctx.client();
    const path = apiPath`/teams/${await ctx.team()}/events`;
    const { rows, next } = await listRows<ReceivedEvent>(client, path, { event_type: opts.type }, opts);
    ctx.out.result(rows, () => ctx.out.table(rows, columns(ctx.io.stdout.isTTY), { empty: 'No events.' }));
    noteMorePages(ctx.out, next);
  },
});
