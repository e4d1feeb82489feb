import { apiPath } from '../../../shared/client.js';
import type { SessionDto } from '../../../shared/schemas/sessions.js';
import { SESSION_STATUSES } from '../../../shared/api-values.js';
import { listAllAutomations, requireAutomation, resolveAutomationId } from '../../automations/resolve.js';
import { defineCommand } from '../../command.js';
import { listRows, noteMorePages, PAGE_OPTIONS, type PageOptions } from '../../lib/pages.js';
import { type Column } from '../../output.js';
import { ellipsize, formatTime } from '../../lib/format.js';
import { statusStyle } from '../../lib/transcript.js';

interface ListOptions extends PageOptions, Record<string, unknown> {
  status?: string;
  automation?: string;
}

const NAME_WIDTH = 24;
const MIN_PROMPT_WIDTH = 16;

export const command = defineCommand<Record<string, never>, ListOptions>({
  name: 'sessions list',
  description: "List the team's sessions, newest first",
  options: [
    { flags: '--status <status>', description: 'only sessions in this status', choices: SESSION_STATUSES },
    { flags: '--automation <id-or-name>', description: 'only sessions this automation started' },
    ...PAGE_OPTIONS,
  ],
  examples: [
    { description: 'The newest sessions', command: 'svc sessions list' },
    { description: 'Failed runs of one automation, for a script', command: "svc sessions list --automation 'nightly report' --status failed --json" },
  ],
  async run(_args, opts, ctx) {
    const team = await ctx.team();
    const client = await ctx.client();
    const automationId = opts.automation ? await resolveAutomationId(client, team, opts.automation) : undefined;
    const { rows, next } = await listRows<SessionDto>(client, apiPath`/teams/${team}/sessions`, { status: opts.status, automation_id: automationId }, opts);
    // An id is taken as given, so the sessions of an automation deleted since can still be listed;
    // an id that finds none is checked, so a mistyped one is "not found" (exit 4) rather than "no sessions".
    if (automationId !== undefined && rows.length === 0 && opts.cursor === undefined) await requireAutomation(client, team, automationId);
    if (ctx.out.json) {
      ctx.out.printJson(rows);
      return noteMorePages(ctx.out, next);
    }

    const tty = ctx.io.stdout.isTTY;
    // A person reads automation names; a script reading plain text gets ids it can pass on.
    let automation = (s: SessionDto): string | null => s.automation_id;
    if (tty && rows.some((s) => s.automation_id)) {
      const names = new Map((await listAllAutomations(client, team)).map((a) => [a.id, a.name]));
      // An automation deleted since shows its id, whole: ids are never cut.
      automation = (s) => {
        if (!s.automation_id) return null;
        const name = names.get(s.automation_id);
        return name === undefined ? s.automation_id : ellipsize(name, NAME_WIDTH);
      };
    }
    const columns: Column<SessionDto>[] = [
      { header: 'ID', value: (s) => s.session_id, keep: true },
      { header: 'Status', value: (s) => s.status, style: (t, c, s) => statusStyle(s.status, c)(t) },
      { header: 'Created', value: (s) => formatTime(s.created_at, tty) },
      { header: 'Automation', value: automation },
    ];
    // On a terminal the prompt gets the width the other columns leave, so ids are never cut.
    const width = ctx.io.stdout.columns;
    let promptWidth: number | undefined;
    if (tty && width) {
      const used = columns.reduce((sum, c) => sum + Math.max(c.header.length, ...rows.map((s) => String(c.value(s) ?? '-').length)), 0);
      promptWidth = Math.max(MIN_PROMPT_WIDTH, width - used - 2 * columns.length);
    }
    columns.push({ header: 'Prompt', value: (s) => (promptWidth ? ellipsize(s.prompt, promptWidth) : s.prompt) });
    ctx.out.table(rows, columns, { empty: 'No sessions.' });
    noteMorePages(ctx.out, next);
  },
});
