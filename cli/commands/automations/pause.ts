import { defineCommand } from '../../command.js';
import { setStatus } from '../../automations/set-status.js';

export const command = defineCommand<{ automation: string }, Record<string, never>>({
  name: 'automations pause',
  description: 'Pause an automation: no scheduled or event runs until it is resumed',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  examples: [{ description: 'Pause during a freeze', command: 'svc automations pause "Nightly report"' }],
  run: (args, _opts, ctx) => setStatus(ctx, args.automation, 'paused', 'Paused'),
});
