import { describe, expect, it } from 'vitest';
import { normaliseEvent } from '../../daemon/dispatch/normalise.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

describe('normaliseEvent', () => {
  it('fills the defaults: provider generic, a new id, time now, empty metadata and data, nulls', () => {
    expect(normaliseEvent({ event_type: 'x' }, NOW, () => 'new-id')).toEqual({
      id: 'new-id', provider: 'generic', event_type: 'x', connection_id: null, source: null, subject: null,
      time: NOW.toISOString(), metadata: {}, data: {}, received_at: NOW.toISOString(),
    });
  });

  it('generates a UUID per event when no id is sent', () => {
    const a = normaliseEvent({ event_type: 'x' }, NOW).id;
    const b = normaliseEvent({ event_type: 'x' }, NOW).id;
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b).not.toBe(a);
  });

  it('keeps what the sender gave and writes time in UTC', () => {
    const e = normaliseEvent(
      { event_type: 'x', id: 'e1', provider: 'ci', connection_id: 'c1', source: 's', subject: 'sub', time: '2026-02-01T10:00:00+02:00', metadata: { m: 1 }, data: { d: [1] } },
      NOW,
    );
    expect(e).toMatchObject({ id: 'e1', provider: 'ci', connection_id: 'c1', source: 's', subject: 'sub', time: '2026-02-01T08:00:00.000Z', metadata: { m: 1 }, data: { d: [1] } });
  });

  it('keeps a time JavaScript cannot represent as sent rather than failing', () => {
    expect(normaliseEvent({ event_type: 'x', time: '2016-12-31T23:59:60Z' }, NOW).time).toBe('2016-12-31T23:59:60Z');
  });

  it('keeps a time as sent when its offset carries it out of the years 0000-9999 in UTC', () => {
    for (const time of ['0000-01-01T00:00:00+23:59', '9999-12-31T23:59:59.999-00:01']) expect(normaliseEvent({ event_type: 'x', time }, NOW).time).toBe(time);
    expect(normaliseEvent({ event_type: 'x', time: '9999-12-31T23:59:59.999+00:01' }, NOW).time).toBe('9999-12-31T23:58:59.999Z');
  });
});
