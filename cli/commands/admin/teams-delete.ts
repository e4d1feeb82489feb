import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { confirmOrCancel } from '../../lib/confirm.js';

interface DeleteOptions extends Record<string, unknown> {
  yes?: boolean;
}

export const command = defineCommand<{ slug: string }, DeleteOptions>({
  name: 'admin teams delete',
  description: 'Delete a team and everything in it (admin token)',
  args: [{ name: 'slug', description: 'team slug', required: true }],
  options: [{ flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' }],
  examples: [
    { description: 'Delete a team, after a confirmation', command: 'svc admin teams delete acme' },
    { description: 'From a script', command: 'svc admin teams delete acme --yes' },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client('admin');
    await confirmOrCancel(
      ctx,
      opts.yes,
      `Delete team ${args.slug} with its keys, projects, environments, automations, env vars, sessions and events? This cannot be undone.`,
    );
    const result = await client.delete<{ success: true }>(apiPath`/admin/teams/${args.slug}`);
    ctx.out.success(`Deleted team ${args.slug}.`);
    if (ctx.out.json) ctx.out.printJson(result);
  },
});
