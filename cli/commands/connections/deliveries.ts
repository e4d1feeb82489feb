import type { DeliveryDto } from '../../../shared/schemas/connections.js';
import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { deliveryColumns } from '../../connections/render.js';
import { plural } from '../../lib/format.js';
import { listRows, noteMorePages, PAGE_OPTIONS, type PageOptions } from '../../lib/pages.js';

interface DeliveriesOptions extends PageOptions, Record<string, unknown> {}

export const command = defineCommand<{ id: string }, DeliveriesOptions>({
  name: 'connections deliveries',
  description: "List a connection's recent deliveries, newest first, rejected ones too, each with its reason",
  args: [{ name: 'id', description: 'connection id', required: true }],
  options: PAGE_OPTIONS,
  examples: [
    { description: 'Why did my webhook not start anything?', command: 'svc connections deliveries 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10' },
    { description: 'Only the rejected ones, with jq', command: "svc connections deliveries 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10 --all --json | jq '.[] | select(.status == \"rejected\")'" },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client();
    const path = apiPath`/teams/${await ctx.team()}/connections/${args.id}/deliveries`;
    const { rows, next } = await listRows<DeliveryDto>(client, path, {}, opts);
    ctx.out.result(rows, () => ctx.out.table(rows, deliveryColumns(ctx.io.stdout.isTTY), { empty: 'No deliveries yet.' }));
    const rejected = rows.filter((d) => d.status === 'rejected').length;
    if (rejected > 0 && !ctx.out.json) ctx.out.warn(`${plural(rejected, 'delivery', 'deliveries')} of ${rows.length} rejected: the reason says what to fix in the provider's settings.`);
    noteMorePages(ctx.out, next);
  },
});
