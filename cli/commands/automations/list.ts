import type { AutomationDto } from '../../../shared/schemas/automations.js';
import { defineCommand } from '../../command.js';
import { listRows, noteMorePages, PAGE_OPTIONS, type PageOptions } from '../../lib/pages.js';
import { automationColumns } from '../../automations/render.js';
import { automationsPath } from '../../automations/resolve.js';
import { AUTOMATION_STATUSES } from '../../../shared/api-values.js';

interface ListOptions extends PageOptions, Record<string, unknown> {
  status?: string;
  type?: string;
}

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'automations list',
  description: "List the team's automations, newest first",
  options: [
    { flags: '--status <status>', description: 'only automations with this status', choices: AUTOMATION_STATUSES },
    { flags: '--type <type>', description: 'only schedule or event automations (by their first trigger)', choices: ['schedule', 'event'] },
    ...PAGE_OPTIONS,
  ],
  examples: [
    { description: 'The newest automations', command: 'svc automations list' },
    { description: 'Every paused automation, as JSON', command: 'svc automations list --status paused --all --json' },
    { description: 'Names of the event automations, for a script', command: "svc automations list --type event --all --json | jq -r '.[].name'" },
  ],
  async run(_args, opts, ctx) {
    const client = await ctx.client();
    const path = automationsPath(await ctx.team());
    const { rows, next } = await listRows<AutomationDto>(client, path, { status: opts.status, type: opts.type }, opts);
    ctx.out.result(rows, () => ctx.out.table(rows, automationColumns(ctx.io.stdout.isTTY), { empty: 'No automations.' }));
    noteMorePages(ctx.out, next);
  },
});
