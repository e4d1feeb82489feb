import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';

export const command = defineCommand<{ team: string; keyId: string }, Record<string, never>>({
  name: 'admin keys revoke',
  description: 'Revoke a team key: it is refused from the next request on (admin token)',
  args: [
    { name: 'team', description: 'team slug', required: true },
    { name: 'key-id', description: 'key id, from `svc admin keys list TEAM`', required: true },
  ],
  examples: [{ description: 'Revoke a key', command: 'svc admin keys revoke acme 1c9e…' }],
  async run(args, _opts, ctx) {
    const client = await ctx.client('admin');
    const result = await client.delete<{ success: true }>(apiPath`/admin/teams/${args.team}/keys/${args.keyId}`);
    ctx.out.success(`Revoked key ${args.keyId} of team ${args.team}.`);
    if (ctx.out.json) ctx.out.printJson(result);
  },
});
