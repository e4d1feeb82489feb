import { connectionsClient } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { printEventResult } from '../../lib/event-result.js';

interface ReplayOptions extends Record<string, unknown> {
  dryRun?: boolean;
  requireDispatch?: boolean;
}

export const command = defineCommand<{ id: string }, ReplayOptions>({
  name: 'events replay',
  description: 'Dispatch a stored event again to the automations that match it now (as a new event ID:replay:N)',
  args: [{ name: 'id', description: 'the id of an event the team received (`svc events list` shows them)', required: true }],
  options: [
    { flags: '--dry-run', description: 'say which automations would be started, and why the others would not; start nothing' },
    { flags: '--require-dispatch', description: 'exit 9 when no automation was dispatched' },
  ],
  examples: [
    { description: 'Try a fixed filter on the delivery that did not match', command: 'svc events replay 6d3c8a40-1f55-11ef-9c7e-6b1f0e0c2f3a --dry-run' },
    { description: 'Run the matching automations again', command: 'svc events replay 6d3c8a40-1f55-11ef-9c7e-6b1f0e0c2f3a' },
  ],
  async run(args, opts, ctx) {
    // Never retried: each replay is a new event (ID:replay:N), so a retry would run them twice.
    const result = await connectionsClient(await ctx.client(), await ctx.team()).replayEvent(args.id, { dryRun: opts.dryRun });
    printEventResult(ctx, result, { dryRun: opts.dryRun, success: `Replayed event ${args.id}: ${result.reason}.`, requireDispatch: opts.requireDispatch });
  },
});
