import { apiPath } from '../../../shared/client.js';
import type { SessionDto } from '../../../shared/schemas/sessions.js';
import { defineCommand, integer } from '../../command.js';
import { runColumns } from '../../automations/render.js';
import { resolveAutomationId } from '../../automations/resolve.js';

interface RunsOptions extends Record<string, unknown> {
  status?: string;
  limit?: number;
  all?: boolean;
  cursor?: string;
}

export const command = defineCommand<{ automation: string }, RunsOptions>({
  name: 'automations runs',
  description: 'List the sessions an automation started, newest first',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  options: [
    { flags: '--status <status>', description: 'only sessions with this status', choices: ['queued', 'running', 'completed', 'failed', 'cancelled'] },
    { flags: '--limit <n>', description: 'at most N per page (1-200, default 50)', parse: integer({ min: 1, max: 200 }) },
    { flags: '--all', description: 'every page, not only the first' },
    { flags: '--cursor <cursor>', description: 'the page after this cursor (printed on stderr when there are more)', conflicts: ['all'] },
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
    const query = { status: opts.status, limit: opts.limit, cursor: opts.cursor };
    let rows: SessionDto[];
    let next: string | undefined;
    if (opts.all) {
      rows = await client.listAll<SessionDto>(path, query);
    } else {
      const page = await client.list<SessionDto>(path, query);
      rows = page.data;
      next = page.next_cursor;
    }
    ctx.out.result(rows, () => ctx.out.table(rows, runColumns(ctx.io.stdout.isTTY), { empty: 'No runs yet.' }));
    if (next) ctx.out.status(`There are more: pass --all for every page, or --cursor ${next} for the next one.`);
  },
});
