import { apiPath } from '../../../shared/client.js';
import type { EnvironmentDto } from '../../../shared/schemas/projects.js';
import { defineCommand } from '../../command.js';
import { environmentFields } from '../../lib/environment-fields.js';

interface CreateOptions extends Record<string, unknown> {
  name: string;
  slug: string;
  description?: string;
  project?: string;
}

export const command = defineCommand<{ team: string }, CreateOptions>({
  name: 'admin environments create',
  description: 'Create an environment in a team, optionally for one of its projects (admin token)',
  args: [{ name: 'team', description: 'team slug', required: true }],
  options: [
    { flags: '--name <name>', description: 'display name', required: true },
    { flags: '--slug <slug>', description: 'lowercase letters, digits and hyphens, unique in the team', required: true },
    { flags: '--description <text>', description: 'what the environment is for' },
    { flags: '--project <id>', description: 'a project of the team the environment belongs to' },
  ],
  examples: [
    { description: 'A staging environment', command: 'svc admin environments create acme --name Staging --slug staging' },
    { description: "An environment of a project (its schedules show in the project's list)", command: 'svc admin environments create acme --name Web --slug web --project 0b8e…' },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client('admin');
    const body: { name: string; slug: string; description?: string; project_id?: string } = { name: opts.name, slug: opts.slug };
    if (opts.description !== undefined) body.description = opts.description;
    if (opts.project !== undefined) body.project_id = opts.project;
    const env = await client.post<EnvironmentDto>(apiPath`/admin/teams/${args.team}/environments`, body);
    ctx.out.success(`Created environment ${env.slug} in team ${args.team}.`);
    ctx.out.result(env, (e) => ctx.out.fields(environmentFields(e, ctx.io.stdout.isTTY)));
  },
});
