// Which slot a due schedule trigger runs now (CONTRACT §5): the one it was due for, or after
// downtime the newest missed slot when that is within the catch-up window, skipping the older
// ones; when even the newest is too old, none, and the trigger moves on to its next slot.
import { createCronSchedule, nextScheduleRun, type CronSchedule } from '../../shared/cron.js';
import type { TriggerRow } from '../store/tables.js';

/** A slot this late is just late (a busy or suspended process), not missed. */
export const LATE_GRACE_MS = 60_000;
/** Counting missed slots stops here: a minutely cron down for a month has 43,200 of them. */
export const MAX_COUNTED_MISSES = 1_000;

export type ScheduleFields = Pick<TriggerRow, 'cron_expression' | 'one_off_at' | 'timezone' | 'next_run_at'>;

export type SlotPlan =
  /** run `slot`; `skipped` older slots (firstSkipped..lastSkipped) were missed and do not run */
  | { run: true; slot: Date; skipped: number; firstSkipped: Date | null; lastSkipped: Date | null }
  /** run nothing: every missed slot is older than the catch-up window */
  | { run: false; skipped: number; firstSkipped: Date; lastSkipped: Date; next: Date | null };

export const isCron = (t: Pick<TriggerRow, 'cron_expression'>) => t.cron_expression !== null && t.cron_expression.trim() !== '';

/**
 * Compiled cron schedules by expression and zone. A burst of thousands of due triggers mostly
 * shares a handful of expressions, and compiling is the expensive part of a slot computation.
 */
export class ScheduleCache {
  private readonly compiled = new Map<string, CronSchedule>();

  constructor(private readonly limit = 1_000) {}

  get(expr: string, timezone: string): CronSchedule {
    const key = `${timezone} ${expr}`;
    let s = this.compiled.get(key);
    if (!s) {
      if (this.compiled.size >= this.limit) this.compiled.clear();
      s = createCronSchedule(expr, timezone);
      this.compiled.set(key, s);
    }
    return s;
  }

  /** The trigger's next slot strictly after `after`, or null (a one-off whose time has passed). */
  next(t: Pick<TriggerRow, 'cron_expression' | 'one_off_at' | 'timezone'>, after: Date): Date | null {
    if (isCron(t)) return this.get(t.cron_expression!, t.timezone ?? 'UTC').next(after);
    return nextScheduleRun(t, after);
  }
}

/**
 * The plan for a trigger whose `next_run_at` is at or before `now`; null when it is not due (or
 * has no next run). The newest missed slot runs when it is at most `windowMs` old.
 */
export function planSlot(t: ScheduleFields, now: Date, windowMs: number, schedules: ScheduleCache): SlotPlan | null {
  if (t.next_run_at === null) return null;
  const due = new Date(t.next_run_at);
  if (Number.isNaN(due.getTime()) || due.getTime() > now.getTime()) return null;

  if (!isCron(t)) {
    if (now.getTime() - due.getTime() <= windowMs) return { run: true, slot: due, skipped: 0, firstSkipped: null, lastSkipped: null };
    return { run: false, skipped: 1, firstSkipped: due, lastSkipped: due, next: null };
  }

  const schedule = schedules.get(t.cron_expression!, t.timezone ?? 'UTC');
  // next_run_at was computed from this expression, so it is a slot; the newest slot at or before
  // now is the one a catch-up runs. The common case, a slot just reached, costs one next().
  let after = schedule.next(due);
  if (after.getTime() > now.getTime()) {
    // The only slot passed: it runs when it is within the window, like any newest missed slot
    // (a daemon that stopped before 20:00 and starts at 23:00 does not run the 20:00 slot).
    if (now.getTime() - due.getTime() <= windowMs) return { run: true, slot: due, skipped: 0, firstSkipped: null, lastSkipped: null };
    return { run: false, skipped: 1, firstSkipped: due, lastSkipped: due, next: after };
  }
  let newest = due;
  let missed = 0;
  while (after.getTime() <= now.getTime() && missed < MAX_COUNTED_MISSES) {
    missed++;
    newest = after;
    after = schedule.next(after);
  }
  if (after.getTime() <= now.getTime()) newest = schedule.previous(now) ?? newest;
  const lastMissed = missed === 0 ? null : (schedule.previous(new Date(newest.getTime() - 1)) ?? due);

  if (now.getTime() - newest.getTime() <= windowMs) {
    return { run: true, slot: newest, skipped: missed, firstSkipped: missed > 0 ? due : null, lastSkipped: lastMissed };
  }
  return { run: false, skipped: missed + 1, firstSkipped: due, lastSkipped: newest, next: schedule.next(now) };
}
