import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { confirmOrCancel } from '../../lib/confirm.js';
import { PROJECT_OPTION, resolveProjectId } from '../../lib/project-id.js';
import { type ProjectSchedule } from './schedules-list.js';

interface DeleteOptions extends Record<string, unknown> {
  project?: string;
  yes?: boolean;
}

export const command = defineCommand<{ scheduleId: string }, DeleteOptions>({
  name: 'projects schedules delete',
  description: 'Delete a schedule of a project; an automation losing its last trigger goes with it',
  args: [{ name: 'schedule-id', description: 'schedule (trigger) id, from `svc projects schedules list`', required: true }],
  options: [{ flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' }, PROJECT_OPTION],
  examples: [
    { description: 'Delete a schedule, after a confirmation', command: 'svc projects schedules delete 9a41…' },
    { description: 'From a script', command: 'svc projects schedules delete 9a41… --yes --json' },
  ],
  async run(args, opts, ctx) {
    const id = await resolveProjectId(ctx, opts.project);
    const client = await ctx.client('project');
    if (!opts.yes) {
      let question = `Delete schedule ${args.scheduleId}?`;
      // Say what goes with it before asking (only when someone can be asked: no needless request).
      if (ctx.canPrompt) {
        const schedules = await client.get<ProjectSchedule[]>(apiPath`/projects/${id}/schedules`);
        const target = schedules.find((s) => s.id === args.scheduleId);
        if (target) {
          const only = !schedules.some((s) => s.id !== target.id && s.automation_id === target.automation_id);
          question = `Delete schedule ${args.scheduleId} of automation '${target.automation_name}'?`;
          if (only) question += ' (If the automation has no other trigger, it is deleted too.)';
        }
      }
      await confirmOrCancel(ctx, false, question);
    }
    const result = await client.delete<{ success: true; automation_deleted: boolean }>(apiPath`/projects/${id}/schedules/${args.scheduleId}`);
    ctx.out.success(
      result.automation_deleted
        ? `Deleted schedule ${args.scheduleId}; it was its automation's last trigger, so the automation was deleted too.`
        : `Deleted schedule ${args.scheduleId}.`,
    );
    if (ctx.out.json) ctx.out.printJson(result);
  },
});
