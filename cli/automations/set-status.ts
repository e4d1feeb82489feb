// `pause` and `resume`: one PATCH of the status.
import type { AutomationDto } from '../../shared/schemas/automations.js';
import { type Context } from '../context.js';
import { printAutomation } from './render.js';
import { automationPath, resolveAutomationId } from './resolve.js';
import { type AutomationStatus } from './spec.js';

export async function setStatus(ctx: Context, ref: string, status: AutomationStatus, done: string): Promise<void> {
  const client = await ctx.client();
  const team = await ctx.team();
  const id = await resolveAutomationId(client, team, ref);
  const a = await client.patch<AutomationDto>(automationPath(team, id), { status });
  ctx.out.result(a, () => printAutomation(ctx, a));
  ctx.out.success(`${done} automation "${a.name}" (${a.id}).`);
}
