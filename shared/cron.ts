// Cron schedules (CONTRACT §4, §5): validation, next/previous slots in a time zone, DST rules.
//
// cron-parser parses the expression and walks it in UTC, where no DST exists. We use that walk
// on *wall-clock* time (a local date-time encoded as if it were UTC) and map each matching wall
// time to real instants ourselves, because cron-parser's own time-zone walk moves a time inside
// the spring-forward gap by the size of the gap (02:30 -> 03:30) instead of to the end of the
// gap (03:00), and its prev() skips such slots and repeats fall-back ones.
//
// DST semantics, CONTRACT §5 to the letter, for every expression: each matching local time runs
// exactly once, at its first occurrence when it occurs twice (fall back), and at the first
// instant after the gap when it does not occur (spring forward), so a daily 02:30 job runs at
// 03:00 on the day the clocks jump. Several gap times collapse into that one run. An hourly
// expression is no exception: `0 * * * *` runs 01:00 once on the night the clocks go back, and
// `*/15 * * * *` runs once at 03:00 for the quarter hours from 02:00 the clocks skip.
// Assumption: a zone changes its UTC offset at most once in any 7 days (true of every zone in
// the tz database since 1970 apart from a handful of one-off political changes).
import type { CronExpression } from 'cron-parser';
import { DAY_MS, parseUtc, vixieDayRule, type DayRule } from './cron-day-rule.js';

export interface ScheduleTrigger {
  cron_expression: string | null;
  one_off_at: string | null;
  timezone: string | null;
}

export interface CronSchedule {
  /** The first run strictly after `after`. */
  next(after: Date): Date;
  /** The next `count` runs strictly after `after`, ascending. */
  nextRuns(after: Date, count: number): Date[];
  /** The newest run at or before `before`, or null when the expression never ran before it. */
  previous(before: Date): Date | null;
}

const FIELD_NAMES = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;
const FIVE_FIELDS = 'minute hour day-of-month month day-of-week';

// One item of a comma list, per field. Names are checked against the real alias tables by
// cron-parser afterwards; these only give a readable message for malformed syntax.
const NUM = String.raw`\d+`;
const NAME_OR_NUM = String.raw`(?:\d+|[A-Za-z]{3})`;
const stepped = (value: string): string => String.raw`(?:\*|${value}(?:-${value})?)(?:/\d+)?`;
const ITEM_PATTERNS: readonly RegExp[] = [
  new RegExp(`^${stepped(NUM)}$`),
  new RegExp(`^${stepped(NUM)}$`),
  new RegExp(`^(?:${stepped(NUM)}|L)$`),
  new RegExp(`^${stepped(NAME_OR_NUM)}$`),
  new RegExp(`^(?:${stepped(NAME_OR_NUM)}|${NAME_OR_NUM}#\\d+|${NAME_OR_NUM}L)$`),
];
const FIELD_HINTS: readonly string[] = [
  'numbers 0-59, ranges (0-29), lists (0,30) and steps (*/15)',
  'numbers 0-23, ranges (9-17), lists (9,12) and steps (*/2)',
  'numbers 1-31, ranges, lists, steps and L (last day of the month)',
  'numbers 1-12, names JAN-DEC, ranges, lists and steps',
  'numbers 0-7 (0 and 7 are Sunday), names SUN-SAT, ranges, lists, steps, DOW#N (Nth weekday) and DOWL (last weekday)',
];

// Wide enough to see across one DST change on either side of an instant, narrow enough that a
// zone never changes twice within it (see the assumption above).
const TRANSITION_WINDOW_MS = 26 * 3_600_000;
// Each step of a search crosses at least one offset change or returns, so a few hundred steps
// cover centuries of DST changes; reaching it means something is badly wrong.
const MAX_SEARCH_STEPS = 1_000;

/** null when `expr` is a valid five-field cron expression, else a message naming the problem. */
export function validateCronExpression(expr: string): string | null {
  const parsed = parseCron(expr);
  if (typeof parsed === 'string') return parsed;
  try {
    if (parsed.satisfiable) {
      parsed.after(0);
      return null;
    }
  } catch {
    // below
  }
  return 'cron_expression never matches a date';
}

