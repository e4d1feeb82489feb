// One store contract, two backends (daemon/store/store.ts): the same operations give the same
// answers on the JSON-file store and on PostgreSQL, so services cannot tell which one runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../daemon/store/index.js';
import { openPostgresStore } from '../../daemon/store/postgres/postgres-store.js';
import { CursorGoneError, UniqueViolation, UnstorableValueError, type Store } from '../../daemon/store/store.js';
import type { AutomationRow, ConnectionRow, EventRow, SessionRow, TeamRow } from '../../daemon/store/tables.js';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';

const silent = { info() {}, warn() {}, error() {} };
let cluster: PostgresCluster;
let databases = 0;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 60_000);

afterAll(async () => {
  for (const c of cleanups) await c();
  await cluster?.destroy();
});

const backends: [string, () => Promise<Store>][] = [
  [
    'file',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'svc-contract-'));
      const store = await openStore({ dataDir: dir, logger: silent });
      cleanups.push(async () => {
        await store.close();
        await rm(dir, { recursive: true, force: true });
      });
      return store;
    },
  ],
  [
    'postgres',
    async () => {
      const store = await openPostgresStore({ url: await cluster.createDatabase(`contract_${++databases}`), logger: silent });
      cleanups.push(() => store.close());
      return store;
    },
  ],
];

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 10, 0, s, 123)).toISOString();

const team = (n: number, slug = `team-${n}`): TeamRow => ({ id: uuid(n), slug, name: `Team ${n}`, execution_admitted: true, created_at: at(n), updated_at: at(n) });

const automation = (n: number, teamId: string, name: string): AutomationRow => ({
  id: uuid(1000 + n),
  team_id: teamId,
  name,
  name_key: name.toLowerCase(),
  prompt: 'p',
  status: 'active',
  environment_id: null,
  repo_filters: { zz: 1, a: [1, { b: null, aa: true }] },
  last_error: null,
  last_error_at: null,
  consecutive_failures: 0,
  created_at: at(n),
  updated_at: at(n),
});

const session = (n: number, teamId: string, extra: Partial<SessionRow> = {}): SessionRow => ({
  session_id: uuid(2000 + n),
  team_id: teamId,
  kind: 'conversational',
  persona: 'main',
  status: 'completed',
  prompt: `prompt ${n}`,
  parent_session_id: null,
  automation_id: null,
  trigger_id: null,
  idempotency_key: null,
  environment_id: null,
  event_row_id: null,
  created_at: at(n),
  updated_at: at(n),
  started_at: at(n),
  completed_at: at(n),
  last_error: null,
  ...extra,
});

