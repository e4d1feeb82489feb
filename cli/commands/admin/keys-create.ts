import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';

interface CreateOptions extends Record<string, unknown> {
  name?: string;
}

interface CreatedKey {
  id: string;
  name: string | null;
  key: string;
  prefix: string;
  created_at: string;
}

export const command = defineCommand<{ team: string }, CreateOptions>({
  name: 'admin keys create',
  description: 'Create a team key and print it, once (admin token)',
  args: [{ name: 'team', description: 'team slug', required: true }],
  options: [{ flags: '--name <name>', description: 'a name to recognise the key by (e.g. ci)' }],
  examples: [
    { description: 'Create a key and log in with it without it touching the screen', command: 'svc admin keys create acme --name laptop | svc login --team acme --key-stdin' },
    { description: 'Keep it in a file (run `umask 077` first so only you can read it)', command: 'svc admin keys create acme --name ci > acme.key' },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client('admin');
    const created = await client.post<CreatedKey>(apiPath`/admin/teams/${args.team}/keys`, opts.name !== undefined ? { name: opts.name } : {});
    // The key alone on stdout, so it can be piped or redirected; everything else on stderr.
    ctx.out.result(created, (k) => ctx.out.line(k.key));
    ctx.out.success(`Created key ${created.id} (${created.prefix}…) for team ${args.team}.`);
    ctx.out.warn('copy the key now: it will not be shown again.');
  },
});