/** The expression parsed for a walk in UTC wall time, or the message naming its problem. */
function parseCron(expr: string): WallCron | string {
  if (typeof expr !== 'string') return 'cron_expression must be a string';
  const trimmed = expr.trim();
  if (trimmed === '') return `cron_expression must not be empty; expected 5 fields (${FIVE_FIELDS})`;
  if (trimmed.startsWith('@')) {
    const macro = trimmed.split(/\s+/)[0];
    return `cron_expression macros such as ${macro} are not supported; write the 5 fields (${FIVE_FIELDS}), e.g. "0 0 * * *" for daily at midnight`;
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5) {
    const extra = fields.length === 6 ? ' (a seconds or year field is not supported)' : '';
    return `cron_expression must have exactly 5 fields (${FIVE_FIELDS}); got ${fields.length}${extra}`;
  }
  // Names and L are case-insensitive, as in Vixie cron.
  const upper = fields.map((f) => f.toUpperCase());
  for (let i = 0; i < 5; i++) {
    const problem = fieldSyntaxProblem(fields[i], upper[i], i);
    if (problem) return problem;
  }
  try {
    return new WallCron(parseUtc(upper.join(' ')), vixieDayRule(upper));
  } catch (first) {
    // cron-parser refuses a list that names a value twice (`0,7` for Sunday, `0-30,15`); Vixie
    // cron takes it. Such fields are rewritten as the list of their values, once each.
    let err = first;
    if (/duplicate values/.test(errorText(first))) {
      try {
        const once = upper.map(withoutRepeats);
        return new WallCron(parseUtc(once.join(' ')), vixieDayRule(once, upper));
      } catch (again) {
        err = again;
      }
    }
    // cron-parser's messages do not say which field they mean; parse each alone to find it.
    for (let i = 0; i < 5; i++) {
      try {
        parseUtc(upper.map((f, j) => (j === i ? f : '*')).join(' '));
      } catch (fieldErr) {
        return `cron_expression ${FIELD_NAMES[i]} field "${fields[i]}" is invalid: ${inOurWords(errorText(fieldErr))}`;
      }
    }
    // Only combinations get here, e.g. "0 0 30 2 *" (February has no 30th).
    if (/day of month/i.test(errorText(err))) {
      return `cron_expression never matches a date: no month of the month field "${fields[3]}" has a day of the day-of-month field "${fields[2]}"`;
    }
    return `cron_expression is invalid: ${errorText(err)}`;
  }
}

