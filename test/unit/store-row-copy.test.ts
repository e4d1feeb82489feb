import { describe, expect, it } from 'vitest';
import { copyRowWith } from '../../daemon/store/row-copy.js';
import { TABLE_FIELDS, TABLE_NAMES } from '../../daemon/store/tables.js';

describe('copyRowWith', () => {
  it.each(TABLE_NAMES)('copies every field of a %s row and applies the changes, leaving the row as it was', (table) => {
    const row = Object.fromEntries(TABLE_FIELDS[table].map((f, i) => [f, i % 2 === 0 ? `v${i}` : { nested: i }]));
    const before = structuredClone(row);
    const [first, second] = TABLE_FIELDS[table];
    const next = copyRowWith(table, row, { [second]: 'changed' });
    expect(next).toEqual({ ...row, [second]: 'changed' });
    expect(next).not.toBe(row);
    expect(row).toEqual(before);
    // Values are shared, not cloned: rows are never mutated (see store.ts).
    expect(next[first]).toBe(row[first]);
  });

  it('gives a field the row lacks (an optional one) the value undefined, which JSON leaves out', () => {
    const session = Object.fromEntries(TABLE_FIELDS.sessions.filter((f) => f !== 'event').map((f) => [f, null]));
    const next = copyRowWith('sessions', session, { status: 'completed' });
    expect(next.event).toBeUndefined();
    expect(JSON.parse(JSON.stringify(next))).toEqual({ ...session, status: 'completed' });
  });

  it('keeps an optional field a row has, such as the event copy of a schema 1 session', () => {
    const session = Object.fromEntries(TABLE_FIELDS.sessions.map((f) => [f, null]));
    const event = { id: 'e1', data: { env: 'prod' } };
    expect(copyRowWith('sessions', { ...session, event }, { status: 'failed' }).event).toBe(event);
  });
});
