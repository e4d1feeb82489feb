import type { ConnectionDto } from '../../../shared/schemas/connections.js';
import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { connectionColumns } from '../../connections/render.js';
import { listRows, noteMorePages, PAGE_OPTIONS, type PageOptions } from '../../lib/pages.js';

interface ListOptions extends PageOptions, Record<string, unknown> {}

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'connections list',
  description: "List the team's connections (never their secrets)",
  options: PAGE_OPTIONS,
  examples: [
    { description: 'Every connection', command: 'svc connections list --all' },
    { description: 'As JSON, for a script', command: 'svc connections list --json' },
  ],
  async run(_args, opts, ctx) {
    const client = await ctx.client();
    const { rows, next } = await listRows<ConnectionDto>(client, apiPath`/teams/${await ctx.team()}/connections`, {}, opts);
    ctx.out.result(rows, () =>
      ctx.out.table(rows, connectionColumns(ctx.io.stdout.isTTY), { empty: 'No connections: create one with `svc connections create --provider P --name N`.' }),
    );
    noteMorePages(ctx.out, next);
  },
});
