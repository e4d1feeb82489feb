// Vixie cron's day rule where it differs from cron-parser's. With both day fields restricted, a
// day matches either, in both. But Vixie cron calls a day field unrestricted when its first
// character is `*`, so a stepped star (`*/10` days, `*/2` weekdays) against a restricted other
// day field matches only days where both do; cron-parser still matches either there.
import { createRequire } from 'node:module';
import type { CronExpression } from 'cron-parser';

export const DAY_MS = 86_400_000;

/** Which days an expression under the AND rule runs on, decided without walking the calendar. */
export interface DayRule {
  /** the expression with both day fields `*`: the times of day (and months) to walk */
  times: CronExpression;
  /** whether the day starting at this UTC wall time is a run day */
  runsOn(dayStart: number): boolean;
  /** false when no day of any year satisfies the rule */
  satisfiable: boolean;
}

// cron-parser, and luxon under it, are slow to load for a CLI command: they load at the first
// expression parsed, so the commands that parse none (most, `automations create` of an event
// trigger among them) do without them.
let cronParser: typeof import('cron-parser').CronExpressionParser | undefined;
const loadCronParser = () => (cronParser ??= (createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser')).CronExpressionParser);

/** An expression parsed for a walk over wall-clock times encoded as UTC (see cron.ts). */
export const parseUtc = (expr: string): CronExpression => loadCronParser().parse(expr, { tz: 'UTC', currentDate: 0 });

// Building a rule parses three expressions and checks about 900 days; the scheduler
// asks for the same few expressions again and again. Rules are only read after they are built
// (their `times` is reset before every use), so one serves every caller.
const cache = new Map<string, DayRule>();
const CACHE_LIMIT = 256;

/**
 * The AND rule for `upper` (five upper-cased fields) when it applies, else null (cron-parser's
 * own walk is Vixie's then). `written` is the expression as given, when `upper` is a rewrite of
 * it: whether a day field starts with `*` is read from it. Throws what cron-parser throws for
 * an invalid field.
 */
export function vixieDayRule(upper: readonly string[], written: readonly string[] = upper): DayRule | null {
  const [, , dom, , dow] = written;
  if (dom === '*' || dow === '*' || (!dom.startsWith('*') && !dow.startsWith('*'))) return null;
  const key = upper.join(' ');
  let rule = cache.get(key);
  if (!rule) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    rule = buildRule(upper);
    cache.set(key, rule);
  }
  return rule;
}

function buildRule(upper: readonly string[]): DayRule {
  const [minute, hour, dom, month, dow] = upper;
  const domDays = parseUtc(`0 0 ${dom} * *`);
  const dowDays = parseUtc(`0 0 * * ${dow}`);
  const months = new Set(parseUtc(`0 0 * ${month} *`).fields.month.values);
  // Whether a day runs depends only on its day of month, the length of its month and the
  // weekday its month starts on: one 31-bit mask per (length, weekday), built from real dates.
  const masks = new Map<number, number>();
  for (const [year, monthIndex] of representativeMonths()) {
    const length = daysInMonth(year, monthIndex);
    const first = Date.UTC(year, monthIndex, 1);
    let mask = 0;
    for (let d = 1; d <= length; d++) {
      const day = new Date(first + (d - 1) * DAY_MS);
      if (domDays.includesDate(day) && dowDays.includesDate(day)) mask |= 1 << (d - 1);
    }
    masks.set(maskKey(length, new Date(first).getUTCDay()), mask);
  }
  const lengths = (m: number) => (m === 2 ? [28, 29] : [4, 6, 9, 11].includes(m) ? [30] : [31]);
  const satisfiable = [...months].some((m) => lengths(m).some((len) => [0, 1, 2, 3, 4, 5, 6].some((wd) => masks.get(maskKey(len, wd))! !== 0)));
  return {
    times: parseUtc(`${minute} ${hour} * ${month} *`),
    satisfiable,
    runsOn(dayStart) {
      const date = new Date(dayStart);
      const y = date.getUTCFullYear();
      const m = date.getUTCMonth();
      if (!months.has((m + 1) as never)) return false;
      const mask = masks.get(maskKey(daysInMonth(y, m), new Date(Date.UTC(y, m, 1)).getUTCDay()))!;
      return (mask & (1 << (date.getUTCDate() - 1))) !== 0;
    },
  };
}

const maskKey = (length: number, firstWeekday: number) => length * 8 + firstWeekday;

function daysInMonth(year: number, monthIndex: number): number {
  return new Date(Date.UTC(year, monthIndex + 1, 0)).getUTCDate();
}

/** One month (year, index) for each combination of length (28-31) and first weekday. */
function representativeMonths(): [number, number][] {
  const found = new Map<number, [number, number]>();
  for (let year = 2000; found.size < 28; year++) {
    for (let m = 0; m < 12; m++) {
      const key = maskKey(daysInMonth(year, m), new Date(Date.UTC(year, m, 1)).getUTCDay());
      if (!found.has(key)) found.set(key, [year, m]);
    }
  }
  return [...found.values()];
}
