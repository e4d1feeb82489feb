import { apiPath } from '../../../shared/client.js';
import type { ProjectDto } from '../../../shared/schemas/projects.js';
import { defineCommand } from '../../command.js';
import { PROJECT_OPTION, resolveProjectId } from '../../lib/project-id.js';

interface GetOptions extends Record<string, unknown> {
  project?: string;
}

export const command = defineCommand<{ id?: string }, GetOptions>({
  name: 'projects get',
  description: 'Show a project (with a project key)',
  args: [{ name: 'id', description: 'project id (default: --project, SVC_PROJECT_ID or the logged-in project)' }],
  options: [PROJECT_OPTION],
  examples: [
    { description: 'The project of the stored project key', command: 'svc projects get' },
    { description: 'A project named on the command line (in CI, with its key in SVC_API_KEY)', command: 'svc projects get 0b8e… --json' },
  ],
  async run(args, opts, ctx) {
    const id = await resolveProjectId(ctx, args.id ?? opts.project);
    const client = await ctx.client('project');
    const project = await client.get<ProjectDto>(apiPath`/projects/${id}`);
    ctx.out.result(project, (p) =>
      ctx.out.fields([
        ['ID', p.id],
        ['Name', p.name],
        ['Description', p.description],
        ['Tasks', p.availableTasks.length > 0 ? p.availableTasks : null],
      ]),
    );
  },
});
