// Packed rows (daemon/store/packed-rows.ts): sessions whose ids an IdSeries made are kept as one pack per id
// prefix. Nothing of that may show: against a plain model of the table, over random sequences
// of inserts (fitting the pack's shared values or not), updates, deletes and plain keys, every
// get, every index list (its order included), the table's own order and its size must agree;
// and a dump loaded into new tables (a restart) must read back the same.
import { describe, expect, it } from 'vitest';
import { MemoryTables, type AnyRow } from '../../daemon/store/memory-tables.js';
import { IdSeries, MAX_SERIES_MEMBERS, newId, SERIES_PREFIX_LENGTH } from '../../daemon/store/new-id.js';

function random(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] };
}

const TEAMS = [newId(), newId()];
const AUTOMATIONS = [newId(), newId(), newId()];
const EVENTS = [newId(), newId(), null];
const AT = ['2026-03-08T07:00:00.000Z', '2026-03-08T07:00:01.000Z'];

/** A session row with every field, as the session service writes them. */
function session(rng: ReturnType<typeof random>, id: string, shared: AnyRow): AnyRow {
  const automation = rng.pick(AUTOMATIONS);
  return {
    session_id: id,
    team_id: shared.team_id,
    kind: 'conversational',
    persona: 'main',
    status: shared.status,
    prompt: `prompt of ${automation}`,
    parent_session_id: null,
    automation_id: automation,
    trigger_id: automation,
    idempotency_key: shared.idempotency_key,
    environment_id: rng.pick([TEAMS[0], null]),
    event_row_id: rng.pick(EVENTS),
    event_id: rng.pick(['e1', 'e2', null]),
    created_at: shared.at,
    updated_at: shared.at,
    started_at: shared.at,
    completed_at: shared.status === 'completed' ? shared.at : null,
    last_error: null,
    runner: 'record',
    answer: 'recorded',
  };
}

/** What the table must hold: rows by key in table order, and per index value its keys in joining order. */
class Model {
  readonly rows = new Map<string, AnyRow>();
  private readonly joined = new Map<string, number>();
  private clock = 0;

  put(row: AnyRow): void {
    const k = row.session_id as string;
    const old = this.rows.get(k);
    this.rows.set(k, row);
    for (const f of ['team_id', 'automation_id', 'event_row_id']) {
      if (old && old[f] === row[f]) continue;
      if (row[f] !== null) this.joined.set(`${f}|${k}`, ++this.clock);
    }
  }

  holding(field: string, value: unknown): string[] {
    return [...this.rows.values()]
      .filter((r) => r[field] === value)
      .map((r) => r.session_id as string)
      .sort((a, b) => this.joined.get(`${field}|${a}`)! - this.joined.get(`${field}|${b}`)!);
  }
}

function expectSame(mem: MemoryTables, model: Model): void {
  expect(mem.list('sessions').map((r) => r.session_id)).toEqual([...model.rows.keys()]);
  expect(mem.table('sessions').size).toBe(model.rows.size);
  for (const [k, row] of model.rows) expect(mem.get('sessions', k)).toEqual(row);
  for (const team of TEAMS) expect(mem.list('sessions', { team_id: team }).map((r) => r.session_id)).toEqual(model.holding('team_id', team));
  for (const a of AUTOMATIONS) expect(mem.list('sessions', { automation_id: a }).map((r) => r.session_id)).toEqual(model.holding('automation_id', a));
  for (const e of EVENTS) if (e) expect(mem.list('sessions', { event_row_id: e }).map((r) => r.session_id)).toEqual(model.holding('event_row_id', e));
}

