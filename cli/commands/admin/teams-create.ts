import type { TeamDto } from '../../../shared/schemas/admin.js';
import { defineCommand } from '../../command.js';
import { teamFields } from '../../lib/team-fields.js';

interface CreateOptions extends Record<string, unknown> {
  name?: string;
}

export const command = defineCommand<{ slug: string }, CreateOptions>({
  name: 'admin teams create',
  description: 'Create a team (admin token)',
  args: [{ name: 'slug', description: 'lowercase letters, digits and hyphens (e.g. acme)', required: true }],
  options: [{ flags: '--name <name>', description: 'display name (default: the slug)' }],
  examples: [
    { description: 'Create a team, then a key for it', command: "svc admin teams create acme --name 'Acme Inc.' && svc admin keys create acme" },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client('admin');
    const body: { slug: string; name?: string } = { slug: args.slug };
    if (opts.name !== undefined) body.name = opts.name;
    const team = await client.post<TeamDto>('/admin/teams', body);
    ctx.out.success(`Created team ${team.slug}.`);
    ctx.out.result(team, (t) => ctx.out.fields(teamFields(t, ctx.io.stdout.isTTY)));
  },
});
