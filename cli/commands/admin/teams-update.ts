import { apiPath } from '../../../shared/client.js';
import type { TeamDto } from '../../../shared/schemas/admin.js';
import { defineCommand } from '../../command.js';
import { UsageError } from '../../errors.js';
import { teamFields } from '../../lib/team-fields.js';

interface UpdateOptions extends Record<string, unknown> {
  name?: string;
  admitted?: 'true' | 'false';
}

export const command = defineCommand<{ slug: string }, UpdateOptions>({
  name: 'admin teams update',
  description: 'Rename a team, or admit it to (or stop it from) running sessions (admin token)',
  args: [{ name: 'slug', description: 'team slug', required: true }],
  options: [
    { flags: '--name <name>', description: 'new display name' },
    { flags: '--admitted <bool>', description: 'whether the team may start or resume sessions', choices: ['true', 'false'] },
  ],
  examples: [
    { description: 'Stop a team from starting sessions (its requests then get 402)', command: 'svc admin teams update acme --admitted false' },
    { description: 'Rename a team', command: "svc admin teams update acme --name 'Acme Corp'" },
  ],
  async run(args, opts, ctx) {
    const body: { name?: string; execution_admitted?: boolean } = {};
    if (opts.name !== undefined) body.name = opts.name;
    if (opts.admitted !== undefined) body.execution_admitted = opts.admitted === 'true';
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change: pass --name and/or --admitted true|false');
    const client = await ctx.client('admin');
    const team = await client.patch<TeamDto>(apiPath`/admin/teams/${args.slug}`, body);
    ctx.out.success(`Updated team ${team.slug}.`);
    ctx.out.result(team, (t) => ctx.out.fields(teamFields(t, ctx.io.stdout.isTTY)));
  },
});
