import { connectionsClient } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { removeConnectionSecret } from '../../connections/secrets.js';
import { confirmOrCancel } from '../../lib/confirm.js';

interface DeleteOptions extends Record<string, unknown> {
  yes?: boolean;
}

export const command = defineCommand<{ id: string }, DeleteOptions>({
  name: 'connections delete',
  description: 'Delete a connection: its deliveries are refused (404) from then on (asks first on a terminal)',
  args: [{ name: 'id', description: 'connection id', required: true }],
  options: [{ flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal)' }],
  examples: [
    { description: 'After a confirmation', command: 'svc connections delete 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10' },
    { description: 'From a script', command: 'svc connections delete 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10 --yes' },
  ],
  async run(args, opts, ctx) {
    const team = await ctx.team();
    const api = connectionsClient(await ctx.client(), team);
    await confirmOrCancel(ctx, opts.yes, `Delete connection ${args.id} of team ${team}? Its provider's deliveries will be refused`);
    const result = await api.delete(args.id);
    ctx.out.success(`Deleted connection ${args.id}.`);
    // The secret verifies nothing any more: no reason to keep a copy.
    try {
      if (await removeConnectionSecret(ctx, args.id)) ctx.out.status('Removed its stored secret.');
    } catch (err) {
      ctx.out.warn(`its stored secret could not be removed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (ctx.out.json) ctx.out.printJson(result);
  },
});
