// How PostgreSQL reads asked for together go out: all of a gathering's statements on one lent
// connection before any answer comes back, each asker given its own rows, and a failure of what
// was sent before them (a transaction's held writes) given to every read as its own error.
import { describe, expect, it } from 'vitest';
import { ReadBatches, rowsFor, type Lent } from '../../daemon/store/postgres/read-batches.js';
import { buildStatements } from '../../daemon/store/postgres/statements.js';

type Row = Record<string, unknown>;

/** A connection whose statements wait until the test answers them, in the order they were sent. */
function heldConnection() {
  const sent: { text: string; values: unknown[]; answer(rows: Row[]): void; fail(err: Error): void }[] = [];
  const db = {
    query: (config: { text: string; values: unknown[] }) =>
      new Promise<{ rows: Row[] }>((resolve, reject) => sent.push({ ...config, answer: (rows) => resolve({ rows }), fail: reject })),
  };
  return { db, sent };
}

const sql = buildStatements();
const KEY = '0190a5b8-7c1d-7e2f-8a3b-4c5d6e7f8091';
const TEAM = '0190a5b8-7c1d-7e2f-8a3b-4c5d6e7f8092';
const OTHER_TEAM = '0190a5b8-7c1d-7e2f-8a3b-4c5d6e7f8093';
const tick = () => new Promise((r) => setImmediate(r));

describe('PostgreSQL read batches', () => {
  it('sends every statement of a gathering on one connection before the first answer, and gives it back once all are answered', async () => {
    const { db, sent } = heldConnection();
    let lends = 0;
    let returned = 0;
    const batches = new ReadBatches(sql, {
      schedule: setImmediate,
      connection: async (): Promise<Lent> => {
        lends++;
        return { db, done: () => returned++ };
      },
    });
    const key = batches.rowsWhere('api_keys', 'id', [KEY]);
    const teams = batches.rowsWhere('teams', 'id', [TEAM, OTHER_TEAM]);
    const sameTeam = batches.rowsWhere('teams', 'id', [TEAM]);
    await tick();
    await tick();
    // Two tables: two statements, both written while neither has answered; one asker's values joined the other's.
    expect(lends).toBe(1);
    expect(sent.map((s) => s.text.includes('"api_keys"') ? 'api_keys' : 'teams')).toEqual(['api_keys', 'teams']);
    expect(sent[1].values).toEqual([[TEAM, OTHER_TEAM]]);
    sent[1].answer([{ id: TEAM, slug: 'a' }, { id: OTHER_TEAM, slug: 'b' }]);
    await tick();
    expect(returned).toBe(0);
    sent[0].answer([{ id: KEY, team_id: TEAM }]);
    const t = sql.teams;
    expect(rowsFor(await teams, t, 'id', OTHER_TEAM)).toEqual([{ id: OTHER_TEAM, slug: 'b' }]);
    expect(rowsFor(await sameTeam, t, 'id', TEAM)).toEqual([{ id: TEAM, slug: 'a' }]);
    expect(rowsFor(await key, sql.api_keys, 'id', KEY)).toEqual([{ id: KEY, team_id: TEAM }]);
    expect(returned).toBe(1);
  });

  it("gives every read the error of the writes sent before them, not the aborted transaction's", async () => {
    const { db, sent } = heldConnection();
    const own: Lent = { db, done: () => undefined };
    const heldWrites = new Error('duplicate key value violates unique constraint');
    const batches = new ReadBatches(sql, {
      schedule: queueMicrotask,
      connection: async () => own,
      // A list by another field than the key sends the writes held for its table first.
      beforeSend: () => db.query({ text: 'INSERT INTO "events" ...', values: [] }).then(() => undefined),
    });
    const listed = batches.rowsWhere('events', 'event_id', ['evt_1']);
    const got = batches.rowsWhere('teams', 'id', [TEAM]);
    await tick();
    expect(sent.map((s) => s.text.slice(0, 20))).toEqual(['INSERT INTO "events"', expect.stringContaining('SELECT'), expect.stringContaining('SELECT')]);
    sent[0].fail(heldWrites);
    const aborted = new Error('current transaction is aborted, commands ignored until end of transaction block');
    sent[1].fail(aborted);
    sent[2].fail(aborted);
    await expect(listed).rejects.toBe(heldWrites);
    await expect(got).rejects.toBe(heldWrites);
  });

  it('gives each read its own failure when only it failed, and the others their rows', async () => {
    const { db, sent } = heldConnection();
    const batches = new ReadBatches(sql, { schedule: setImmediate, connection: async () => ({ db, done: () => undefined }) });
    const keys = batches.rowsWhere('api_keys', 'id', [KEY]);
    const teams = batches.rowsWhere('teams', 'id', [TEAM]);
    await tick();
    await tick();
    const err = new Error('canceling statement due to statement timeout');
    sent[0].fail(err);
    sent[1].answer([{ id: TEAM }]);
    await expect(keys).rejects.toBe(err);
    expect(rowsFor(await teams, sql.teams, 'id', TEAM)).toEqual([{ id: TEAM }]);
  });
});
