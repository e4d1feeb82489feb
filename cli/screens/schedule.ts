// Schedules as the screens show them: the live preview of a cron expression being typed, and an
// automation's next runs merged over its schedule triggers.
import { isValidTimeZone, nextCronRuns, parseOneOffAt, validateCronExpression } from '../../shared/cron.js';
import { type AutomationDto } from '../../shared/schemas/automations.js';

export type SchedulePreview = { ok: true; runs: Date[] } | { ok: false; error: string };

/** The next `count` runs of `cron` in `timeZone` after `now`, or the first problem with either. */
export function previewSchedule(cron: string, timeZone: string, now: Date, count = 5): SchedulePreview {
  const expr = cron.trim();
  if (expr === '') return { ok: false, error: 'cron expression is empty (five fields: minute hour day-of-month month day-of-week)' };
  const problem = validateCronExpression(expr);
  if (problem) return { ok: false, error: problem };
  const zone = timeZone.trim();
  if (!isValidTimeZone(zone)) return { ok: false, error: `time zone "${zone}" is not a known IANA zone (e.g. Europe/Berlin, UTC)` };
  return { ok: true, runs: nextCronRuns(expr, zone, now, count) };
}

export interface UpcomingRun {
  at: Date;
  /** the zone the trigger is written in */
  timeZone: string;
}

/**
 * The next `count` runs of an automation over all its enabled schedule triggers, soonest first.
 * Empty when it is not active (pausing stops the scheduler) or has no schedule.
 */
export function upcomingRuns(automation: AutomationDto, now: Date, count = 5): UpcomingRun[] {
  if (automation.status !== 'active') return [];
  const runs: UpcomingRun[] = [];
  for (const t of automation.triggers) {
    if (t.kind !== 'schedule' || !t.enabled || t.status !== 'active') continue;
    const timeZone = t.timezone ?? 'UTC';
    if (t.cron_expression) {
      try {
        for (const at of nextCronRuns(t.cron_expression, timeZone, now, count)) runs.push({ at, timeZone });
      } catch {
        // a trigger the daemon accepted but this CLI cannot parse: show what the daemon says
        if (t.next_run_at) runs.push({ at: new Date(t.next_run_at), timeZone });
      }
    } else if (t.one_off_at) {
      const at = parseOneOffAt(t.one_off_at, timeZone);
      if (at && at.getTime() > now.getTime()) runs.push({ at, timeZone });
    }
  }
  return runs.sort((a, b) => a.at.getTime() - b.at.getTime()).slice(0, count);
}
