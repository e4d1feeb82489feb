// How automations, their triggers and their runs read in human output.
import { inert } from '../terminal-text.js';
import { type ChalkInstance } from 'chalk';
import { formatInZone } from '../../shared/zone-time.js';
import type { AutomationDto } from '../../shared/schemas/automations.js';
import type { SessionDto } from '../../shared/schemas/sessions.js';
import { type Context } from '../context.js';
import { formatTime } from '../lib/format.js';
import { type Column } from '../output.js';
import { formatFilter } from './filter-text.js';
import { type EventFilter } from '../../shared/filters.js';

/** What a summary reads of a trigger: the API's TriggerDto and a TriggerContent both fit. */
interface TriggerLike {
  kind: string;
  enabled: boolean;
  status?: string;
  cron_expression?: string | null;
  one_off_at?: string | null;
  timezone?: string | null;
  provider?: string | null;
  event_type?: string | null;
  connection_id?: string | null;
  filters?: EventFilter[] | null;
}

/** One line: `cron "0 9 * * 1-5" in Europe/Berlin`, `event github/push where $.ref equals "main"`. */
export function triggerSummary(t: TriggerLike): string {
  let text: string;
  if (t.kind === 'event') {
    text = `event ${t.provider ?? 'generic'}/${t.event_type}`;
    if (t.connection_id) text += ` on connection ${t.connection_id}`;
    if (t.filters?.length) text += ` where ${t.filters.map(formatFilter).join(' and ')}`;
  } else if (t.cron_expression) {
    text = `cron "${t.cron_expression}" in ${t.timezone ?? 'UTC'}`;
  } else if (t.one_off_at) {
    text = `once at ${formatInZone(new Date(t.one_off_at), t.timezone ?? 'UTC')}`;
  } else {
    text = t.kind;
  }
  if (!t.enabled) text += ' (disabled)';
  else if (t.status === 'completed') text += ' (done)';
  return text;
}

const STATUS_STYLE = (text: string, c: ChalkInstance) =>
  text === 'active' || text === 'completed' ? c.green(text) : text === 'paused' || text === 'queued' || text === 'running' ? c.yellow(text) : c.red(text);

export function automationColumns(tty: boolean): Column<AutomationDto>[] {
  return [
    { header: 'ID', value: (a) => a.id, keep: true },
    { header: 'Name', value: (a) => a.name },
    { header: 'Status', value: (a) => a.status, style: STATUS_STYLE },
    { header: 'Triggers', value: (a) => a.triggers.map(triggerSummary).join('; ') },
    { header: 'Next run', value: (a) => formatTime(a.next_run_at, tty) },
    { header: 'Runs', value: (a) => a.total_runs },
  ];
}

/** The full automation: its fields, each trigger, then the prompt. */
export function printAutomation(ctx: Context, a: AutomationDto): void {
  const out = ctx.out;
  const tty = ctx.io.stdout.isTTY;
  out.fields([
    ['ID', a.id],
    ['Name', a.name],
    ['Status', a.status],
    ['Type', a.automation_type],
    ['Environment', a.environment_id],
    ['Runs', a.total_runs],
    ['Next run', formatTime(a.next_run_at, tty)],
    ['Last run', formatTime(latestRunAt(a), tty)],
    ['Last error', a.last_error ? `${a.last_error}${a.last_error_at ? ` (${formatTime(a.last_error_at, tty)})` : ''}` : null],
    ['Created', formatTime(a.created_at, tty)],
    ['Updated', formatTime(a.updated_at, tty)],
  ]);
  out.line();
  out.line(tty ? out.chalk.bold('Triggers:') : 'Triggers:');
  a.triggers.forEach((t, i) => {
    const local = t.next_run_at && t.timezone && t.timezone !== 'UTC' ? ` (${formatInZone(new Date(t.next_run_at), t.timezone)})` : '';
    const next = t.next_run_at ? `, next ${formatTime(t.next_run_at, tty)}${local}` : '';
    out.line(`  ${i + 1}. ${inert(triggerSummary(t))}${next}, ${t.total_runs} run${t.total_runs === 1 ? '' : 's'}  [${t.id}]`);
  });
  out.line();
  out.line(tty ? out.chalk.bold('Prompt:') : 'Prompt:');
  for (const line of a.prompt.split('\n')) out.line(`  ${inert(line)}`);
}

/** What started a session: `schedule`, `event`, or `manual` for a run started by hand. */
export const sessionOrigin = (s: Pick<SessionDto, 'idempotency_key'>) => s.idempotency_key?.split(':')[0] ?? 'manual';

export function runColumns(tty: boolean): Column<SessionDto>[] {
  return [
    { header: 'Session', value: (s) => s.session_id, keep: true },
    { header: 'Status', value: (s) => s.status, style: STATUS_STYLE },
    { header: 'Origin', value: (s) => sessionOrigin(s) },
    { header: 'Created', value: (s) => formatTime(s.created_at, tty) },
    { header: 'Completed', value: (s) => formatTime(s.completed_at, tty) },
    { header: 'Error', value: (s) => s.last_error },
  ];
}

export function printSession(ctx: Context, s: SessionDto): void {
  const tty = ctx.io.stdout.isTTY;
  ctx.out.fields([
    ['Session', s.session_id],
    ['Status', s.status],
    ['Automation', s.automation_id],
    ['Environment', s.environment_id],
    ['Created', formatTime(s.created_at, tty)],
    ['Started', formatTime(s.started_at, tty)],
    ['Completed', formatTime(s.completed_at, tty)],
    ['Error', s.last_error],
  ]);
}

/**
 * When any trigger of the automation last ran. The API's own `last_run_at` covers its schedule
 * triggers only (CONTRACT §4); a person reading "last run" means event runs as well.
 */
export function latestRunAt(a: Pick<AutomationDto, 'triggers'>): string | null {
  let latest: string | null = null;
  for (const t of a.triggers) if (t.last_run_at !== null && (latest === null || t.last_run_at > latest)) latest = t.last_run_at;
  return latest;
}
