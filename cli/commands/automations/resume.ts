import { defineCommand } from '../../command.js';
import { setStatus } from '../../automations/set-status.js';

export const command = defineCommand<{ automation: string }, Record<string, never>>({
  name: 'automations resume',
  description: 'Make an automation active again; its next run is computed from now (no burst of missed runs)',
  args: [{ name: 'automation', description: 'automation id or name', required: true }],
  examples: [{ description: 'Resume after a freeze', command: 'svc automations resume "Nightly report"' }],
  run: (args, _opts, ctx) => setStatus(ctx, args.automation, 'active', 'Resumed'),
});
