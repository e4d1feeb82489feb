import { connectionsClient } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { connectionFields } from '../../connections/render.js';

export const command = defineCommand<{ id: string }, Record<string, unknown>>({
  name: 'connections get',
  description: 'Show a connection: provider, webhook URL, secret prefix, last delivery',
  args: [{ name: 'id', description: 'connection id', required: true }],
  examples: [{ description: 'Where its provider must send deliveries', command: 'svc connections get 3f0c1a52-8c1e-4c57-9a51-0d7b2e6f4a10' }],
  async run(args, _opts, ctx) {
    const connection = await connectionsClient(await ctx.client(), await ctx.team()).get(args.id);
    ctx.out.result(connection, () => ctx.out.fields(connectionFields(ctx, connection)));
  },
});
