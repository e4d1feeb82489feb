// The one way a destructive command asks first: on a terminal a yes/no question (default no);
// elsewhere a usage error naming --yes, so a script fails at once instead of hanging.
import { type Context } from '../context.js';
import { CancelledError } from '../errors.js';

export async function confirmOrCancel(ctx: Context, yes: boolean | undefined, question: string): Promise<void> {
  if (yes) return;
  if (!(await ctx.prompt.confirm(question, '--yes'))) throw new CancelledError('Cancelled: nothing was changed.');
}