describe('sessions stored in packs', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`reads as a plain table would over random writes (seed ${seed})`, () => {
      const rng = random(seed);
      const mem = new MemoryTables();
      const model = new Model();
      const packs: { ids: IdSeries; shared: AnyRow }[] = [];
      const deleted = new Set<string>();
      const sharedValues = () => ({ team_id: rng.pick(TEAMS), status: rng.pick(['completed', 'queued']), idempotency_key: null, at: rng.pick(AT) });
      for (let step = 0; step < 400; step++) {
        const p = rng.next();
        const keys = [...model.rows.keys()];
        if (p < 0.1 || packs.length === 0) {
          packs.push({ ids: new IdSeries(), shared: sharedValues() });
        } else if (p < 0.55) {
          // a new member of some pack: mostly fitting its shared values, sometimes not
          const pack = rng.pick(packs);
          const row = session(rng, pack.ids.next(), rng.next() < 0.8 ? pack.shared : sharedValues());
          mem.apply([['put', 'sessions', row]], [undefined]);
          model.put(row);
        } else if (p < 0.65) {
          const row = session(rng, newId(), sharedValues());
          mem.apply([['put', 'sessions', row]], [undefined]);
          model.put(row);
        } else if (p < 0.85 && keys.length > 0) {
          // an update, as a transaction writes it: the whole row, with the row it replaced
          const k = rng.pick(keys);
          const old = model.rows.get(k)!;
          const next = { ...old, status: rng.pick(['running', 'completed', 'failed']), automation_id: rng.pick([old.automation_id, ...AUTOMATIONS]), updated_at: rng.pick(AT) };
          mem.apply([['put', 'sessions', next]], [old]);
          model.put(next);
        } else if (p < 0.9 && keys.length > 0) {
          // an update as the journal replays it: only the fields that changed
          const k = rng.pick(keys);
          const old = model.rows.get(k)!;
          const fields = { session_id: k, status: 'cancelled', event_row_id: rng.pick(EVENTS) };
          mem.apply([['set', 'sessions', fields]]);
          model.put({ ...old, ...fields });
        } else if (p < 0.91) {
          // retention: a predicate on shared fields (asked once per pack's packed members), or on an own one
          const byStatus = rng.next() < 0.5;
          const status = rng.pick(['failed', 'cancelled']);
          const automation = rng.pick(AUTOMATIONS);
          const drop = (r: AnyRow) => (byStatus ? r.status === status : r.automation_id === automation);
          const expected = [...model.rows.values()].filter(drop).map((r) => r.session_id as string);
          const removed = byStatus ? mem.prune('sessions', drop, ['status']) : mem.prune('sessions', drop);
          expect(removed).toEqual(expected);
          for (const k of removed) {
            model.rows.delete(k);
            deleted.add(k);
          }
        } else if (keys.length > 0) {
          const k = rng.pick(keys);
          mem.apply([['del', 'sessions', k]]);
          model.rows.delete(k);
          deleted.add(k);
        }
        if (step % 50 === 49) expectSame(mem, model);
      }
      expectSame(mem, model);
      for (const k of deleted) if (!model.rows.has(k)) expect(mem.get('sessions', k)).toBeUndefined();

      // a restart: the dump, loaded into new tables, reads as a plain table loaded with the same
      // rows (in table order, which then is also each index's order)
      const restarted = new MemoryTables();
      restarted.load(mem.dump());
      const reloaded = new Model();
      for (const row of model.rows.values()) reloaded.put(row);
      expectSame(restarted, reloaded);
    });
  }

  it('keeps a pack whose first member is gone, and drops it with its last', () => {
    const mem = new MemoryTables();
    const rng = random(10);
    const ids = new IdSeries();
    const shared = { team_id: TEAMS[0], status: 'completed', idempotency_key: null, at: AT[0] };
    const [a, b] = [session(rng, ids.next(), shared), session(rng, ids.next(), shared)];
    mem.apply([['put', 'sessions', a], ['put', 'sessions', b]], [undefined, undefined]);
    mem.apply([['del', 'sessions', a.session_id as string]]);
    expect(mem.get('sessions', b.session_id as string)).toEqual(b);
    expect(mem.list('sessions').map((r) => r.session_id)).toEqual([b.session_id]);
    mem.apply([['del', 'sessions', b.session_id as string]]);
    expect(mem.list('sessions')).toEqual([]);
    expect(mem.table('sessions').size).toBe(0);
    // a later member of the same prefix, with no pack left, is a row of its own
    const c = session(rng, ids.next(), shared);
    mem.apply([['put', 'sessions', c]], [undefined]);
    expect(mem.get('sessions', c.session_id as string)).toEqual(c);
  });

  it('keeps rows whose keys only look like members of a pack as rows of their own', () => {
    const mem = new MemoryTables();
    const rng = random(14);
    const shared = { team_id: TEAMS[0], status: 'completed', idempotency_key: null, at: AT[0] };
    const member = session(rng, new IdSeries().next(), shared);
    const prefix = (member.session_id as string).slice(0, SERIES_PREFIX_LENGTH);
    const lookalikes = ['k1', `${prefix}0G0`, `${prefix}ABC`, `${prefix}0001`, `${prefix}00`].map((k) => session(rng, k, shared));
    const rows = [member, ...lookalikes];
    mem.apply(rows.map((r) => ['put', 'sessions', r] as const), rows.map(() => undefined));
    for (const r of rows) expect(mem.get('sessions', r.session_id as string)).toEqual(r);
    expect(mem.list('sessions').map((r) => r.session_id)).toEqual(rows.map((r) => r.session_id));
    const restarted = new MemoryTables();
    restarted.load(mem.dump());
    expect(restarted.list('sessions')).toEqual(rows);
  });
});

