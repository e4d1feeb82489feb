import { InvalidArgumentError } from 'commander';
import { defineCommand, parseDuration } from '../../command.js';
import { DEFAULT_INTERVAL_MS, watchSession } from '../../lib/session-watch.js';

interface WatchOptions extends Record<string, unknown> {
  interval?: number;
}

/** --interval: seconds (or a duration like 500ms, 5s); at least 100 ms. */
export function parseInterval(value: string): number {
  const ms = parseDuration(value);
  if (ms < 100) throw new InvalidArgumentError('Must be at least 0.1 seconds.');
  return ms;
}

export const command = defineCommand<{ id: string }, WatchOptions>({
  name: 'sessions watch',
  description: 'Follow a session until it ends, printing messages as they arrive',
  args: [{ name: 'id', description: 'session id', required: true }],
  options: [
    {
      flags: '--interval <seconds>',
      description: `how often to ask the daemon (seconds, or e.g. 500ms; default ${DEFAULT_INTERVAL_MS / 1000})`,
      parse: parseInterval,
    },
  ],
  examples: [
    { description: 'Follow a session', command: 'svc sessions watch 6f0c…' },
    { description: 'In CI: wait for the session, fail the job when it fails (exit 7)', command: 'svc sessions watch 6f0c… --interval 5 --json > session.json' },
  ],
  async run(args, opts, ctx) {
    const team = await ctx.team();
    const client = await ctx.client();
    await watchSession(ctx, client, team, args.id, { intervalMs: opts.interval ?? DEFAULT_INTERVAL_MS, showEvent: true });
  },
});
