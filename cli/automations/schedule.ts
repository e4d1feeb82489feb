// Upcoming runs, computed with shared/cron.ts as the daemon's scheduler computes them (the same
// DST rules), so `preview` and `get --next` show what will really happen.
import { createCronSchedule, isValidTimeZone, parseOneOffAt } from '../../shared/cron.js';
import { formatInZone } from '../../shared/zone-time.js';
import type { AutomationDto, TriggerDto } from '../../shared/schemas/automations.js';
import { type Column } from '../output.js';

/** null for a zone the daemon accepts, else the message naming `name` (e.g. '--tz'). */
export function timeZoneProblem(timezone: unknown, name: string): string | null {
  if (typeof timezone === 'string' && isValidTimeZone(timezone)) return null;
  return `${name} ${JSON.stringify(timezone)} is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`;
}

export interface UpcomingRun {
  /** ISO 8601 UTC */
  utc: string;
  /** ISO 8601 with the zone's offset, e.g. 2026-03-29T03:00:00+02:00 */
  local: string;
  timezone: string;
  /** the schedule trigger that fires (get --next only) */
  trigger_id?: string;
}

function wallParts(date: Date, timezone: string): Record<string, string> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    weekday: 'short',
  }).formatToParts(date);
  return Object.fromEntries(parts.map((p) => [p.type, p.value]));
}

/** `2026-03-29T03:00:00+02:00`: the local time in `timezone` with its UTC offset. */
export function localIso(date: Date, timezone: string): string {
  const p = wallParts(date, timezone);
  const wall = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
  const offsetMin = Math.round((wall - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${offset}`;
}

/** `Sun 2026-03-29 03:00 CEST`: how a person reads a run time in its zone. */
export function localText(date: Date, timezone: string): string {
  return `${wallParts(date, timezone).weekday} ${formatInZone(date, timezone)}`;
}

const utcIso = (d: Date) => d.toISOString().replace('.000Z', 'Z');

function upcoming(date: Date, timezone: string, triggerId?: string): UpcomingRun {
  return { utc: utcIso(date), local: localIso(date, timezone), timezone, ...(triggerId ? { trigger_id: triggerId } : {}) };
}

/** The next `count` runs of a cron expression after `after` (throws RangeError when invalid). */
export function cronRuns(expr: string, timezone: string, after: Date, count: number): UpcomingRun[] {
  return createCronSchedule(expr, timezone)
    .nextRuns(after, count)
    .map((d) => upcoming(d, timezone));
}

/** A schedule trigger the scheduler would still fire: enabled, not a spent one-off. */
const live = (t: TriggerDto) => t.kind === 'schedule' && t.enabled && t.status !== 'completed';

/**
 * The next `count` runs of an automation after `after`, over all its live schedule triggers,
 * in time order. These are the runs it would make if active: the caller says when it is not.
 */
export function automationRuns(a: AutomationDto, after: Date, count: number): UpcomingRun[] {
  const runs: { at: Date; run: UpcomingRun }[] = [];
  for (const t of a.triggers.filter(live)) {
    const timezone = t.timezone ?? 'UTC';
    if (t.cron_expression) {
      for (const d of createCronSchedule(t.cron_expression, timezone).nextRuns(after, count)) runs.push({ at: d, run: upcoming(d, timezone, t.id) });
    } else if (t.one_off_at) {
      const d = parseOneOffAt(t.one_off_at, timezone);
      if (d && d.getTime() > after.getTime()) runs.push({ at: d, run: upcoming(d, timezone, t.id) });
    }
  }
  return runs
    .sort((x, y) => x.at.getTime() - y.at.getTime())
    .slice(0, count)
    .map((r) => r.run);
}

/** Columns for a list of upcoming runs; TRIGGER only when several triggers take part. */
export function upcomingColumns(runs: readonly UpcomingRun[]): Column<UpcomingRun & { n: number }>[] {
  const cols: Column<UpcomingRun & { n: number }>[] = [
    { header: '#', value: (r) => r.n },
    { header: 'Local time', value: (r) => localText(new Date(r.utc), r.timezone) },
    { header: 'UTC', value: (r) => r.utc },
  ];
  if (new Set(runs.map((r) => r.trigger_id)).size > 1) cols.push({ header: 'Trigger', value: (r) => r.trigger_id });
  return cols;
}
