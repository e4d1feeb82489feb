import { apiPath } from '../../../shared/client.js';
import type { EnvironmentDto } from '../../../shared/schemas/projects.js';
import { defineCommand } from '../../command.js';
import { UsageError } from '../../errors.js';
import { environmentFields } from '../../lib/environment-fields.js';
import { PROJECT_OPTION, resolveProjectId } from '../../lib/project-id.js';

interface UpdateOptions extends Record<string, unknown> {
  project?: string;
  name?: string;
  description?: string;
}

export const command = defineCommand<{ envId: string }, UpdateOptions>({
  name: 'projects env update',
  description: "Rename or describe one of a project's environments (with a project key)",
  args: [{ name: 'env-id', description: 'environment id', required: true }],
  options: [
    { flags: '--name <name>', description: 'new name' },
    { flags: '--description <text>', description: 'new description ("" clears it)' },
    PROJECT_OPTION,
  ],
  examples: [{ description: 'Rename an environment', command: "svc projects env update 5d2a… --name 'Staging (EU)'" }],
  async run(args, opts, ctx) {
    if (opts.name === undefined && opts.description === undefined) throw new UsageError('nothing to change: pass --name and/or --description');
    const id = await resolveProjectId(ctx, opts.project);
    const client = await ctx.client('project');
    const body: { name?: string; description?: string } = {};
    if (opts.name !== undefined) body.name = opts.name;
    if (opts.description !== undefined) body.description = opts.description;
    const env = await client.patch<EnvironmentDto>(apiPath`/projects/${id}/environments/${args.envId}`, body);
    ctx.out.success(`Updated environment ${env.slug}.`);
    ctx.out.result(env, (e) => ctx.out.fields(environmentFields(e, ctx.io.stdout.isTTY)));
  },
});
