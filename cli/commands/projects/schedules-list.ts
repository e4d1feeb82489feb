import { apiPath } from '../../../shared/client.js';
import type { TriggerDto } from '../../../shared/schemas/automations.js';
import { defineCommand } from '../../command.js';
import { formatTime, yesNo } from '../../lib/format.js';
import { PROJECT_OPTION, resolveProjectId } from '../../lib/project-id.js';

interface ListOptions extends Record<string, unknown> {
  project?: string;
}

export type ProjectSchedule = TriggerDto & { automation_name: string };

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'projects schedules list',
  description: "List the schedules of automations in a project's environments (with a project key)",
  options: [PROJECT_OPTION],
  examples: [{ description: 'Every schedule of the project', command: 'svc projects schedules list' }],
  async run(_args, opts, ctx) {
    const id = await resolveProjectId(ctx, opts.project);
    const client = await ctx.client('project');
    const schedules = await client.get<ProjectSchedule[]>(apiPath`/projects/${id}/schedules`);
    if (ctx.out.json) return ctx.out.printJson(schedules);
    const tty = ctx.io.stdout.isTTY;
    ctx.out.table(
      schedules,
      [
        { header: 'ID', value: (s) => s.id, keep: true },
        { header: 'Automation', value: (s) => s.automation_name },
        { header: 'When', value: (s) => s.cron_expression ?? (s.one_off_at ? `once at ${s.one_off_at}` : null) },
        { header: 'Timezone', value: (s) => s.timezone },
        { header: 'Next run', value: (s) => formatTime(s.next_run_at, tty) },
        { header: 'Enabled', value: (s) => yesNo(s.enabled) },
        { header: 'Status', value: (s) => s.status },
      ],
      { empty: 'No schedules in this project.' },
    );
  },
});
