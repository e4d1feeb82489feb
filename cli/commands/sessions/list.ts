import { apiPath } from '../../../shared/client.js';
import { SESSION_STATUSES, type SessionDto } from '../../../shared/schemas/sessions.js';
import { defineCommand, integer } from '../../command.js';
import { ellipsize, formatTime } from '../../lib/format.js';
import { statusStyle } from '../../lib/transcript.js';

interface ListOptions extends Record<string, unknown> {
  status?: string;
  automation?: string;
  limit?: number;
  cursor?: string;
}

const PROMPT_WIDTH = 60;

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'sessions list',
  description: "List the team's sessions, newest first",
  options: [
    { flags: '--status <status>', description: 'only sessions in this status', choices: SESSION_STATUSES },
    { flags: '--automation <id>', description: 'only sessions this automation started' },
    { flags: '-L, --limit <n>', description: 'at most N sessions (1-200, default 50)', parse: integer({ min: 1, max: 200 }) },
    { flags: '--cursor <cursor>', description: 'continue after the previous page (the cursor it printed)' },
  ],
  examples: [
    { description: 'The newest sessions', command: 'svc sessions list' },
    { description: 'Failed runs of one automation, for a script', command: 'svc sessions list --automation 3f1c… --status failed --json' },
  ],
  async run(_args, opts, ctx) {
    const team = await ctx.team();
    const client = await ctx.client();
    const page = await client.list<SessionDto>(apiPath`/teams/${team}/sessions`, {
      status: opts.status,
      automation_id: opts.automation,
      limit: opts.limit,
      cursor: opts.cursor,
    });
    if (ctx.out.json) return ctx.out.printJson(page.data);
    const tty = ctx.io.stdout.isTTY;
    ctx.out.table(
      page.data,
      [
        { header: 'ID', value: (s) => s.session_id },
        { header: 'Status', value: (s) => s.status, style: (t, c, s) => statusStyle(s.status, c)(t) },
        { header: 'Created', value: (s) => formatTime(s.created_at, tty) },
        { header: 'Automation', value: (s) => s.automation_id },
        { header: 'Prompt', value: (s) => (tty ? ellipsize(s.prompt, PROMPT_WIDTH) : s.prompt) },
      ],
      { empty: 'No sessions.' },
    );
    if (page.next_cursor) ctx.out.status(`More sessions: svc sessions list --cursor ${page.next_cursor}`);
  },
});
