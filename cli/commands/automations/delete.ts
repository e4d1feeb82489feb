import type { AutomationDto } from '../../../shared/schemas/automations.js';
import { defineCommand } from '../../command.js';
import { automationPath, resolveAutomationId } from '../../automations/resolve.js';
import { confirmOrCancel } from '../../lib/confirm.js';
import { requirePrompt } from '../../prompt.js';

interface DeleteOptions extends Record<string, unknown> {
  yes?: boolean;
}

export const command = defineCommand<{ automation: string }, DeleteOptions>({
  name: 'automations delete',
  description: 'Delete an automation and its triggers (asks first on a terminal)',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  options: [{ flags: '-y, --yes', description: 'do not ask (needed without a terminal)' }],
  examples: [
    { description: 'Delete, answering the question', command: 'svc automations delete "Nightly report"' },
    { description: 'Delete from a script', command: 'svc automations delete 0b7c5e2e-5f0e-4d43-9a57-2d1f0c6f1a11 --yes' },
  ],
  async run(args, opts, ctx) {
    // Without a terminal, fail before touching the daemon.
    if (!opts.yes) requirePrompt(ctx.io, '--yes', 'confirmation');
    const client = await ctx.client();
    const team = await ctx.team();
    const id = await resolveAutomationId(client, team, args.automation);
    let label = id;
    if (!opts.yes) {
      // Name it in the question: a person confirms what they recognise, not a UUID.
      const a = await client.get<AutomationDto>(automationPath(team, id));
      label = `"${a.name}" (${a.id})`;
      await confirmOrCancel(ctx, opts.yes, `Delete automation ${label} and its triggers?`);
    }
    const result = await client.delete<{ success: true }>(automationPath(team, id));
    ctx.out.result(result, () => {});
    ctx.out.success(`Deleted automation ${label}.`);
  },
});
