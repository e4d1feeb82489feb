import { apiPath } from '../../../shared/client.js';
import type { SessionDto } from '../../../shared/schemas/sessions.js';
import { defineCommand } from '../../command.js';
import { listRows, noteMorePages, PAGE_OPTIONS, type PageOptions } from '../../lib/pages.js';
import { runColumns } from '../../automations/render.js';
import { resolveAutomationId } from '../../automations/resolve.js';

interface RunsOptions extends PageOptions, Record<string, unknown> {
  status?: string;
}

export const command = defineCommand<{ automation: string }, RunsOptions>({
  name: 'automations runs',
  description: 'List the sessions an automation started, newest first',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  options: [
    { flags: '--status <status>', description: 'only sessions with this status', choices: ['queued', 'running', 'completed', 'failed', 'cancelled'] },
    ...PAGE_OPTIONS,
  ],
  examples: [
    { description: 'Recent runs of an automation', command: 'svc automations runs "Nightly report"' },
    { description: 'Failed runs, as JSON', command: 'svc automations runs "Nightly report" --status failed --all --json' },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client();
    const team = await ctx.team();
    const id = await resolveAutomationId(client, team, args.automation);
    const path = apiPath`/teams/${team}/automations/${id}/runs`;
    const { rows, next } = await listRows<SessionDto>(client, path, { status: opts.status }, opts);
    ctx.out.result(rows, () => ctx.out.table(rows, runColumns(ctx.io.stdout.isTTY), { empty: 'No runs yet.' }));
    noteMorePages(ctx.out, next);
  },
});
