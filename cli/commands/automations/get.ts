import type { AutomationDto } from '../../../shared/schemas/automations.js';
import { defineCommand, integer } from '../../command.js';
import { printAutomation } from '../../automations/render.js';
import { automationPath, resolveAutomationId } from '../../automations/resolve.js';
import { automationRuns, upcomingColumns } from '../../automations/schedule.js';

interface GetOptions extends Record<string, unknown> {
  next?: number;
}

export const command = defineCommand<{ automation: string }, GetOptions>({
  name: 'automations get',
  description: 'Show an automation, its triggers and, with --next, its next runs',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  options: [
    { flags: '--next <n>', description: 'also the next N runs, in each trigger\'s zone and in UTC (1-100)', parse: integer({ min: 1, max: 100 }) },
  ],
  examples: [
    { description: 'Show an automation by name', command: 'svc automations get "Nightly report"' },
    { description: 'When will it run next? (DST-correct, as the daemon computes it)', command: 'svc automations get 0b7c5e2e-5f0e-4d43-9a57-2d1f0c6f1a11 --next 5' },
    { description: 'Save it as a file for `svc automations apply`', command: 'svc automations get "Nightly report" --json > nightly.json' },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client();
    const team = await ctx.team();
    const id = await resolveAutomationId(client, team, args.automation);
    const a = await client.get<AutomationDto>(automationPath(team, id));
    if (opts.next === undefined) {
      ctx.out.result(a, () => printAutomation(ctx, a));
      return;
    }
    const runs = automationRuns(a, new Date(), opts.next);
    // The daemon's data, plus what was asked for: the upcoming runs.
    ctx.out.result({ ...a, next_runs: runs }, () => {
      printAutomation(ctx, a);
      ctx.out.line();
      ctx.out.line(ctx.io.stdout.isTTY ? ctx.out.chalk.bold('Next runs:') : 'Next runs:');
      ctx.out.table(
        runs.map((r, i) => ({ ...r, n: i + 1 })),
        upcomingColumns(runs),
        { empty: 'No upcoming runs: it has no live schedule trigger.' },
      );
    });
    if (a.status !== 'active' && runs.length > 0) {
      ctx.out.warn(`the automation is ${a.status}: these runs happen only once it is active again (svc automations resume)`);
    }
  },
});
