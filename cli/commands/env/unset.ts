import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { confirmOrCancel } from '../../lib/confirm.js';
import { ENV_SELECTOR_OPTIONS, type EnvSelectorOptions, envLabel, envSelectorQuery } from '../../lib/env-selector.js';

interface UnsetOptions extends EnvSelectorOptions, Record<string, unknown> {
  yes?: boolean;
}

export const command = defineCommand<{ name: string }, UnsetOptions>({
  name: 'env unset',
  description: 'Delete an environment variable',
  args: [{ name: 'name', description: 'variable name', required: true }],
  options: [{ flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' }, ...ENV_SELECTOR_OPTIONS],
  examples: [
    { description: 'Delete a variable of the default environment, after a confirmation', command: 'svc env unset GITHUB_TOKEN' },
    { description: 'From a script', command: 'svc env unset GITHUB_TOKEN --env staging --yes' },
  ],
  async run(args, opts, ctx) {
    const team = await ctx.team();
    const client = await ctx.client();
    await confirmOrCancel(ctx, opts.yes, `Delete ${args.name} from ${envLabel(opts)} of team ${team}?`);
    const result = await client.delete<{ success: true }>(apiPath`/teams/${team}/env-vars/${args.name}`, envSelectorQuery(opts));
    ctx.out.success(`Deleted ${args.name} from ${envLabel(opts)} of team ${team}.`);
    if (ctx.out.json) ctx.out.printJson(result);
  },
});
