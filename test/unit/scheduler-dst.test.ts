// The slots the scheduler fires across the 2026 DST changes (CONTRACT §5): a local time that
// does not exist runs once at the first instant after the gap; one that occurs twice runs once.
//   America/New_York: 2026-03-08 02:00 EST -> 03:00 EDT; 2026-11-01 02:00 EDT -> 01:00 EST
//   Europe/Berlin:    2026-03-29 02:00 CET -> 03:00 CEST; 2026-10-25 03:00 CEST -> 02:00 CET
import { afterEach, describe, expect, it } from 'vitest';
import { formatInZone } from '../../shared/zone-time.js';
import { makeHarness, type Harness } from './scheduler-harness.js';

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Runs a cron trigger from `from` to `to` and returns the slots it fired, as local times. */
async function fired(cron: string, timezone: string, from: string, to: string): Promise<string[]> {
  h = await makeHarness({ now: from });
  const { triggerId } = await h.schedule({ cron_expression: cron, timezone });
  await h.advanceTo(to);
  return (await h.firedSlots(triggerId)).map((iso) => formatInZone(new Date(iso), timezone));
}

describe('scheduler DST: America/New_York', () => {
  it('runs a daily 02:30 at 03:00 EDT on the spring-forward day, once', async () => {
    expect(await fired('30 2 * * *', 'America/New_York', '2026-03-06T12:00:00Z', '2026-03-10T12:00:00Z')).toEqual([
      '2026-03-07 02:30 EST',
      '2026-03-08 03:00 EDT',
      '2026-03-09 02:30 EDT',
      '2026-03-10 02:30 EDT',
    ]);
  });

  it('runs a daily 01:30 once on the fall-back day (at its first occurrence)', async () => {
    expect(await fired('30 1 * * *', 'America/New_York', '2026-10-30T12:00:00Z', '2026-11-03T12:00:00Z')).toEqual([
      '2026-10-31 01:30 EDT',
      '2026-11-01 01:30 EDT',
      '2026-11-02 01:30 EST',
      '2026-11-03 01:30 EST',
    ]);
  });

  it('runs each local time of an every-30-minutes schedule once through the repeated hour', async () => {
    h = await makeHarness({ now: '2026-11-01T04:50:00Z' });
    const { triggerId } = await h.schedule({ cron_expression: '*/30 * * * *', timezone: 'America/New_York' });
    await h.advanceTo('2026-11-01T07:40:00Z');
    expect(await h.firedSlots(triggerId)).toEqual([
      '2026-11-01T05:00:00.000Z', // 01:00 EDT
      '2026-11-01T05:30:00.000Z', // 01:30 EDT; 01:00 and 01:30 EST do not run again
      '2026-11-01T07:00:00.000Z', // 02:00 EST
      '2026-11-01T07:30:00.000Z', // 02:30 EST
    ]);
  });

  it('runs an hourly 02:00 that does not exist at 03:00 EDT, once with 03:00 itself', async () => {
    expect(await fired('0 * * * *', 'America/New_York', '2026-03-08T05:30:00Z', '2026-03-08T08:30:00Z')).toEqual([
      '2026-03-08 01:00 EST',
      '2026-03-08 03:00 EDT',
      '2026-03-08 04:00 EDT',
    ]);
  });

  it('runs an hourly :30 whose 02:30 does not exist at 03:00 EDT, then 03:30', async () => {
    expect(await fired('30 * * * *', 'America/New_York', '2026-03-08T06:10:00Z', '2026-03-08T07:40:00Z')).toEqual([
      '2026-03-08 01:30 EST',
      '2026-03-08 03:00 EDT',
      '2026-03-08 03:30 EDT',
    ]);
  });
});

describe('scheduler DST: Europe/Berlin', () => {
  it('runs a daily 02:30 at 03:00 CEST on the spring-forward day, once', async () => {
    expect(await fired('30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', '2026-03-31T12:00:00Z')).toEqual([
      '2026-03-28 02:30 CET',
      '2026-03-29 03:00 CEST',
      '2026-03-30 02:30 CEST',
      '2026-03-31 02:30 CEST',
    ]);
  });

  it('collapses several times inside the gap into one run after it', async () => {
    expect(await fired('0,20,40 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', '2026-03-30T12:00:00Z')).toEqual([
      '2026-03-29 03:00 CEST',
      '2026-03-30 02:00 CEST',
      '2026-03-30 02:20 CEST',
      '2026-03-30 02:40 CEST',
    ]);
  });

  it('runs a daily 02:30 once on the fall-back day (at its first occurrence)', async () => {
    expect(await fired('30 2 * * *', 'Europe/Berlin', '2026-10-23T12:00:00Z', '2026-10-27T12:00:00Z')).toEqual([
      '2026-10-24 02:30 CEST',
      '2026-10-25 02:30 CEST',
      '2026-10-26 02:30 CET',
      '2026-10-27 02:30 CET',
    ]);
  });

  it('fires the fall-back day run at the first occurrence in UTC terms too', async () => {
    h = await makeHarness({ now: '2026-10-24T12:00:00Z' });
    const { triggerId } = await h.schedule({ cron_expression: '30 2 * * *', timezone: 'Europe/Berlin' });
    await h.advanceTo('2026-10-25T12:00:00Z');
    expect(await h.firedSlots(triggerId)).toEqual(['2026-10-25T00:30:00.000Z']);
    expect((await h.trigger(triggerId)).next_run_at).toBe('2026-10-26T01:30:00.000Z');
  });
});
