// `svc automations preview`: the next runs of a cron expression, with no daemon and no
// credentials, computed by shared/cron.ts (so DST behaves exactly as in the scheduler).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextCronRuns } from '../../shared/cron.js';
import { makeSandbox, runSvc, type CliSandbox } from '../helpers/cli.js';

let sandbox: CliSandbox;
beforeAll(async () => {
  sandbox = await makeSandbox();
});
afterAll(() => sandbox?.cleanup());

// No SVC_* variables and no profile: preview must not need a daemon.
const preview = (...args: string[]) => runSvc(sandbox, ['automations', 'preview', ...args]);

describe('svc automations preview', () => {
  it('runs a daily 02:30 Berlin job at 03:00 CEST on the day the clocks spring forward', async () => {
    const r = await preview('--cron', '30 2 * * *', '--tz', 'Europe/Berlin', '--from', '2026-03-27', '--count', '4');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        '#  LOCAL TIME                 UTC',
        '1  Fri 2026-03-27 02:30 CET   2026-03-27T01:30:00Z',
        '2  Sat 2026-03-28 02:30 CET   2026-03-28T01:30:00Z',
        '3  Sun 2026-03-29 03:00 CEST  2026-03-29T01:00:00Z',
        '4  Mon 2026-03-30 02:30 CEST  2026-03-30T00:30:00Z',
        '',
      ].join('\n'),
    );
    expect(r.stderr).toContain('Next 4 runs of "30 2 * * *" in Europe/Berlin');
  });

  it('runs a 01:30 New York job once when the clocks fall back (the first 01:30, EDT)', async () => {
    const r = await preview('--cron', '30 1 * * *', '--tz', 'America/New_York', '--from', '2026-10-31T12:00', '--count', '3', '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual([
      { utc: '2026-11-01T05:30:00Z', local: '2026-11-01T01:30:00-04:00', timezone: 'America/New_York' },
      { utc: '2026-11-02T06:30:00Z', local: '2026-11-02T01:30:00-05:00', timezone: 'America/New_York' },
      { utc: '2026-11-03T06:30:00Z', local: '2026-11-03T01:30:00-05:00', timezone: 'America/New_York' },
    ]);
  });

  it('agrees with shared/cron.ts for an every-30-minutes schedule across the fall-back hour', async () => {
    const from = new Date('2026-10-25T00:00:00Z');
    const r = await preview('--cron', '*/30 * * * *', '--tz', 'Europe/London', '--from', from.toISOString(), '--count', '8', '--json');
    expect(r.code, r.stderr).toBe(0);
    // --from lists a run at exactly that instant, so compare with the runs after the instant before.
    const expected = nextCronRuns('*/30 * * * *', 'Europe/London', new Date(from.getTime() - 1), 8).map((x) => x.toISOString().replace('.000Z', 'Z'));
    expect(r.json().map((x: any) => x.utc)).toEqual(expected);
    // 00:00Z is 01:00 BST; 01:00 and 01:30 local happen twice that night, and run the first time only.
    expect(r.json().map((x: any) => x.local.slice(11))).toEqual([
      '01:00:00+01:00', '01:30:00+01:00', '02:00:00+00:00', '02:30:00+00:00', '03:00:00+00:00', '03:30:00+00:00', '04:00:00+00:00', '04:30:00+00:00',
    ]);
  });

  it('defaults to UTC, five runs from now', async () => {
    const r = await preview('--cron', '0 0 1 1 *', '--json');
    expect(r.code, r.stderr).toBe(0);
    const runs = r.json();
    expect(runs).toHaveLength(5);
    const year = new Date().getUTCFullYear();
    expect(runs[0]).toEqual({ utc: `${year + 1}-01-01T00:00:00Z`, local: `${year + 1}-01-01T00:00:00+00:00`, timezone: 'UTC' });
  });

  // A bad value is exit 5 (the daemon's 400 would be); a bad call (a flag missing or out of range) 2.
  describe('refuses a bad schedule, naming the problem', () => {
    const cases: [string, string[], RegExp, number][] = [
      ['six fields', ['--cron', '0 0 9 * * *'], /must have exactly 5 fields .*got 6 \(a seconds or year field is not supported\)/, 5],
      ['a macro', ['--cron', '@hourly'], /macros such as @hourly are not supported/, 5],
      ['H', ['--cron', 'H 9 * * *'], /minute field "H": H \(hashed values\) is not supported/, 5],
      ['a day of month out of range', ['--cron', '0 9 32 * *'], /day-of-month field "32"/, 5],
      ['an unknown zone', ['--cron', '0 9 * * *', '--tz', 'Europe/Atlantis'], /--tz "Europe\/Atlantis" is not an IANA time zone/, 5],
      ['a bare offset as zone', ['--cron', '0 9 * * *', '--tz', '+02:00'], /is not an IANA time zone/, 5],
      ['a count of 0', ['--cron', '0 9 * * *', '--count', '0'], /--count.*Must be at least 1/, 2],
      ['no --cron', [], /required option '--cron <expr>' not specified/, 2],
      ['a bad --from', ['--cron', '0 9 * * *', '--from', 'soon'], /--from "soon" is not a time/, 5],
    ];
    for (const [what, args, message, code] of cases) {
      it(`refuses ${what}`, async () => {
        const r = await preview(...args);
        expect(r.code, r.stderr).toBe(code);
        expect(r.stderr).toMatch(message);
        expect(r.stdout).toBe('');
      });
    }
  });
});
