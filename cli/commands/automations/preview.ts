import { parseOneOffAt, validateCronExpression } from '../../../shared/cron.js';
import { defineCommand, integer } from '../../command.js';
import { InvalidInputError } from '../../errors.js';
import { cronRuns, timeZoneProblem, upcomingColumns } from '../../automations/schedule.js';

interface PreviewOptions extends Record<string, unknown> {
  cron: string;
  tz: string;
  count: number;
  from?: string;
}

export const command = defineCommand<Record<string, never>, PreviewOptions>({
  name: 'automations preview',
  description: 'Show the next runs of a cron expression in a time zone and in UTC (no daemon needed)',
  options: [
    { flags: '--cron <expr>', description: "five cron fields, 'minute hour day-of-month month day-of-week'", required: true },
    { flags: '--tz <zone>', description: 'IANA time zone the expression is read in', default: 'UTC' },
    { flags: '--count <n>', description: 'how many runs (1-100)', default: 5, parse: integer({ min: 1, max: 100 }) },
    { flags: '--from <time>', description: 'the runs after this time instead of now: ISO 8601, a local time or date read in --tz' },
  ],
  examples: [
    { description: 'Weekdays at 09:00 in Berlin', command: 'svc automations preview --cron "0 9 * * 1-5" --tz Europe/Berlin' },
    { description: 'See what a daily 02:30 job does across the spring DST change', command: 'svc automations preview --cron "30 2 * * *" --tz America/New_York --count 10' },
    { description: 'Around a DST change, from a chosen date', command: 'svc automations preview --cron "30 2 * * *" --tz Europe/Berlin --from 2026-03-27 --count 4' },
    { description: 'As JSON, for a script', command: 'svc automations preview --cron "*/15 * * * *" --count 3 --json' },
  ],
  async run(_args, opts, ctx) {
    const problem = validateCronExpression(opts.cron);
    if (problem) throw new InvalidInputError(`--cron ${JSON.stringify(opts.cron)}: ${problem.replace(/^cron_expression /, '')}`);
    const zone = timeZoneProblem(opts.tz, '--tz');
    if (zone) throw new InvalidInputError(zone);
    let after = new Date();
    if (opts.from !== undefined) {
      const from = /^\d{4}-\d{2}-\d{2}$/.test(opts.from.trim()) ? `${opts.from.trim()}T00:00` : opts.from;
      const parsed = parseOneOffAt(from, opts.tz);
      if (!parsed) throw new InvalidInputError(`--from ${JSON.stringify(opts.from)} is not a time: expected ISO 8601 such as 2026-03-29T00:00:00Z, or a date or local time read in --tz`);
      // The runs strictly after the instant before: a run at exactly --from is listed.
      after = new Date(parsed.getTime() - 1);
    }
    const runs = cronRuns(opts.cron, opts.tz, after, opts.count);
    ctx.out.result(runs, () => {
      ctx.out.status(`Next ${runs.length} run${runs.length === 1 ? '' : 's'} of "${opts.cron}" in ${opts.tz}:`);
      ctx.out.table(
        runs.map((r, i) => ({ ...r, n: i + 1 })),
        upcomingColumns(runs),
      );
    });
  },
});
