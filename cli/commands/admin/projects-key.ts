import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';

interface CreatedProjectKey {
  key: string;
  prefix: string;
  created_at: string;
}

export const command = defineCommand<{ projectId: string }, Record<string, never>>({
  name: 'admin projects key',
  description: "Make a project's key (revoking its previous one) and print it, once (admin token)",
  args: [{ name: 'project-id', description: 'project id', required: true }],
  examples: [
    { description: 'Make the key and log in with it', command: 'svc admin projects key 0b8e… | svc login --project 0b8e… --key-stdin' },
  ],
  async run(args, _opts, ctx) {
    const client = await ctx.client('admin');
    const created = await client.post<CreatedProjectKey>(apiPath`/admin/projects/${args.projectId}/key`);
    ctx.out.result(created, (k) => ctx.out.line(k.key));
    ctx.out.success(`Created key ${created.prefix}… for project ${args.projectId}; its previous key, if any, is revoked.`);
    ctx.out.warn('copy the key now: it will not be shown again.');
  },
});
