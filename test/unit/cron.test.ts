import { CronExpressionParser } from 'cron-parser';
import { describe, expect, it } from 'vitest';
import {
  createCronSchedule,
  isValidTimeZone,
  nextCronRun,
  nextCronRuns,
  nextScheduleRun,
  parseOneOffAt,
  previousCronRun,
  validateCronExpression,
} from '../../shared/cron.js';
import { formatInZone } from '../../shared/zone-time.js';

const at = (iso: string): Date => new Date(iso);
const isoList = (dates: Date[]): string[] => dates.map((d) => d.toISOString());
const runs = (expr: string, tz: string, after: string, count: number): string[] =>
  isoList(nextCronRuns(expr, tz, at(after), count));

describe('validateCronExpression', () => {
  it.each([
    '*/15 * * * *',
    '0 9 * * MON-FRI',
    '0 9 * * mon-fri',
    '0 0 1,15 * *',
    '30 2 L * *',
    '0 0 l * *',
    '0 0 * * 1#2',
    '0 0 * * MON#2',
    '0 0 * * 5L',
    '0 0 * jan-mar SUN',
    '5-55/10 1-5 * * *',
    '0 12 13 * FRI',
    '0 0 * * THU',
    '0 0 * * 7',
    '  0   0 * * *  ',
    '0 0 29 2 *',
  ])('accepts %j', (expr) => {
    expect(validateCronExpression(expr)).toBeNull();
  });

  it('rejects 4 fields with a message naming the five fields and the count', () => {
    expect(validateCronExpression('* * * *')).toBe(
      'cron_expression must have exactly 5 fields (minute hour day-of-month month day-of-week); got 4',
    );
  });

  it('rejects a seconds field (6 fields) and says seconds are not supported', () => {
    expect(validateCronExpression('0 * * * * *')).toBe(
      'cron_expression must have exactly 5 fields (minute hour day-of-month month day-of-week); got 6 (a seconds or year field is not supported)',
    );
  });

  it('rejects 7 fields', () => {
    expect(validateCronExpression('0 0 0 * * * 2026')).toMatch(/exactly 5 fields .*got 7$/);
  });

  it('rejects an empty expression', () => {
    expect(validateCronExpression('   ')).toMatch(/must not be empty/);
  });

  it.each(['@daily', '@hourly', '@weekly', '@reboot', '@yearly'])('rejects the macro %s', (macro) => {
    expect(validateCronExpression(macro)).toMatch(new RegExp(`macros such as ${macro} are not supported`));
  });

  it.each([
    ['H * * * *', 'minute'],
    ['0 H(0-5) * * *', 'hour'],
    ['H/5 * * * *', 'minute'],
    ['0 0 * * H', 'day-of-week'],
    ['0 0 h * *', 'day-of-month'],
  ])('rejects H in %j naming the %s field', (expr, field) => {
    expect(validateCronExpression(expr)).toMatch(new RegExp(`${field} field .*H \\(hashed values\\) is not supported`));
  });

  it.each([
    ['60 * * * *', 'minute field "60"'],
    ['0 24 * * *', 'hour field "24"'],
    ['0 0 0 * *', 'day-of-month field "0"'],
    ['0 0 32 * *', 'day-of-month field "32"'],
    ['0 0 * 13 *', 'month field "13"'],
    ['0 0 * * 8', 'day-of-week field "8"'],
    ['5-1 * * * *', 'minute field "5-1"'],
    ['*/0 * * * *', 'minute field "*/0"'],
    ['0 0 * * 1#6', 'day-of-week field "1#6"'],
    ['0 0 * FOO *', 'month field "FOO"'],
  ])('rejects the out-of-range or malformed %j naming the field', (expr, named) => {
    expect(validateCronExpression(expr)).toContain(`cron_expression ${named}`);
  });

  it.each([
    ['1- * * * *', 'minute'],
    ['a * * * *', 'minute'],
    ['1.5 * * * *', 'minute'],
    ['0 0 L-2 * *', 'day-of-month'],
    ['0 0 * * #2', 'day-of-week'],
    ['0 0 * MARCH *', 'month'],
  ])('rejects the syntax error %j naming the %s field and what it allows', (expr, field) => {
    expect(validateCronExpression(expr)).toMatch(new RegExp(`^cron_expression ${field} field ".*" is not valid; allowed: `));
  });

  it.each([
    ['61 * * * *', 'cron_expression minute field "61" is invalid: 61 is out of range: values are 0-59'],
    ['0 9 * * 1-8', 'cron_expression day-of-week field "1-8" is invalid: 1-8 is out of range: values are 0-7'],
    ['*/0 * * * *', 'cron_expression minute field "*/0" is invalid: a step of 0 never moves on: steps start at 1'],
    ['5-1 * * * *', 'cron_expression minute field "5-1" is invalid: the range 5-1 runs backwards: write the smaller value first'],
    ['0 9 * * 1#0', 'cron_expression day-of-week field "1#0" is invalid: the N of DAY#N (the Nth such weekday of the month) must be 1-5'],
    ['0 9 * * 1#6', 'cron_expression day-of-week field "1#6" is invalid: the N of DAY#N (the Nth such weekday of the month) must be 1-5'],
  ])('says what is wrong with %s in its own words, not the parser library\'s', (expr, message) => {
    expect(validateCronExpression(expr)).toBe(message);
  });

  it('rejects "?" and suggests "*"', () => {
    expect(validateCronExpression('0 0 ? * MON')).toMatch(/"\?" is not supported; use "\*"/);
  });

  it('rejects DOW#N in a list with other days, saying to give each its own trigger', () => {
    for (const expr of ['0 0 * * MON#2,FRI#1', '0 0 * * 1#1,3', '0 0 * * mon,fri#3']) {
      expect(validateCronExpression(expr)).toMatch(/^cron_expression day-of-week field ".*": DOW#N cannot share a list with other days; give each its own trigger/);
    }
    expect(validateCronExpression('0 0 * * MON#2')).toBeNull();
  });

  it('rejects W (nearest weekday)', () => {
    expect(validateCronExpression('0 0 15W * *')).toMatch(/W \(nearest weekday\) is not supported/);
  });

  it('rejects a day that no month in the expression has, naming both fields', () => {
    expect(validateCronExpression('0 0 30 2 *')).toBe(
      'cron_expression never matches a date: no month of the month field "2" has a day of the day-of-month field "30"',
    );
    expect(validateCronExpression('0 0 31 apr,jun *')).toBe(
      'cron_expression never matches a date: no month of the month field "apr,jun" has a day of the day-of-month field "31"',
    );
    // One month that has the day is enough.
    expect(validateCronExpression('0 0 31 2,3 *')).toBeNull();
  });
});

describe('schedules in UTC: ranges, lists, steps, names, L and #', () => {
  const after = '2026-01-01T00:00:00Z';

  it('steps over minutes run every 15 minutes', () => {
    expect(runs('*/15 * * * *', 'UTC', after, 3)).toEqual([
      '2026-01-01T00:15:00.000Z',
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T00:45:00.000Z',
    ]);
  });

  it('a range with a step and a list combine', () => {
    expect(runs('5-20/5,45 9 * * *', 'UTC', after, 5)).toEqual([
      '2026-01-01T09:05:00.000Z',
      '2026-01-01T09:10:00.000Z',
      '2026-01-01T09:15:00.000Z',
      '2026-01-01T09:20:00.000Z',
      '2026-01-01T09:45:00.000Z',
    ]);
  });

  it('month and day names select weekdays in the named months only', () => {
    // 2026-01-01 is a Thursday.
    expect(runs('0 9 * FEB MON-WED', 'UTC', after, 4)).toEqual([
      '2026-02-02T09:00:00.000Z',
      '2026-02-03T09:00:00.000Z',
      '2026-02-04T09:00:00.000Z',
      '2026-02-09T09:00:00.000Z',
    ]);
  });

  it('L runs on the last day of each month, including February', () => {
    expect(runs('0 0 L * *', 'UTC', after, 3)).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
  });

  it('DOW#N runs on the Nth weekday of each month', () => {
    expect(runs('0 0 * * 1#2', 'UTC', after, 3)).toEqual([
      '2026-01-12T00:00:00.000Z',
      '2026-02-09T00:00:00.000Z',
      '2026-03-09T00:00:00.000Z',
    ]);
  });

  it('a day-of-month and a day-of-week both restricted match either (Vixie cron)', () => {
    // Fridays, and the 13th whatever weekday it is (2026-01-13 is a Tuesday).
    expect(runs('0 0 13 * FRI', 'UTC', after, 4)).toEqual([
      '2026-01-02T00:00:00.000Z',
      '2026-01-09T00:00:00.000Z',
      '2026-01-13T00:00:00.000Z',
      '2026-01-16T00:00:00.000Z',
    ]);
  });

  it('a stepped star day-of-month with a restricted day-of-week matches days where both do (Vixie cron)', () => {
    // Vixie cron calls a day field starting with * unrestricted: the two fields AND. Mondays
    // that are the 1st, 11th, 21st or 31st:
    expect(runs('30 9 */10 * MON', 'UTC', after, 4)).toEqual([
      '2026-05-11T09:30:00.000Z',
      '2026-06-01T09:30:00.000Z',
      '2026-08-31T09:30:00.000Z',
      '2026-09-21T09:30:00.000Z',
    ]);
  });

  it('a stepped star day-of-week with a restricted day-of-month matches days where both do', () => {
    // The 15th when it is a Sunday, Tuesday, Thursday or Saturday; and the last day of the
    // month when it is a Sunday, Wednesday or Saturday.
    expect(runs('0 0 15 * */2', 'UTC', after, 4)).toEqual([
      '2026-01-15T00:00:00.000Z',
      '2026-02-15T00:00:00.000Z',
      '2026-03-15T00:00:00.000Z',
      '2026-08-15T00:00:00.000Z',
    ]);
    expect(runs('0 12 L * */3', 'UTC', after, 3)).toEqual(['2026-01-31T12:00:00.000Z', '2026-02-28T12:00:00.000Z', '2026-05-31T12:00:00.000Z']);
  });

  it('the AND rule works with the nth and last weekday forms, and finds the rare days far ahead', () => {
    expect(runs('0 0 */10 * 5L', 'UTC', after, 3)).toEqual(['2026-07-31T00:00:00.000Z', '2027-12-31T00:00:00.000Z', '2028-03-31T00:00:00.000Z']);
    // 29 February on a Sunday.
    expect(runs('0 0 29 2 */7', 'UTC', after, 2)).toEqual(['2032-02-29T00:00:00.000Z', '2060-02-29T00:00:00.000Z']);
  });

  it('previous runs follow the AND rule too', () => {
    expect(previousCronRun('0 0 */10 * MON', 'UTC', new Date('2026-08-30T00:00:00Z'))?.toISOString()).toBe('2026-06-01T00:00:00.000Z');
    expect(previousCronRun('*/5 * */30 2 MON', 'UTC', new Date('2027-02-01T10:07:00Z'))?.toISOString()).toBe('2027-02-01T10:05:00.000Z');
  });

  it('a day field that covers every day without a star (1-31) is restricted, so it still matches either', () => {
    expect(runs('0 0 1-31 * MON', 'UTC', after, 3)).toEqual(['2026-01-02T00:00:00.000Z', '2026-01-03T00:00:00.000Z', '2026-01-04T00:00:00.000Z']);
  });

  it('an AND of day fields that no date satisfies is refused as never matching', () => {
    // The 1st or 21st that is also the second Monday (the 8th to the 14th): never.
    expect(validateCronExpression('0 0 */20 * 1#2')).toBe('cron_expression never matches a date');
    expect(validateCronExpression('* * */20 * MON#2')).toBe('cron_expression never matches a date');
  });

  it('a list that names a value twice is taken, as Vixie cron takes it', () => {
    for (const expr of ['0 0 * * 0,7', '0 0 * * SUN,7', '1,1 * * * *', '0-30,15 * * * *', '0 0 1,1-3 * *', '0 0 * JAN,1 *']) {
      expect(validateCronExpression(expr), expr).toBeNull();
    }
    expect(runs('0 0 * * 0,7', 'UTC', after, 2)).toEqual(['2026-01-04T00:00:00.000Z', '2026-01-11T00:00:00.000Z']);
    expect(runs('0-30,15 9 1 1 *', 'UTC', after, 3)).toEqual(['2026-01-01T09:00:00.000Z', '2026-01-01T09:01:00.000Z', '2026-01-01T09:02:00.000Z']);
    // Still a starred day field, so still the AND rule: Mondays that are the 1st, 11th, 21st or 31st.
    expect(runs('0 0 */10,1 * MON', 'UTC', after, 1)).toEqual(['2026-05-11T00:00:00.000Z']);
  });

  it('only a day-of-week restricted means those weekdays only', () => {
    expect(runs('0 0 * * FRI', 'UTC', after, 2)).toEqual(['2026-01-02T00:00:00.000Z', '2026-01-09T00:00:00.000Z']);
  });

  it('the next run is strictly after the given instant', () => {
    expect(nextCronRun('0 * * * *', 'UTC', at('2026-01-01T05:00:00Z')).toISOString()).toBe('2026-01-01T06:00:00.000Z');
    expect(nextCronRun('0 * * * *', 'UTC', at('2026-01-01T04:59:59.999Z')).toISOString()).toBe(
      '2026-01-01T05:00:00.000Z',
    );
  });

  it('a leap-day schedule waits for the next leap year', () => {
    expect(nextCronRun('0 0 29 2 *', 'UTC', at(after)).toISOString()).toBe('2028-02-29T00:00:00.000Z');
  });

  it('throws a RangeError with the validation message for an invalid expression or zone', () => {
    expect(() => nextCronRun('@daily', 'UTC', at(after))).toThrow(RangeError);
    expect(() => nextCronRun('@daily', 'UTC', at(after))).toThrow(/macros/);
    expect(() => nextCronRun('0 0 * * *', 'Mars/Base', at(after))).toThrow(/timezone "Mars\/Base" is not a known/);
    expect(() => nextCronRun('0 0 * * *', 'UTC', new Date('nope'))).toThrow(/after must be a valid Date/);
  });
});

describe('isValidTimeZone', () => {
  it.each(['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Etc/GMT+5'])(
    'accepts %s',
    (tz) => {
      expect(isValidTimeZone(tz)).toBe(true);
    },
  );

  it.each(['Mars/Base', '', 'Europe/Atlantis', '+01:00', '-05:00', 'local', 'Z'])('rejects %j', (tz) => {
    expect(isValidTimeZone(tz)).toBe(false);
  });
});

describe('DST in America/New_York (2026-03-08 spring forward, 2026-11-01 fall back)', () => {
  const NY = 'America/New_York';

  it('a daily 02:30 on the spring-forward day runs once, at 03:00 EDT (07:00Z)', () => {
    expect(runs('30 2 * * *', NY, '2026-03-07T12:00:00Z', 3)).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
      '2026-03-10T06:30:00.000Z',
    ]);
    expect(formatInZone(at('2026-03-08T07:00:00Z'), NY)).toBe('2026-03-08 03:00 EDT');
  });

  it('a daily 01:30 on the fall-back day runs once, at the first 01:30 (EDT)', () => {
    expect(runs('30 1 * * *', NY, '2026-10-31T12:00:00Z', 3)).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
      '2026-11-03T06:30:00.000Z',
    ]);
  });

  it('asked from inside the repeated hour, a daily 01:30 does not run a second time that day', () => {
    // 06:10Z is 01:10 EST, the second pass; 01:30 already ran at 05:30Z.
    expect(nextCronRun('30 1 * * *', NY, at('2026-11-01T06:10:00Z')).toISOString()).toBe('2026-11-02T06:30:00.000Z');
    expect(nextCronRun('30 1 * * *', NY, at('2026-11-01T05:30:00Z')).toISOString()).toBe('2026-11-02T06:30:00.000Z');
  });

  it('hourly runs once per real hour across spring forward (no 02:00, no extra run)', () => {
    expect(runs('0 * * * *', NY, '2026-03-08T05:30:00Z', 3)).toEqual([
      '2026-03-08T06:00:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T08:00:00.000Z',
    ]);
  });

  // CONTRACT §5 names no exception for expressions that cover every hour: their local times
  // follow the same rule as a daily one's.
  it('hourly at :30: the 02:30 the gap skips runs at 03:00 EDT, then 03:30 as usual', () => {
    expect(runs('30 * * * *', NY, '2026-03-08T06:00:00Z', 3)).toEqual([
      '2026-03-08T06:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:30:00.000Z',
    ]);
  });

  it('hourly runs 01:00 once on the fall-back night, at its first occurrence', () => {
    expect(runs('0 * * * *', NY, '2026-11-01T03:30:00Z', 4)).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T07:00:00.000Z',
      '2026-11-01T08:00:00.000Z',
    ]);
  });

  it('*/15 runs each quarter hour of the repeated hour once, in the first pass', () => {
    const quarters = (from: string, n: number) => Array.from({ length: n }, (_, i) => new Date(Date.parse(from) + i * 900_000).toISOString());
    expect(runs('*/15 * * * *', NY, '2026-11-01T04:50:00Z', 12)).toEqual([...quarters('2026-11-01T05:00:00Z', 4), ...quarters('2026-11-01T07:00:00Z', 8)]);
  });

  it('*/15 asked from the last minutes of the first pass goes on after the second', () => {
    // 05:50Z is 01:50 EDT; 06:00Z to 06:45Z repeat 01:00 to 01:45, so the next is 07:00Z = 02:00 EST.
    expect(nextCronRun('*/15 * * * *', NY, at('2026-11-01T05:50:00Z')).toISOString()).toBe('2026-11-01T07:00:00.000Z');
    expect(nextCronRun('*/15 * * * *', NY, at('2026-11-01T06:20:00Z')).toISOString()).toBe('2026-11-01T07:00:00.000Z');
  });

  it('*/15 runs once at 03:00 EDT for the quarter hours the spring gap skips', () => {
    expect(runs('*/15 * * * *', NY, '2026-03-08T06:40:00Z', 3)).toEqual([
      '2026-03-08T06:45:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-08T07:15:00.000Z',
    ]);
  });

  it('several gap times of a time-of-day expression collapse into one run at 03:00', () => {
    expect(runs('0,30 2 * * *', NY, '2026-03-08T00:00:00Z', 3)).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
    expect(runs('0 2,3 * * *', NY, '2026-03-08T00:00:00Z', 3)).toEqual([
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:00:00.000Z',
      '2026-03-09T07:00:00.000Z',
    ]);
  });

  it('previousCronRun finds the moved gap run and includes the boundary', () => {
    expect(previousCronRun('30 2 * * *', NY, at('2026-03-09T00:00:00Z'))?.toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(previousCronRun('30 2 * * *', NY, at('2026-03-08T07:00:00Z'))?.toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(previousCronRun('30 2 * * *', NY, at('2026-03-08T06:59:59Z'))?.toISOString()).toBe('2026-03-07T07:30:00.000Z');
  });

  it('previousCronRun of a daily 01:30 after fall back is the first 01:30, not the repeat', () => {
    expect(previousCronRun('30 1 * * *', NY, at('2026-11-01T07:00:00Z'))?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('previousCronRun of hourly inside the repeated hour is the first 01:00', () => {
    expect(previousCronRun('0 * * * *', NY, at('2026-11-01T06:30:00Z'))?.toISOString()).toBe('2026-11-01T05:00:00.000Z');
  });
});

describe('DST in Europe/Berlin (2026-03-29 spring forward, 2026-10-25 fall back)', () => {
  const BERLIN = 'Europe/Berlin';

  it('a daily 02:30 on the spring-forward day runs once, at 03:00 CEST (01:00Z)', () => {
    expect(runs('30 2 * * *', BERLIN, '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
    expect(formatInZone(at('2026-03-29T01:00:00Z'), BERLIN)).toBe('2026-03-29 03:00 CEST');
  });

  it('a daily 02:30 on the fall-back day runs once, at the first 02:30 (CEST)', () => {
    expect(runs('30 2 * * *', BERLIN, '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    expect(nextCronRun('30 2 * * *', BERLIN, at('2026-10-25T01:10:00Z')).toISOString()).toBe('2026-10-26T01:30:00.000Z');
  });

  it('hourly runs each local hour once across spring forward and fall back', () => {
    // 02:00 does not exist on 29 March: it runs at 03:00 CEST, which is also 03:00's own run.
    expect(runs('0 * * * *', BERLIN, '2026-03-29T00:30:00Z', 3)).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-29T02:00:00.000Z',
      '2026-03-29T03:00:00.000Z',
    ]);
    // 02:00 occurs twice on 25 October (00:00Z CEST, 01:00Z CET): it runs the first time.
    expect(runs('0 * * * *', BERLIN, '2026-10-24T23:30:00Z', 4)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T02:00:00.000Z',
      '2026-10-25T03:00:00.000Z',
      '2026-10-25T04:00:00.000Z',
    ]);
  });

  it('every 15 minutes during the 02 hour runs once at 03:00 when the hour is skipped', () => {
    expect(runs('*/15 2 * * *', BERLIN, '2026-03-28T12:00:00Z', 2)).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:00:00.000Z',
    ]);
  });

  it('every 15 minutes during the 02 hour runs in the first pass only when the hour repeats', () => {
    expect(runs('*/15 2 * * *', BERLIN, '2026-10-24T12:00:00Z', 5)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:15:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T00:45:00.000Z',
      '2026-10-26T01:00:00.000Z',
    ]);
  });

  it('formats winter time as CET', () => {
    expect(formatInZone(at('2026-01-15T12:00:00Z'), BERLIN)).toBe('2026-01-15 13:00 CET');
  });
});

/**
 * An independent reading of the DST rules, minute by minute over real time: each matching local
 * time runs at its first occurrence, or at the first real minute after it when it never occurs.
 */
function bruteForce(expr: string, tz: string, from: number, to: number): number[] {
  const wallFormat = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
  });
  const wallOf = (t: number): number => {
    const p = Object.fromEntries(wallFormat.formatToParts(t).map((x) => [x.type, Number(x.value)]));
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
  };
  const cron = CronExpressionParser.parse(expr, { tz: 'UTC' });
  const matches = (wall: number): boolean => cron.includesDate(new Date(wall));
  const out = new Set<number>();
  let lastWall = wallOf(from) - 60_000;
  for (let t = from; t <= to; t += 60_000) {
    const wall = wallOf(t);
    if (wall > lastWall) {
      for (let skipped = lastWall + 60_000; skipped < wall; skipped += 60_000) {
        if (matches(skipped)) out.add(t);
      }
      if (matches(wall)) out.add(t);
    }
    lastWall = Math.max(lastWall, wall);
  }
  return [...out].sort((a, b) => a - b);
}

