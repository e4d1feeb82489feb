import { apiPath } from '../../../shared/client.js';
import type { KeyInfoDto } from '../../../shared/schemas/admin.js';
import { defineCommand } from '../../command.js';
import { formatTime } from '../../lib/format.js';

export const command = defineCommand<{ team: string }, Record<string, never>>({
  name: 'admin keys list',
  description: "List a team's keys: prefixes only, revoked ones included (admin token)",
  args: [{ name: 'team', description: 'team slug', required: true }],
  examples: [{ description: "A team's keys", command: 'svc admin keys list acme' }],
  async run(args, _opts, ctx) {
    const client = await ctx.client('admin');
    const keys = await client.get<KeyInfoDto[]>(apiPath`/admin/teams/${args.team}/keys`);
    if (ctx.out.json) return ctx.out.printJson(keys);
    const tty = ctx.io.stdout.isTTY;
    ctx.out.table(
      keys,
      [
        { header: 'ID', value: (k) => k.id, keep: true },
        { header: 'Name', value: (k) => k.name },
        { header: 'Prefix', value: (k) => `${k.prefix}…` },
        { header: 'Created', value: (k) => formatTime(k.created_at, tty) },
        { header: 'Last used', value: (k) => formatTime(k.last_used_at, tty) ?? 'never' },
        { header: 'Revoked', value: (k) => formatTime(k.revoked_at, tty), style: (s, c) => (s === '-' ? s : c.red(s)) },
      ],
      { empty: `Team ${args.team} has no keys: create one with \`svc admin keys create ${args.team}\`.` },
    );
  },
});
