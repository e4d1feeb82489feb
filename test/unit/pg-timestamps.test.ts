import { describe, expect, it } from 'vitest';
import { isoOfTimestamptz } from '../../daemon/store/postgres/pool.js';

describe('isoOfTimestamptz', () => {
  it('turns what a UTC session prints into the ISO string a Date would print, to the millisecond', () => {
    const cases: [string, string][] = [
      ['2026-11-28 10:33:52+00', '2026-11-28T10:33:52.000Z'],
      ['2026-11-28 10:33:52.1+00', '2026-11-28T10:33:52.100Z'],
      ['2026-11-28 10:33:52.12+00', '2026-11-28T10:33:52.120Z'],
      ['2026-11-28 10:33:52.123+00', '2026-11-28T10:33:52.123Z'],
      ['2026-11-28 10:33:52.123456+00', '2026-11-28T10:33:52.123Z'],
      ['0099-01-01 00:00:00+00', '0099-01-01T00:00:00.000Z'],
    ];
    for (const [text, iso] of cases) expect(isoOfTimestamptz(text)).toBe(iso);
  });

  it('takes any other shape through Date', () => {
    expect(isoOfTimestamptz('2026-11-28T10:33:52.5+00')).toBe('2026-11-28T10:33:52.500Z');
  });
});
