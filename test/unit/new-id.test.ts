// The ids the store hands out for new rows are random version-4 UUIDs (RFC 9562), lower case and
// never repeated: newId's, and those of the IdSeries that make the ids of rows stored together.
import { describe, expect, it } from 'vitest';
import { MemoryTables, OverlayTx } from '../../daemon/store/memory-tables.js';
import { IdSeries, MAX_SERIES_MEMBERS, newId } from '../../daemon/store/new-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function expectDistinctUuids(ids: string[]): void {
  for (const id of ids) expect(id).toMatch(UUID);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('ids for new rows', () => {
  it('newId makes version-4 UUIDs, lower case, all different', () => {
    expectDistinctUuids(Array.from({ length: 2000 }, () => newId()));
  });

  it('an IdSeries makes them too, however many it is asked for', () => {
    const series = new IdSeries();
    expectDistinctUuids(Array.from({ length: 2 * MAX_SERIES_MEMBERS + 5 }, () => series.next()));
  });

  it("a journal write transaction's newKey gives no two groups' or tables' rows the same key, nor any key newId makes", () => {
    const tx = new OverlayTx(new MemoryTables());
    const keys = Array.from({ length: 300 }, (_, i) => tx.newKey(i % 2 === 0 ? 'sessions' : 'events', i % 3 === 0 ? undefined : `team-${i % 3}`));
    expectDistinctUuids([...keys, ...Array.from({ length: 300 }, () => newId())]);
  });
});