describe('a search that starts long before a repeated hour, across a whole summer', () => {
  // Comparing the offsets at only the two ends of a search once saw standard time at both and
  // ran these in the second pass of the repeated hour (an hour late), or lost runs.
  it('a yearly 01:30 in New York runs in the first pass of 1 November', () => {
    expect(runs('30 1 1 11 *', 'America/New_York', '2026-01-01T00:00:00Z', 2)).toEqual(['2026-11-01T05:30:00.000Z', '2027-11-01T05:30:00.000Z']);
    expect(runs('30 1 * 11 0#1', 'America/New_York', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2027-11-07T05:30:00.000Z',
      '2028-11-05T05:30:00.000Z',
    ]);
  });

  it('the last Sunday of October at 02:30 in Berlin, every year', () => {
    expect(runs('30 2 * 10 0L', 'Europe/Berlin', '2026-01-01T00:00:00Z', 2)).toEqual(['2026-10-25T00:30:00.000Z', '2027-10-31T00:30:00.000Z']);
  });

  it('every minute of a repeated hour runs once, none lost', () => {
    expect(runs('0-59/20 1 1 11 *', 'America/New_York', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-11-01T05:00:00.000Z',
      '2026-11-01T05:20:00.000Z',
      '2026-11-01T05:40:00.000Z',
    ]);
    expect(runs('31-42 1 15 4 0', 'Australia/Lord_Howe', '2026-04-30T22:00:00Z', 2)).toEqual(['2027-04-03T14:31:00.000Z', '2027-04-03T14:32:00.000Z']);
  });

  it('previous runs too', () => {
    expect(previousCronRun('30 1 1 11 *', 'America/New_York', new Date('2026-11-01T06:00:00Z'))?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    expect(previousCronRun('30 2 25 10 *', 'Europe/Berlin', new Date('2026-10-25T01:00:00Z'))?.toISOString()).toBe('2026-10-25T00:30:00.000Z');
  });

  it('a run decades ahead (29 February on a Sunday) is found across every change in between', () => {
    expect(runs('0 0 29 2 */7', 'America/New_York', '2026-01-01T00:00:00Z', 2)).toEqual(['2032-02-29T05:00:00.000Z', '2060-02-29T05:00:00.000Z']);
  });
});

describe('agreement with a minute-by-minute reading around every 2026 transition', () => {
  const windows: Array<[string, string]> = [
    ['America/New_York', '2026-03-07T22:00:00Z'],
    ['America/New_York', '2026-10-31T22:00:00Z'],
    ['Europe/Berlin', '2026-03-28T20:00:00Z'],
    ['Europe/Berlin', '2026-10-24T20:00:00Z'],
    ['Australia/Lord_Howe', '2026-04-04T10:00:00Z'],
    ['Australia/Lord_Howe', '2026-10-03T10:00:00Z'],
    // Santiago changes at midnight, so the repeated and the skipped hour straddle two dates.
    ['America/Santiago', '2026-04-04T20:00:00Z'],
    ['America/Santiago', '2026-09-05T22:00:00Z'],
  ];
  const expressions = [
    '*/15 * * * *',
    '0 * * * *',
    '30 * * * *',
    '30 2 * * *',
    '30 1 * * *',
    '*/20 1-3 * * *',
    '0 */2 * * *',
    '45 0-4 * * *',
    '0 0 * * *',
    '30 23 * * *',
    '0 0 5,6 * *',
  ];

  for (const [tz, start] of windows) {
    for (const expr of expressions) {
      it(`${expr} in ${tz} from ${start}: next and previous agree with the minute-by-minute runs`, () => {
        const from = Date.parse(start);
        const to = from + 10 * 3_600_000;
        const expected = bruteForce(expr, tz, from, to);
        const schedule = createCronSchedule(expr, tz);
        const got: number[] = [];
        for (let t = schedule.next(new Date(from - 1)).getTime(); t <= to; t = schedule.next(new Date(t)).getTime()) {
          got.push(t);
        }
        expect(got.map((t) => new Date(t).toISOString())).toEqual(expected.map((t) => new Date(t).toISOString()));
        for (let probe = from + 60_000; probe <= to; probe += 7 * 60_000) {
          const newest = expected.filter((t) => t <= probe).at(-1);
          if (newest === undefined) continue;
          expect(schedule.previous(new Date(probe))?.toISOString()).toBe(new Date(newest).toISOString());
        }
      });
    }
  }
});

describe('nextScheduleRun', () => {
  const now = at('2026-05-01T12:00:00Z');

  it('a future one-off runs at its time', () => {
    const trigger = { cron_expression: null, one_off_at: '2026-05-02T08:00:00Z', timezone: null };
    expect(nextScheduleRun(trigger, now)?.toISOString()).toBe('2026-05-02T08:00:00.000Z');
  });

  it('a one-off at or before `after` has no next run', () => {
    expect(nextScheduleRun({ cron_expression: null, one_off_at: '2026-05-01T12:00:00Z', timezone: null }, now)).toBeNull();
    expect(nextScheduleRun({ cron_expression: null, one_off_at: '2026-04-30T12:00:00Z', timezone: 'UTC' }, now)).toBeNull();
  });

  it('a cron trigger uses its timezone, and UTC when the timezone is null', () => {
    expect(nextScheduleRun({ cron_expression: '0 9 * * *', one_off_at: null, timezone: 'Europe/Berlin' }, now)?.toISOString()).toBe(
      '2026-05-02T07:00:00.000Z',
    );
    expect(nextScheduleRun({ cron_expression: '0 9 * * *', one_off_at: null, timezone: null }, now)?.toISOString()).toBe(
      '2026-05-02T09:00:00.000Z',
    );
  });

  it('a trigger with neither has no next run', () => {
    expect(nextScheduleRun({ cron_expression: null, one_off_at: null, timezone: 'UTC' }, now)).toBeNull();
  });

  it('a one-off without an offset is read as wall time in the trigger timezone', () => {
    const trigger = { cron_expression: null, one_off_at: '2026-05-02T08:00:00', timezone: 'America/New_York' };
    expect(nextScheduleRun(trigger, now)?.toISOString()).toBe('2026-05-02T12:00:00.000Z');
  });
});

describe('parseOneOffAt', () => {
  it('takes timestamps with Z or an offset as they are', () => {
    expect(parseOneOffAt('2026-03-08T02:30:00Z', 'America/New_York')?.toISOString()).toBe('2026-03-08T02:30:00.000Z');
    expect(parseOneOffAt('2026-03-08T02:30:00+01:00', 'UTC')?.toISOString()).toBe('2026-03-08T01:30:00.000Z');
  });

  it('moves a local time inside the spring-forward gap to the end of the gap', () => {
    expect(parseOneOffAt('2026-03-08T02:30', 'America/New_York')?.toISOString()).toBe('2026-03-08T07:00:00.000Z');
  });

  it('takes the first of a repeated local time', () => {
    expect(parseOneOffAt('2026-11-01T01:30:00', 'America/New_York')?.toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });

  it('returns null for text that is not a timestamp or a date that does not exist', () => {
    expect(parseOneOffAt('tomorrow', 'UTC')).toBeNull();
    expect(parseOneOffAt('2026-02-30T10:00:00', 'UTC')).toBeNull();
    expect(parseOneOffAt('2026-02-10T10:00:00', 'Mars/Base')).toBeNull();
  });
});

describe('formatInZone', () => {
  it('writes the local date, time and zone abbreviation', () => {
    expect(formatInZone(at('2026-07-04T16:05:00Z'), 'America/New_York')).toBe('2026-07-04 12:05 EDT');
    expect(formatInZone(at('2026-01-04T16:05:00Z'), 'America/New_York')).toBe('2026-01-04 11:05 EST');
    expect(formatInZone(at('2026-07-04T16:05:00Z'), 'UTC')).toBe('2026-07-04 16:05 UTC');
    expect(formatInZone(at('2026-07-04T16:05:00Z'), 'Europe/London')).toBe('2026-07-04 17:05 BST');
  });

  it('falls back to a GMT offset where the zone has no common abbreviation', () => {
    expect(formatInZone(at('2026-07-04T16:05:00Z'), 'Asia/Kolkata')).toBe('2026-07-04 21:35 GMT+5:30');
  });
});