describe('packs in a snapshot', () => {
  async function roundTrip(mem: MemoryTables, readByLinesAbove?: number) {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SnapshotFile } = await import('../../daemon/store/snapshot-file.js');
    const dir = await mkdtemp(join(tmpdir(), 'svc-packs-'));
    try {
      const path = join(dir, 'snapshot.json');
      await new SnapshotFile(path).write({ schema_version: 8, seq: 1, tables: mem.snapshotTables() as never });
      const read = await new SnapshotFile(path, readByLinesAbove).read();
      const loaded = new MemoryTables();
      loaded.load(read!.tables as never);
      return loaded;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  function tablesWithRuns() {
    const mem = new MemoryTables();
    const rng = random(11);
    const model = new Model();
    for (let r = 0; r < 3; r++) {
      const ids = new IdSeries();
      const shared = { team_id: TEAMS[r % 2], status: 'completed', idempotency_key: null, at: AT[0] };
      const rows = Array.from({ length: 6 }, () => session(rng, ids.next(), shared));
      mem.apply(rows.map((row) => ['put', 'sessions', row] as const), rows.map(() => undefined));
      for (const row of rows) model.put(row);
      const plain = session(rng, newId(), shared);
      mem.apply([['put', 'sessions', plain]], [undefined]);
      model.put(plain);
    }
    // a member changed on its own (kept whole, in its place) and one deleted
    const [, second, third] = [...model.rows.keys()];
    const changed = { ...model.rows.get(second)!, status: 'running' };
    mem.apply([['put', 'sessions', changed]], [model.rows.get(second)]);
    model.put(changed);
    mem.apply([['del', 'sessions', third]]);
    model.rows.delete(third);
    return { mem, model };
  }

  for (const [how, above] of [['parsed whole', undefined], ['read a line at a time', 0]] as const) {
    it(`reads back the same rows after a snapshot (${how})`, async () => {
      const { mem, model } = tablesWithRuns();
      const loaded = await roundTrip(mem, above);
      const reloaded = new Model();
      for (const row of model.rows.values()) reloaded.put(row);
      expectSame(loaded, reloaded);
    });
  }

  it('reads an entry whose own fields another writer ordered otherwise', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SnapshotFile } = await import('../../daemon/store/snapshot-file.js');
    const { mem, model } = tablesWithRuns();
    const tables = mem.snapshotTables() as unknown as { sessions: ({ $run?: string; own: string[]; members: unknown[][] } | AnyRow)[] };
    const dir = await mkdtemp(join(tmpdir(), 'svc-packs-'));
    try {
      const path = join(dir, 'snapshot.json');
      for (const reorder of [false, true]) {
        const items = tables.sessions.map((item) => {
          if (!reorder || !('$run' in item)) return item;
          // the own fields (and each member's values) in reverse order
          const entry = item as { own: string[]; members: unknown[][] };
          return { ...entry, own: [...entry.own].reverse(), members: entry.members.map(([n, ...own]) => [n, ...own.reverse()]) };
        });
        await writeFile(path, JSON.stringify({ schema_version: 8, seq: 1, tables: { sessions: items } }));
        const read = await new SnapshotFile(path).read();
        const rows = read!.tables.sessions as AnyRow[];
        expect(rows).toEqual([...model.rows.values()]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a pack entry that is not one, naming the table', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { SnapshotFile, StoreCorruptError } = await import('../../daemon/store/snapshot-file.js');
    const dir = await mkdtemp(join(tmpdir(), 'svc-packs-'));
    try {
      const path = join(dir, 'snapshot.json');
      const entry = { $run: 'too-short', shared: {}, own: ['automation_id'], members: [[0, 'a']] };
      await writeFile(path, JSON.stringify({ schema_version: 8, seq: 1, tables: { sessions: [entry] } }));
      await expect(new SnapshotFile(path).read()).rejects.toThrow(StoreCorruptError);
      await expect(new SnapshotFile(path).read()).rejects.toThrow(/table sessions: item 0 is a pack entry/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('packs in the journal', () => {
  it("replays an event's new sessions, written in one record, as the same rows", async () => {
    const { journalLine, expandRows } = await import('../../daemon/store/journal-file.js');
    const rng = random(12);
    const ids = new IdSeries();
    const shared = { team_id: TEAMS[0], status: 'completed', idempotency_key: null, at: AT[0] };
    const rows = Array.from({ length: 10 }, () => session(rng, ids.next(), shared));
    const line = journalLine(7, rows.map((r) => ['put', 'sessions', r] as const), rows.map(() => undefined));
    const replayed = expandRows((JSON.parse(line) as { m: unknown[] }).m).map((m) => m[2] as AnyRow);
    expect(replayed.map((r) => ({ ...r }))).toEqual(rows);
  });

  it('replays rows whose keys are not consecutive ids of one IdSeries as the same rows', async () => {
    const { journalLine, expandRows } = await import('../../daemon/store/journal-file.js');
    const rng = random(13);
    const ids = new IdSeries();
    const shared = { team_id: TEAMS[0], status: 'completed', idempotency_key: null, at: AT[0] };
    const first = session(rng, ids.next(), shared);
    ids.next(); // an id that is not in this write
    const rows = [first, session(rng, ids.next(), shared), session(rng, newId(), shared)];
    const line = journalLine(8, rows.map((r) => ['put', 'sessions', r] as const), rows.map(() => undefined));
    expect(expandRows((JSON.parse(line) as { m: unknown[] }).m).map((m) => ({ ...(m[2] as AnyRow) }))).toEqual(rows);
  });

  it('refuses a series of ids that does not fit its rows', async () => {
    const { expandRows } = await import('../../daemon/store/journal-file.js');
    const entry = ['rows', 'put', 'sessions', {}, ['prompt'], [['a'], ['b']], [newId().slice(0, SERIES_PREFIX_LENGTH), MAX_SERIES_MEMBERS - 1]];
    expect(() => expandRows([entry])).toThrow('malformed rows entry');
  });
});