describe.each(backends)('the store contract on the %s store', (_name, open) => {
  let store: Store;
  beforeAll(async () => {
    store = await open();
  }, 30_000);

  it('reads back exactly the rows written: timestamps, booleans, nested JSON in its key order, nulls; an absent optional field stays absent', async () => {
    const t = team(1);
    const s = session(1, t.id, { answer: 'hi' });
    await store.write((tx) => {
      tx.insert('teams', t);
      tx.insert('automations', automation(1, t.id, 'One'));
      tx.insert('sessions', s);
    });
    expect(await store.read((tx) => tx.get('teams', t.id))).toEqual(t);
    const a = await store.read((tx) => tx.get('automations', uuid(1001)));
    expect(a).toEqual(automation(1, t.id, 'One'));
    // JSON comes back as it was written, key order included.
    expect(JSON.stringify(a!.repo_filters)).toBe(JSON.stringify(automation(1, t.id, 'One').repo_filters));
    const back = await store.read((tx) => tx.get('sessions', s.session_id));
    expect(back).toEqual(s);
    expect(back).not.toHaveProperty('event');
  });

  it('answers undefined for a key no row has, a UUID or not', async () => {
    expect(await store.read((tx) => tx.get('teams', uuid(999)))).toBeUndefined();
    expect(await store.read((tx) => tx.get('teams', 'not-a-uuid'))).toBeUndefined();
    expect(await store.read((tx) => tx.getMany('teams', ['not-a-uuid', uuid(1), uuid(999)]))).toEqual([undefined, team(1), undefined]);
    expect(await store.read((tx) => tx.list('sessions', { team_id: 'nope' }))).toEqual([]);
  });

  it('lists and counts by an indexed field in insertion order, and pages newest first by key', async () => {
    const t = team(2);
    await store.write((tx) => {
      tx.insert('teams', t);
      for (let i = 10; i < 25; i++) tx.insert('sessions', session(i, t.id, { status: i % 3 === 0 ? 'failed' : 'completed' }));
    });
    const all = await store.read((tx) => tx.list('sessions', { team_id: t.id }));
    expect(all.map((s) => s.prompt)).toEqual(Array.from({ length: 15 }, (_, i) => `prompt ${i + 10}`));
    expect(await store.read((tx) => tx.count('sessions', { team_id: t.id }))).toBe(15);

    const first = await store.read((tx) => tx.page('sessions', { where: { team_id: t.id }, limit: 4 }));
    expect(first.map((s) => s.prompt)).toEqual(['prompt 24', 'prompt 23', 'prompt 22', 'prompt 21']);
    const next = await store.read((tx) => tx.page('sessions', { where: { team_id: t.id }, after: first[3].session_id, limit: 3 }));
    expect(next.map((s) => s.prompt)).toEqual(['prompt 20', 'prompt 19', 'prompt 18']);
    const failed = await store.read((tx) => tx.page('sessions', { where: { team_id: t.id, status: 'failed' }, limit: 10 }));
    expect(failed.map((s) => s.prompt)).toEqual(['prompt 24', 'prompt 21', 'prompt 18', 'prompt 15', 'prompt 12']);

    // The cursor row gone: the page starts at the row after it; both gone: CursorGoneError.
    await store.write((tx) => tx.delete('sessions', first[3].session_id));
    const resumed = await store.read((tx) => tx.page('sessions', { where: { team_id: t.id }, after: first[3].session_id, orAt: next[0].session_id, limit: 2 }));
    expect(resumed.map((s) => s.prompt)).toEqual(['prompt 20', 'prompt 19']);
    await expect(store.read((tx) => tx.page('sessions', { where: { team_id: t.id }, after: first[3].session_id, limit: 2 }))).rejects.toBeInstanceOf(CursorGoneError);
  });

  it('pages newest first by a timestamp field when asked, insertion order breaking ties', async () => {
    const t = team(10);
    const receipt = (n: number, received: number): EventRow => ({
      id: uuid(4000 + n),
      event_id: `e${n}`,
      team_id: t.id,
      provider: 'generic',
      event_type: 'x',
      connection_id: null,
      source: null,
      subject: null,
      time: at(received),
      metadata: {},
      data: {},
      received_at: at(received),
      accepted: false,
      dispatched: [],
      reason: 'r',
    });
    // Stored out of receipt order, as two writes of one moment may be.
    await store.write((tx) => {
      tx.insert('teams', t);
      for (const [n, received] of [[1, 5], [2, 1], [3, 5], [4, 3], [5, 9]]) tx.insert('events', receipt(n, received));
    });
    const page = (after?: string, orAt?: string) =>
      store.read(async (tx) => (await tx.page('events', { where: { team_id: t.id }, newestBy: 'received_at', after, orAt, limit: 2 })).map((e) => e.event_id));
    expect(await page()).toEqual(['e5', 'e3']);
    expect(await page(uuid(4003))).toEqual(['e1', 'e4']);
    expect(await page(uuid(4004))).toEqual(['e2']);
    await store.write((tx) => tx.delete('events', uuid(4003)));
    expect(await page(uuid(4003), uuid(4001))).toEqual(['e1', 'e4']);
  });

  it('keeps a put row in its place, applies update, and sees its own writes inside a transaction', async () => {
    const t = team(3);
    await store.write((tx) => {
      tx.insert('teams', t);
      tx.insert('sessions', session(30, t.id));
      tx.insert('sessions', session(31, t.id));
    });
    const seen = await store.write(async (tx) => {
      tx.put('sessions', { ...session(30, t.id), status: 'running' });
      const updated = await tx.update('sessions', uuid(2031), { last_error: 'boom', status: 'failed' });
      return { listed: (await tx.list('sessions', { team_id: t.id })).map((s) => s.status), updated };
    });
    expect(seen.listed).toEqual(['running', 'failed']);
    expect(seen.updated).toEqual({ ...session(31, t.id), last_error: 'boom', status: 'failed' });
    expect((await store.read((tx) => tx.list('sessions', { team_id: t.id }))).map((s) => s.session_id)).toEqual([uuid(2030), uuid(2031)]);
  });

  it('adds to counters with increment, whatever value was read before, and sets the other fields', async () => {
    const t = team(9);
    const a = automation(9, t.id, 'counted');
    await store.write((tx) => {
      tx.insert('teams', t);
      tx.insert('automations', a);
    });
    const stale = await store.read((tx) => tx.get('automations', a.id));
    await Promise.all(Array.from({ length: 5 }, () => store.write((tx) => tx.increment('automations', a.id, { consecutive_failures: 2 }, { last_error: 'x' }))));
    const after = await store.read((tx) => tx.get('automations', a.id));
    expect(stale!.consecutive_failures).toBe(0);
    expect(after).toEqual({ ...a, consecutive_failures: 10, last_error: 'x' });
  });

  it('counts a counter a row does not hold yet (an optional field) from 0', async () => {
    const t = team(30);
    const receipt: EventRow = {
      id: uuid(3100),
      event_id: 'counted',
      team_id: t.id,
      provider: 'generic',
      event_type: 'deploy',
      connection_id: null,
      source: null,
      subject: null,
      time: at(1),
      metadata: {},
      data: {},
      received_at: at(1),
      accepted: false,
      dispatched: [],
      reason: 'r',
    };
    await store.write((tx) => tx.insert('events', receipt));
    expect(await store.read((tx) => tx.get('events', receipt.id))).toEqual(receipt);
    const counted = await Promise.all(Array.from({ length: 3 }, () => store.write(async (tx) => (await tx.increment('events', receipt.id, { replays: 1 })).replays)));
    expect(counted.sort()).toEqual([1, 2, 3]);
    // read first in the same transaction, then counted
    expect(await store.write(async (tx) => (await tx.get('events', receipt.id), (await tx.increment('events', receipt.id, { replays: 1 })).replays))).toBe(4);
    expect(await store.read((tx) => tx.get('events', receipt.id))).toEqual({ ...receipt, replays: 4 });
  });

  it('keeps connections unique by team and name key, and by provider and external id across teams, null ids never colliding', async () => {
    const connection = (n: number, teamId: string, name: string, external_id: string | null, provider = 'github'): ConnectionRow => ({
      id: uuid(4000 + n),
      team_id: teamId,
      provider,
      name,
      name_key: name.toLowerCase(),
      external_id,
      sealed_secret: 'v1:sealed',
      secret_prefix: 'abc',
      previous_sealed_secret: null,
      previous_valid_until: null,
      created_at: at(n),
      updated_at: at(n),
      last_delivery_at: null,
    });
    await store.write((tx) => {
      tx.insert('connections', connection(1, uuid(40), 'gh', '42'));
      tx.insert('connections', connection(2, uuid(40), 'a', null));
      tx.insert('connections', connection(3, uuid(41), 'b', null));
      tx.insert('connections', connection(4, uuid(41), 'gl', '42', 'gitlab'));
    });
    const taken = await store.write((tx) => tx.insert('connections', connection(5, uuid(41), 'c', '42'))).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(UniqueViolation);
    expect((taken as UniqueViolation).fields).toEqual(['provider', 'external_id']);
    const named = await store.write((tx) => tx.insert('connections', connection(6, uuid(40), 'GH', null))).catch((e: unknown) => e);
    expect((named as UniqueViolation).fields).toEqual(['team_id', 'name_key']);
    expect((await store.read((tx) => tx.list('connections', { provider: 'github', external_id: '42' }))).map((c) => c.id)).toEqual([uuid(4001)]);
    expect(await store.read((tx) => tx.list('connections', { provider: 'github', external_id: '43' }))).toEqual([]);
  });

  it('applies nothing of a transaction whose callback throws', async () => {
    await expect(
      store.write((tx) => {
        tx.insert('teams', team(4));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await store.read((tx) => tx.get('teams', uuid(4)))).toBeUndefined();
  });

  it('refuses a second row with a unique value, or unique values together, with UniqueViolation, applying nothing', async () => {
    await store.write((tx) => tx.insert('teams', team(5, 'taken')));
    const slug = await store.write((tx) => tx.insert('teams', team(6, 'taken'))).catch((e: unknown) => e);
    expect(slug).toBeInstanceOf(UniqueViolation);
    expect((slug as UniqueViolation).table).toBe('teams');
    expect((slug as UniqueViolation).fields).toEqual(['slug']);

    await store.write((tx) => tx.insert('automations', automation(5, uuid(5), 'nightly')));
    const name = await store
      .write((tx) => {
        tx.insert('automations', automation(6, uuid(6), 'nightly')); // another team: fine
        tx.insert('automations', automation(7, uuid(5), 'nightly'));
      })
      .catch((e: unknown) => e);
    expect(name).toBeInstanceOf(UniqueViolation);
    expect((name as UniqueViolation).fields).toEqual(['team_id', 'name_key']);
    expect(await store.read((tx) => tx.get('automations', uuid(1006)))).toBeUndefined();
  });

  it('refuses a value it cannot hold, or holds it, but never half a transaction', async () => {
    const t = team(8);
    const row: EventRow = {
      id: uuid(3000),
      event_id: 'nul',
      team_id: t.id,
      provider: 'generic',
      event_type: 'x',
      connection_id: null,
      source: null,
      subject: null,
      time: at(8),
      metadata: {},
      data: { text: 'a\u0000b' },
      received_at: at(8),
      accepted: false,
      dispatched: [],
      reason: 'r',
      failures: [],
    };
    const result = await store
      .write((tx) => {
        tx.insert('teams', t);
        tx.insert('events', row);
      })
      .catch((e: unknown) => e);
    if (result instanceof UnstorableValueError) {
      expect(await store.read((tx) => tx.get('teams', t.id))).toBeUndefined();
    } else {
      expect(await store.read((tx) => tx.get('events', row.id))).toEqual(row);
    }
  });
});

describe('WriteTx.listCommitted on PostgreSQL, with another writer on the same database', () => {
  it('sees what was committed after the transaction began; an insert of a key committed meanwhile makes the write run again, and then it finds that row', async () => {
    const url = await cluster.createDatabase(`contract_${++databases}`);
    const [mine, other] = [await openPostgresStore({ url, logger: silent }), await openPostgresStore({ url, logger: silent })];
    cleanups.push(async () => {
      await mine.close();
      await other.close();
    });
    const t = team(40);
    await mine.write((tx) => tx.insert('teams', t));
    const keyed = (n: number) => session(40 + n, t.id, { idempotency_key: 'schedule:slot-1' });

    const runs: (string | undefined)[] = [];
    const found = await mine.write(async (tx) => {
      // The snapshot is taken here, before the other writer commits the key.
      await tx.get('teams', t.id);
      if (runs.length === 0) await other.write((otx) => otx.insert('sessions', keyed(2)));
      const [seen] = await tx.listCommitted('sessions', { idempotency_key: 'schedule:slot-1' });
      runs.push(seen?.session_id);
      if (runs.length === 1) {
        // First run: the row is committed, so listCommitted sees it although the snapshot predates it.
        expect(seen?.session_id).toBe(keyed(2).session_id);
        expect(await tx.list('sessions', { idempotency_key: 'schedule:slot-1' })).toEqual([]);
        // Insert it regardless: the unique key refuses it, and the write runs again.
        tx.insert('sessions', keyed(1));
        return 'inserted';
      }
      return seen ? 'found' : 'inserted';
    });
    expect(found).toBe('found');
    expect(runs).toEqual([keyed(2).session_id, keyed(2).session_id]);
    expect(await mine.read((tx) => tx.list('sessions', { idempotency_key: 'schedule:slot-1' }))).toEqual([keyed(2)]);
  });
});
