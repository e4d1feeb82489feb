// Which project the project routes address: the command's argument or --project, then
// SVC_PROJECT_ID, then the project stored with the profile's key (`svc login --project ID`).
import { type Context } from '../context.js';
import { UsageError } from '../errors.js';

export const PROJECT_OPTION = {
  flags: '--project <id>',
  description: 'project id (default: SVC_PROJECT_ID, or the project of `svc login --project ID`)',
} as const;

export async function resolveProjectId(ctx: Context, given: string | undefined): Promise<string> {
  if (given) return given;
  if (ctx.io.env.SVC_PROJECT_ID) return ctx.io.env.SVC_PROJECT_ID;
  const stored = (await ctx.credentials('project')).projectId;
  if (stored) return stored;
  throw new UsageError('no project: pass --project ID, set SVC_PROJECT_ID, or log in with `svc login --project ID`');
}