const FIELD_KEYS = ['minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;

/** A list field as the sorted values its items name, each once; other fields as they are. */
function withoutRepeats(field: string, index: number): string {
  const items = field.split(',');
  if (items.length < 2 || /[L#]/.test(field)) return field;
  const values = new Set<number>();
  for (const item of items) {
    const alone = parseUtc(FIELD_KEYS.map((_, i) => (i === index ? item : '*')).join(' '));
    // Sunday is 0 and 7 alike.
    for (const v of alone.fields[FIELD_KEYS[index]].values) values.add(index === 4 && v === 7 ? 0 : Number(v));
  }
  return [...values].sort((a, b) => a - b).join(',');
}

function fieldSyntaxProblem(field: string, upper: string, index: number): string | null {
  const name = FIELD_NAMES[index];
  const withoutNames =
    index >= 3 ? upper.replace(/JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC|SUN|MON|TUE|WED|THU|FRI|SAT/g, '') : upper;
  // H as an item of its own (H, H/5, H(0-5)); a stray letter of a misspelt name is a syntax error.
  if (/(^|[^A-Z])H/.test(withoutNames)) {
    return `cron_expression ${name} field "${field}": H (hashed values) is not supported`;
  }
  if (field.includes('?')) {
    return `cron_expression ${name} field "${field}": "?" is not supported; use "*"`;
  }
  if (index === 2 && upper.includes('W')) {
    return `cron_expression ${name} field "${field}": W (nearest weekday) is not supported`;
  }
  const items = upper.split(',');
  if (index === 4 && items.length > 1 && upper.includes('#')) {
    // cron-parser computes DOW#N only as a field of its own; an automation takes up to 50 triggers.
    return `cron_expression ${name} field "${field}": DOW#N cannot share a list with other days; give each its own trigger (e.g. "0 9 * * MON#1" and "0 9 * * FRI#3")`;
  }
  if (items.every((item) => ITEM_PATTERNS[index].test(item))) return null;
  return `cron_expression ${name} field "${field}" is not valid; allowed: ${FIELD_HINTS[index]}`;
}

/** cron-parser's own wording, said as a sentence about the field. */
function inOurWords(message: string): string {
  let m: RegExpMatchArray | null;
  if ((m = /^Constraint error, got (?:value|range) (\S+) expected range (\S+)$/.exec(message))) return `${m[1]} is out of range: values are ${m[2]}`;
  if (/^Constraint error, cannot repeat at every 0 time/.test(message)) return 'a step of 0 never moves on: steps start at 1';
  if (/occurrence number \(#\)/.test(message)) return 'the N of DAY#N (the Nth such weekday of the month) must be 1-5';
  if ((m = /^Invalid range: (\S+), min\((\S+)\) > max\((\S+)\)$/.exec(message))) return `the range ${m[1]} runs backwards: write the smaller value first`;
  return message;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** True for IANA time-zone names this runtime knows ("UTC", "Europe/Berlin"); false otherwise. */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz === '' || tz.length > 100) return false;
  // Newer runtimes accept bare offsets ("+01:00"); they are not zone names and carry no DST.
  if (/^[+-]/.test(tz)) return false;
  // The default zone, known without asking Intl: its first zone lookup loads the time zone data.
  if (tz === 'UTC') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

let zonesByLowerCase: Map<string, string> | undefined;

/**
 * A valid zone name as the tz database spells it: zone names match case-insensitively, so
 * "europe/paris" works, and is stored and shown as "Europe/Paris". Names the runtime does not
 * list as canonical (links such as "US/Eastern") are kept as sent.
 */
export function timeZoneAsSpelled(tz: string): string {
  zonesByLowerCase ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((z) => [z.toLowerCase(), z]));
  return zonesByLowerCase.get(tz.toLowerCase()) ?? tz;
}

/**
 * Compiles `expr` in `timezone` once for repeated use. Throws a RangeError carrying the
 * validation message when either is invalid.
 */
export function createCronSchedule(expr: string, timezone: string): CronSchedule {
  const parsed = parseCron(expr);
  if (typeof parsed === 'string') throw new RangeError(parsed);
  if (!isValidTimeZone(timezone)) throw new RangeError(`timezone "${timezone}" is not a known IANA time zone`);
  const walker = new ScheduleWalker(parsed, new ZoneClock(timezone));
  return {
    next: (after) => new Date(walker.nextAfter(instantOf(after, 'after'))),
    nextRuns: (after, count) => {
      const runs: Date[] = [];
      let t = instantOf(after, 'after');
      for (let i = 0; i < count; i++) {
        t = walker.nextAfter(t);
        runs.push(new Date(t));
      }
      return runs;
    },
    previous: (before) => {
      const t = walker.previousAtOrBefore(instantOf(before, 'before'));
      return t === null ? null : new Date(t);
    },
  };
}

/** The first slot of `expr` strictly after `after`, computed in `timezone`. */
export function nextCronRun(expr: string, timezone: string, after: Date): Date {
  return createCronSchedule(expr, timezone).next(after);
}

/** The next `count` slots strictly after `after`, ascending, each once. */
export function nextCronRuns(expr: string, timezone: string, after: Date, count: number): Date[] {
  return createCronSchedule(expr, timezone).nextRuns(after, count);
}

/** The newest slot at or before `before` (for catch-up), or null when there is none. */
export function previousCronRun(expr: string, timezone: string, before: Date): Date | null {
  return createCronSchedule(expr, timezone).previous(before);
}

/**
 * The next time a schedule trigger fires after `after`: its cron slot, or its one-off time when
 * that is later than `after`, else null. `cron_expression` wins when both are set. A null
 * timezone means UTC.
 */
export function nextScheduleRun(trigger: ScheduleTrigger, after: Date): Date | null {
  const timezone = trigger.timezone ?? 'UTC';
  if (trigger.cron_expression !== null && trigger.cron_expression.trim() !== '') {
    return nextCronRun(trigger.cron_expression, timezone, after);
  }
  if (trigger.one_off_at !== null) {
    const at = parseOneOffAt(trigger.one_off_at, timezone);
    return at !== null && at.getTime() > after.getTime() ? at : null;
  }
  return null;
}

/**
 * Parses a one-off time. A timestamp with `Z` or an offset is taken as is; a local date-time
 * without one ("2026-03-08T02:30" or with seconds) is read as wall time in `timezone`, with
 * the same DST rules as cron slots. null when unparseable or the zone is unknown.
 */
export function parseOneOffAt(value: string, timezone: string): Date | null {
  const local = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/.exec(value.trim());
  if (!local) {
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(value.trim())) return null;
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : new Date(ms);
  }
  if (!isValidTimeZone(timezone)) return null;
  const [, y, mo, d, h, mi, s, frac] = local;
  const wall = Date.UTC(+y, +mo - 1, +d, +h, +mi, s ? +s : 0, frac ? +frac.padEnd(3, '0') : 0);
  const check = new Date(wall);
  if (check.getUTCMonth() !== +mo - 1 || check.getUTCDate() !== +d || +h > 23 || +mi > 59) return null;
  return new Date(new ZoneClock(timezone).firstInstantOfWall(wall));
}

function instantOf(date: Date, name: string): number {
  const t = date instanceof Date ? date.getTime() : Number.NaN;
  if (!Number.isFinite(t)) throw new RangeError(`${name} must be a valid Date`);
  return t;
}

const WEEK_MS = 7 * DAY_MS;
/** per zone, per UTC year: the instants its offset changes (see ZoneClock.transitionsIn) */
const TRANSITIONS = new Map<string, Map<number, readonly number[]>>();
const MAX_CACHED_YEARS = 2_000;

/** UTC offsets of one zone, and the instants where they change. */
class ZoneClock {
  readonly #zone: string;
  readonly #format: Intl.DateTimeFormat;

  constructor(timezone: string) {
    this.#zone = timezone;
    // `GMT-05:00`: five times quicker to read than the date-time parts.
    this.#format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' });
  }

  /** Local minus UTC, in ms, at instant `t`. */
  offset(t: number): number {
    const m = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(this.#format.format(t));
    if (!m?.[1]) return 0;
    const ms = ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0)) * 1000;
    return m[1] === '-' ? -ms : ms;
  }

  /** The instants in UTC year `year` at which the offset changes, ascending (cached per zone). */
  transitionsIn(year: number): readonly number[] {
    let years = TRANSITIONS.get(this.#zone);
    if (!years) TRANSITIONS.set(this.#zone, (years = new Map()));
    const cached = years.get(year);
    if (cached) return cached;
    const found: number[] = [];
    // Weekly probes see every change, as changes are at least a week apart (see the top).
    const end = Date.UTC(year + 1, 0, 1);
    let at = Date.UTC(year, 0, 1);
    let offset = this.offset(at);
    while (at < end) {
      const next = Math.min(end, at + WEEK_MS);
      const o = this.offset(next);
      if (o !== offset) found.push(this.firstChange(at, next, offset));
      at = next;
      offset = o;
    }
    if (years.size >= MAX_CACHED_YEARS) years.clear();
    years.set(year, found);
    return found;
  }

  /** The first instant in (from, to] whose offset is not `ref`; offset(from) is ref, offset(to) not. */
  firstChange(from: number, to: number, ref: number): number {
    let lo = from;
    let hi = to;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      if (this.offset(mid) === ref) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /**
   * The first change of offset in (from, to] (a change from offset(from)), or null. From the zone's
   * changes year by year: comparing only the offsets at the two ends missed a summer that began
   * and ended in between (a yearly 01:30 job then ran in the second pass of the repeated hour).
   */
  changeWithin(from: number, to: number): number | null {
    for (let year = new Date(from).getUTCFullYear(); year <= new Date(to).getUTCFullYear(); year++) {
      for (const t of this.transitionsIn(year)) if (t > from && t <= to) return t;
    }
    return null;
  }

  /**
   * The instant a wall time (encoded as UTC ms) first occurs; for a wall time inside a
   * spring-forward gap, the first instant after the gap.
   */
  firstInstantOfWall(wall: number): number {
    const earlier = this.offset(wall - TRANSITION_WINDOW_MS);
    const later = this.offset(wall + TRANSITION_WINDOW_MS);
    const candidates = [wall - earlier, wall - later].sort((a, b) => a - b);
    for (const t of candidates) if (t + this.offset(t) === wall) return t;
    // In the gap: the change lies between the two readings.
    return this.firstChange(wall - later, wall - earlier, earlier);
  }
}

// How many days a walk under Vixie's day rule looks at before giving up. A satisfiable rule
// runs within 28 years (40 across a century year that is no leap year).
const MAX_DAY_RULE_DAYS = 50 * 366;

/** A parsed expression walked over wall-clock times encoded as UTC (see the top of this file). */
class WallCron {
  readonly #expr: CronExpression;
  readonly #days: DayRule | null;

  constructor(expr: CronExpression, days: DayRule | null) {
    this.#expr = expr;
    this.#days = days;
  }

  /** false when the expression can never run (only possible under Vixie's day rule). */
  get satisfiable(): boolean {
    return this.#days?.satisfiable ?? true;
  }

  /** The smallest matching wall time strictly after `wall`; throws when there is none. */
  after(wall: number): number {
    if (!this.#days) {
      this.#expr.reset(new Date(wall));
      return this.#expr.next().getTime();
    }
    const { times, runsOn } = this.#days;
    let dayStart = startOfDay(wall);
    for (let i = 0; i < MAX_DAY_RULE_DAYS; i++, dayStart += DAY_MS) {
      if (!runsOn(dayStart)) continue;
      times.reset(new Date(Math.max(wall, dayStart - 1)));
      const t = times.next().getTime();
      if (t < dayStart + DAY_MS) return t;
    }
    throw new Error('cron_expression never matches a date');
  }

  /** The largest matching wall time strictly before `wall`, or null. */
  before(wall: number): number | null {
    const expr = this.#days?.times ?? this.#expr;
    const prevBefore = (t: number): number | null => {
      expr.reset(new Date(t));
      try {
        return expr.prev().getTime();
      } catch {
        return null;
      }
    };
    if (!this.#days) return prevBefore(wall);
    let dayStart = startOfDay(wall - 1);
    for (let i = 0; i < MAX_DAY_RULE_DAYS; i++, dayStart -= DAY_MS) {
      if (!this.#days.runsOn(dayStart)) continue;
      const t = prevBefore(Math.min(wall, dayStart + DAY_MS));
      if (t === null) return null;
      if (t >= dayStart) return t;
    }
    return null;
  }
}

const startOfDay = (wall: number): number => wall - (((wall % DAY_MS) + DAY_MS) % DAY_MS);

/** Walks a parsed expression through real time in one zone, applying the DST rules above. */
class ScheduleWalker {
  readonly #wall: WallCron;
  readonly #zone: ZoneClock;

  constructor(wall: WallCron, zone: ZoneClock) {
    this.#wall = wall;
    this.#zone = zone;
  }

  nextAfter(after: number): number {
    const zone = this.#zone;
    // Invariant: every run in (lo, ...) until the next offset change has offset `o`, so its wall
    // time is its instant plus `o`, and the runs are exactly the matching walls after lo + o.
    let lo = after;
    let o = zone.offset(lo + 1);
    lo = this.#skipSecondPass(lo, o);
    // The last wall search: no match lies in [searchedFrom, found), so a search starting in
    // there finds `found` again. A rare expression (29 February) crosses decades of offset
    // changes, each of which would otherwise search the calendar anew.
    let searchedFrom = Infinity;
    let found = -Infinity;
    for (let step = 0; step < MAX_SEARCH_STEPS; step++) {
      const from = lo + o;
      if (!(from >= searchedFrom && from < found)) {
        searchedFrom = from;
        found = this.#wall.after(from);
      }
      const wall = found;
      const candidate = wall - o;
      const change = zone.changeWithin(lo + 1, candidate);
      if (change === null) return candidate;
      const newOffset = zone.offset(change);
      if (newOffset > o) {
        // Spring forward: walls in [change + o, change + newOffset) never occur.
        if (wall < change + newOffset) return change;
        lo = change - 1;
      } else {
        // Fall back: walls in [change + newOffset, change + o) occur again; they ran in the first pass.
        lo = change + (o - newOffset) - 1;
      }
      o = newOffset;
    }
    throw new Error('cron schedule search did not converge');
  }

  /** When lo is in the second pass of a repeated hour, moves past it: those walls ran in the first. */
  #skipSecondPass(lo: number, o: number): number {
    const dayBefore = lo + 1 - TRANSITION_WINDOW_MS;
    const earlier = this.#zone.offset(dayBefore);
    if (earlier <= o) return lo;
    const change = this.#zone.firstChange(dayBefore, lo + 1, earlier);
    return Math.max(lo, change + (earlier - o) - 1);
  }

  previousAtOrBefore(before: number): number | null {
    const zone = this.#zone;
    let wall = this.#wall.before(before + zone.offset(before) + 1);
    for (let step = 0; wall !== null && step < MAX_SEARCH_STEPS; step++) {
      // Whatever instant `wall` maps to lies at or after wall minus the largest nearby offset.
      const approx = wall - zone.offset(before);
      const largest = Math.max(
        zone.offset(approx - TRANSITION_WINDOW_MS),
        zone.offset(approx),
        zone.offset(approx + TRANSITION_WINDOW_MS),
      );
      let run = this.nextAfter(wall - largest - 1);
      if (run <= before) {
        for (let next = this.nextAfter(run); next <= before; next = this.nextAfter(run)) run = next;
        return run;
      }
      // `wall` produced no run at or before `before` (a time inside a gap runs at the gap's end,
      // which may be after `before`): go back one.
      wall = this.#wall.before(wall);
    }
    return null;
  }
}
