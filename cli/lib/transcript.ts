// A session as a person reads it: its fields, the event that started it, then its messages in
// order (the prompt first), each under a header naming who spoke and when.
import { inert } from '../terminal-text.js';
import type { MessageDto, SessionDto } from '../../shared/schemas/sessions.js';
import { type Output } from '../output.js';
import { formatTime } from './format.js';

export const FINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

export function statusStyle(status: string, chalk: Output['chalk']): (text: string) => string {
  if (status === 'completed') return chalk.green;
  if (status === 'failed' || status === 'cancelled') return chalk.red;
  return chalk.yellow;
}

export function sessionFields(s: SessionDto, tty: boolean): [string, unknown][] {
  const fields: [string, unknown][] = [
    ['ID', s.session_id],
    ['Status', s.status],
    ['Created', formatTime(s.created_at, tty)],
  ];
  if (s.started_at) fields.push(['Started', formatTime(s.started_at, tty)]);
  if (s.completed_at) fields.push(['Completed', formatTime(s.completed_at, tty)]);
  if (s.automation_id) fields.push(['Automation', s.automation_id]);
  if (s.trigger_id) fields.push(['Trigger', s.trigger_id]);
  if (s.idempotency_key) fields.push(['Idempotency key', s.idempotency_key]);
  fields.push(['Environment', s.environment_id]);
  if (s.last_error) fields.push(['Last error', s.last_error]);
  return fields;
}

/** One message: a header line, then its content as it was written. */
export function messageText(m: MessageDto, out: Output, tty: boolean): string {
  const when = formatTime(m.created_at, tty);
  const header = `── ${m.role} · ${when} ──`;
  const styled = !tty ? header : m.role === 'user' ? out.chalk.cyan(header) : m.role === 'assistant' ? out.chalk.magenta(header) : out.chalk.dim(header);
  const body = m.content.length > 0 ? inert(m.content.replace(/\n+$/, '')) : out.chalk.dim('(empty)');
  return `${styled}\n${body}\n`;
}

/** The event payload, pretty-printed, under its own header. */
export function eventText(event: Record<string, unknown>, out: Output, tty: boolean): string {
  const header = '── event ──';
  return `${tty ? out.chalk.dim(header) : header}\n${inert(JSON.stringify(event, null, 2))}\n`;
}
