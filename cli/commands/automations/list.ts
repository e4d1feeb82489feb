import type { AutomationDto } from '../../../shared/schemas/automations.js';
import { defineCommand, integer } from '../../command.js';
import { automationColumns } from '../../automations/render.js';
import { automationsPath } from '../../automations/resolve.js';
import { AUTOMATION_STATUSES } from '../../automations/spec.js';

interface ListOptions extends Record<string, unknown> {
  status?: string;
  type?: string;
  limit?: number;
  all?: boolean;
  cursor?: string;
}

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'automations list',
  description: "List the team's automations, newest first",
  options: [
    { flags: '--status <status>', description: 'only automations with this status', choices: AUTOMATION_STATUSES },
    { flags: '--type <type>', description: 'only schedule or event automations (by their first trigger)', choices: ['schedule', 'event'] },
    { flags: '--limit <n>', description: 'at most N per page (1-200, default 50)', parse: integer({ min: 1, max: 200 }) },
    { flags: '--all', description: 'every page, not only the first' },
    { flags: '--cursor <cursor>', description: 'the page after this cursor (printed on stderr when there are more)', conflicts: ['all'] },
  ],
  examples: [
    { description: 'The newest automations', command: 'svc automations list' },
    { description: 'Every paused automation, as JSON', command: 'svc automations list --status paused --all --json' },
    { description: 'Names of the event automations, for a script', command: "svc automations list --type event --all --json | jq -r '.[].name'" },
  ],
  async run(_args, opts, ctx) {
    const client = await ctx.client();
    const path = automationsPath(await ctx.team());
    const query = { status: opts.status, type: opts.type, limit: opts.limit, cursor: opts.cursor };
    let rows: AutomationDto[];
    let next: string | undefined;
    if (opts.all) {
      rows = await client.listAll<AutomationDto>(path, query);
    } else {
      const page = await client.list<AutomationDto>(path, query);
      rows = page.data;
      next = page.next_cursor;
    }
    ctx.out.result(rows, () => ctx.out.table(rows, automationColumns(ctx.io.stdout.isTTY), { empty: 'No automations.' }));
    if (next) ctx.out.status(`There are more: pass --all for every page, or --cursor ${next} for the next one.`);
  },
});
