// Which project the project routes address: the command's argument or --project, then
// SVC_PROJECT_ID, then the project stored with the profile's key (`svc login --project ID`).
import { type Context } from '../context.js';
import { UsageError } from '../errors.js';

export const PROJECT_OPTION = {
  flags: '--project <id>',
  description: 'project id (default: SVC_PROJECT_ID, or the project of `svc login --project ID`)',
} as const;

/** The project when no command names one: SVC_PROJECT_ID, then the profile's; undefined if neither. */
export async function projectIdInForce(ctx: Context): Promise<string | undefined> {
  return ctx.io.env.SVC_PROJECT_ID || (await ctx.credentials('project')).projectId;
}

export async function resolveProjectId(ctx: Context, given: string | undefined): Promise<string> {
  const id = given || (await projectIdInForce(ctx));
  if (id) return id;
  throw new UsageError('no project: pass --project ID, set SVC_PROJECT_ID, or log in with `svc login --project ID`');
}
