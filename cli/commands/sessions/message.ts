import { apiPath } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_INTERVAL_MS, getSession, watchSession } from '../../lib/session-watch.js';
import { readTextInput } from '../../lib/text-input.js';
import { parseInterval } from './watch.js';

interface MessageOptions extends Record<string, unknown> {
  message?: string;
  messageFile?: string;
  watch?: boolean;
  interval?: number;
}

export const command = defineCommand<{ id: string; text?: string }, MessageOptions>({
  name: 'sessions message',
  description: 'Send a follow-up message to a running or completed session',
  args: [
    { name: 'id', description: 'session id', required: true },
    { name: 'text', description: 'the message (- reads stdin); or use --message / --message-file' },
  ],
  options: [
    { flags: '-m, --message <text>', description: 'the message', conflicts: ['messageFile'] },
    { flags: '-F, --message-file <path>', description: 'read the message from a file (- reads stdin)', conflicts: ['message'] },
    { flags: '-w, --watch', description: 'then follow the session until the turn ends' },
    { flags: '--interval <seconds>', description: `with --watch: how often to ask (default ${DEFAULT_INTERVAL_MS / 1000})`, parse: parseInterval, requires: 'watch' },
  ],
  examples: [
    { description: 'Ask a follow-up question', command: "svc sessions message 6f0c… --message 'Now open a PR with the fix'" },
    { description: 'From stdin, then wait for the answer', command: 'git diff | svc sessions message 6f0c… - --watch' },
  ],
  async run(args, opts, ctx) {
    if (args.text !== undefined && (opts.message !== undefined || opts.messageFile !== undefined)) {
      throw new UsageError('give the message once: as an argument, --message or --message-file');
    }
    const sources = args.text === '-' ? { file: '-' } : args.text !== undefined ? { inline: args.text } : { inline: opts.message, file: opts.messageFile };
    const message = await readTextInput(ctx, sources, {
      inline: args.text !== undefined ? 'the TEXT argument' : '--message',
      file: '--message-file',
      missing: 'give the message: as an argument (TEXT, or - to read stdin), --message TEXT or --message-file PATH',
    });
    const team = await ctx.team();
    const client = await ctx.client();
    // Remember what was already said, so --watch prints only this turn.
    const seen = opts.watch ? (await getSession(client, team, args.id)).messages.map((m) => m.id) : [];
    const accepted = await client.post<{ accepted: true; session_id: string }>(apiPath`/teams/${team}/sessions/${args.id}/messages`, { message });
    if (opts.watch) {
      ctx.out.status(`Sent the message to session ${args.id}.`);
      await watchSession(ctx, client, team, args.id, { intervalMs: opts.interval ?? DEFAULT_INTERVAL_MS, seen });
      return;
    }
    ctx.out.success(`Sent the message to session ${args.id}; follow it with \`svc sessions watch ${args.id}\`.`);
    if (ctx.out.json) ctx.out.printJson(accepted);
  },
});
