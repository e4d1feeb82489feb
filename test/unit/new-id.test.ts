// The ids the store hands out for new rows are random version-4 UUIDs (RFC 9562), lower case and
// never repeated: newId's, and those of the IdRuns that make the ids of rows stored together.
import { describe, expect, it } from 'vitest';
import { IdRun, MAX_RUN_MEMBERS, newId, TeamIdRuns } from '../../daemon/store/new-id.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function expectDistinctUuids(ids: string[]): void {
  for (const id of ids) expect(id).toMatch(UUID);
  expect(new Set(ids).size).toBe(ids.length);
}

describe('ids for new rows', () => {
  it('newId makes version-4 UUIDs, lower case, all different', () => {
    expectDistinctUuids(Array.from({ length: 2000 }, () => newId()));
  });

  it('an IdRun makes them too, however many it is asked for', () => {
    const run = new IdRun();
    expectDistinctUuids(Array.from({ length: 2 * MAX_RUN_MEMBERS + 5 }, () => run.next()));
  });

  it("TeamIdRuns gives no two teams' rows the same id, nor any id newId makes", () => {
    const runs = new TeamIdRuns();
    const ids = Array.from({ length: 300 }, (_, i) => runs.next(`team-${i % 3}`));
    expectDistinctUuids([...ids, ...Array.from({ length: 300 }, () => newId())]);
  });
});
