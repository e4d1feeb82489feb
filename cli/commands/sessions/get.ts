import { defineCommand } from '../../command.js';
import { getSession } from '../../lib/session-watch.js';
import { eventText, messageText, sessionFields } from '../../lib/transcript.js';

export const command = defineCommand<{ id: string }, Record<string, never>>({
  name: 'sessions get',
  description: 'Show a session and its transcript (the prompt first)',
  args: [{ name: 'id', description: 'session id', required: true }],
  examples: [
    { description: 'Read a session', command: 'svc sessions get 6f0c…' },
    { description: 'The last answer, for a script', command: "svc sessions get 6f0c… --json | jq -r '.messages[-1].content'" },
  ],
  async run(args, _opts, ctx) {
    const team = await ctx.team();
    const client = await ctx.client();
    const session = await getSession(client, team, args.id);
    ctx.out.result(session, (s) => {
      const tty = ctx.io.stdout.isTTY;
      ctx.out.fields(sessionFields(s, tty));
      if (s.event) {
        ctx.out.line();
        ctx.out.line(eventText(s.event, ctx.out, tty).trimEnd());
      }
      for (const m of s.messages) {
        ctx.out.line();
        ctx.out.line(messageText(m, ctx.out, tty).trimEnd());
      }
    });
  },
});
