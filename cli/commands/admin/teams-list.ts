import type { TeamDto } from '../../../shared/schemas/admin.js';
import { defineCommand } from '../../command.js';
import { formatTime, yesNo } from '../../lib/format.js';

export const command = defineCommand<Record<string, never>, Record<string, never>>({
  name: 'admin teams list',
  description: 'List every team (admin token)',
  examples: [
    { description: 'Every team', command: 'svc admin teams list' },
    { description: 'Slugs of teams not admitted, for a script', command: "svc admin teams list --json | jq -r '.[] | select(.execution_admitted | not) | .slug'" },
  ],
  async run(_args, _opts, ctx) {
    const client = await ctx.client('admin');
    const teams = await client.get<TeamDto[]>('/admin/teams');
    if (ctx.out.json) return ctx.out.printJson(teams);
    const tty = ctx.io.stdout.isTTY;
    ctx.out.table(
      teams,
      [
        { header: 'Slug', value: (t) => t.slug, keep: true },
        { header: 'Name', value: (t) => t.name },
        { header: 'Admitted', value: (t) => yesNo(t.execution_admitted), style: (s, c, t) => (t.execution_admitted ? s : c.red(s)) },
        { header: 'ID', value: (t) => t.id, keep: true },
        { header: 'Created', value: (t) => formatTime(t.created_at, tty) },
      ],
      { empty: 'No teams yet: create one with `svc admin teams create SLUG`.' },
    );
  },
});
