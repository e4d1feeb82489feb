import { apiPath } from '../../../shared/client.js';
import { defineCommand, repeatable } from '../../command.js';

interface CreateOptions extends Record<string, unknown> {
  name: string;
  description?: string;
  task?: string[];
}

interface CreatedProject {
  id: string;
  name: string;
  description: string;
  availableTasks: string[];
  team_id: string;
}

export const command = defineCommand<{ team: string }, CreateOptions>({
  name: 'admin projects create',
  description: 'Create a project in a team (admin token)',
  args: [{ name: 'team', description: 'team slug', required: true }],
  options: [
    { flags: '--name <name>', description: 'project name', required: true },
    { flags: '--description <text>', description: 'what the project is for' },
    { flags: '--task <task>', description: 'a task the project offers (repeatable)', parse: repeatable },
  ],
  examples: [
    {
      description: 'Create a project, then its key',
      command: "svc admin projects create acme --name Website --task deploy --task triage && svc admin projects key PROJECT_ID",
    },
  ],
  async run(args, opts, ctx) {
    const client = await ctx.client('admin');
    const body: { name: string; description?: string; availableTasks?: string[] } = { name: opts.name };
    if (opts.description !== undefined) body.description = opts.description;
    if (opts.task) body.availableTasks = opts.task;
    const project = await client.post<CreatedProject>(apiPath`/admin/teams/${args.team}/projects`, body);
    ctx.out.success(`Created project ${project.name} in team ${args.team}; make its key with \`svc admin projects key ${project.id}\`.`);
    ctx.out.result(project, (p) =>
      ctx.out.fields([
        ['ID', p.id],
        ['Name', p.name],
        ['Description', p.description],
        ['Tasks', p.availableTasks.length > 0 ? p.availableTasks : null],
        ['Team', p.team_id],
      ]),
    );
  },
});
