// The journal store against real files in a temp folder: durability, rollback, restart, torn and
// corrupt files, compaction, retention, group commit and schema versions.
import { constants as fsConstants } from 'node:fs';
import { appendFile, copyFile, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { openStore, type JournalStore, type OpenStoreOptions } from '../../daemon/store/index.js';
import { SCHEMA_VERSION } from '../../daemon/store/migrations.js';
import { SnapshotFile } from '../../daemon/store/snapshot-file.js';
import { sessionForKey } from '../../daemon/sessions/keys.js';
import { UniqueViolation, type Store, type WriteTx } from '../../daemon/store/store.js';
import { journalBytes, journalText, writeAfterLastRecord } from '../helpers/journal-files.js';
import { captureLogger } from './store-child/logger.js';
import { event, message, session, team } from './store-child/rows.js';
import type { SessionRow } from '../../daemon/store/tables.js';

const dirs: string[] = [];
const open: JournalStore[] = [];

afterEach(async () => {
  // Stores a test left open on purpose stand for a crashed process; closed only now, after the
  // test has reopened their folder.
  for (const s of open.splice(0)) await s.close().catch(() => undefined);
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-store-'));
  dirs.push(dir);
  return dir;
}

async function openAt(dataDir: string, extra: Partial<OpenStoreOptions> = {}) {
  const log = captureLogger();
  const store = await openStore({ dataDir, logger: log.logger, ...extra });
  open.push(store);
  return { store, log };
}

async function reopen(store: JournalStore, dataDir: string, extra: Partial<OpenStoreOptions> = {}) {
  await store.close();
  return openAt(dataDir, extra);
}

const segmentsIn = async (dir: string) => (await readdir(dir)).filter((n) => n.startsWith('journal-')).sort();

describe('writes and reads', () => {
  test('a written row is read back by key, by index and in counts', async () => {
    const { store } = await openAt(await tempDir());
    await store.write((tx) => {
      tx.put('teams', team('t1'));
      tx.put('sessions', session('s1', { team_id: 't1' }));
      tx.put('sessions', session('s2', { team_id: 't2' }));
    });
    expect(await store.read((tx) => tx.get('teams', 't1'))).toEqual(team('t1'));
    expect((await store.read((tx) => tx.list('sessions', { team_id: 't1' }))).map((s) => s.session_id)).toEqual(['s1']);
    expect(await store.read((tx) => tx.count('sessions'))).toBe(2);
  });

  test('write returns what the transaction returns and sees its own writes', async () => {
    const { store } = await openAt(await tempDir());
    const seen = await store.write(async (tx) => {
      tx.put('teams', team('t1'));
      const inside = await tx.get('teams', 't1');
      tx.delete('teams', 't1');
      return { inside: inside?.id, after: await tx.get('teams', 't1') };
    });
    expect(seen).toEqual({ inside: 't1', after: undefined });
    expect(await store.read((tx) => tx.count('teams'))).toBe(0);
  });

  test('getMany reads several keys in their order, undefined where none, in reads and in a write that changed them', async () => {
    const { store } = await openAt(await tempDir());
    await store.write((tx) => {
      tx.put('teams', team('t1'));
      tx.put('teams', team('t2'));
    });
    const ids = (rows: ({ id: string } | undefined)[]) => rows.map((r) => r?.id);
    expect(ids(await store.read((tx) => tx.getMany('teams', ['t2', 'nope', 't1', 't2'])))).toEqual(['t2', undefined, 't1', 't2']);
    expect(await store.read((tx) => tx.getMany('teams', []))).toEqual([]);
    const inside = await store.write(async (tx) => {
      tx.delete('teams', 't1');
      tx.put('teams', team('t3'));
      return tx.getMany('teams', ['t1', 't2', 't3']);
    });
    expect(ids(inside)).toEqual([undefined, 't2', 't3']);
  });

  test('a transaction that throws applies nothing and the error reaches the caller', async () => {
    const { store } = await openAt(await tempDir());
    await store.write((tx) => tx.put('teams', team('keep')));
    await expect(
      store.write(async (tx) => {
        tx.put('teams', team('lost'));
        tx.delete('teams', 'keep');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await store.read((tx) => tx.list('teams'))).map((t) => t.id)).toEqual(['keep']);
    expect(store.stats().seq).toBe(1);
  });

  test('a transaction with no writes touches no file', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    const files = async () => {
      const out: [string, string][] = [];
      for (const name of (await readdir(dir)).sort()) {
        const path = join(dir, name);
        out.push([name, (await stat(path)).isFile() ? (await readFile(path)).toString('base64') : 'folder']);
      }
      return out;
    };
    const before = await files();
    expect(await store.write(async (tx) => (await tx.get('teams', 'x')) ?? 'none')).toBe('none');
    expect(await files()).toEqual(before);
  });

  test('a row put into a transaction is kept as given, not copied: reads return that object', async () => {
    // The contract of store.ts: a row handed to put belongs to the store and is never mutated again.
    const { store } = await openAt(await tempDir());
    const row = team('t1');
    await store.write((tx) => tx.put('teams', row));
    expect(await store.read((tx) => tx.get('teams', 't1'))).toBe(row);
  });

  test('a row updated without changing an indexed field keeps its place in index lists, as after a restart', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    for (const id of ['s1', 's2', 's3']) await store.write((tx) => tx.put('sessions', session(id, { team_id: 't1' })));
    await store.write(async (tx) => tx.put('sessions', { ...(await tx.get('sessions', 's1'))!, status: 'running' }));
    const order = (s: JournalStore) => s.read(async (tx) => (await tx.list('sessions', { team_id: 't1' })).map((x) => x.session_id));
    expect(await order(store)).toEqual(['s1', 's2', 's3']);
    const { store: again } = await reopen(store, dir);
    expect(await order(again)).toEqual(['s1', 's2', 's3']);
  });

  test('a row whose indexed field changes leaves the old value\'s list and joins the new one', async () => {
    const { store } = await openAt(await tempDir());
    for (const id of ['s1', 's2']) await store.write((tx) => tx.put('sessions', session(id, { team_id: 't1' })));
    await store.write(async (tx) => tx.put('sessions', { ...(await tx.get('sessions', 's1'))!, team_id: 't2' }));
    const ids = (team_id: string) => store.read(async (tx) => (await tx.list('sessions', { team_id })).map((x) => x.session_id));
    expect([await ids('t1'), await ids('t2')]).toEqual([['s2'], ['s1']]);
  });

  test('a lookup on a unique field inside a transaction sees the rows as that transaction left them', async () => {
    const { store } = await openAt(await tempDir());
    await store.write((tx) => {
      tx.put('sessions', session('kept', { idempotency_key: 'k-kept' }));
      tx.put('sessions', session('moved', { idempotency_key: 'k-moved' }));
      tx.put('sessions', session('gone', { idempotency_key: 'k-gone' }));
    });
    const seen = await store.write(async (tx) => {
      const ids = async (key: string) => (await tx.list('sessions', { idempotency_key: key })).map((s) => [s.session_id, s.status]);
      tx.put('sessions', session('new', { idempotency_key: 'k-new' }));
      await tx.update('sessions', 'kept', { status: 'running' });
      await tx.update('sessions', 'moved', { idempotency_key: 'k-elsewhere' });
      tx.delete('sessions', 'gone');
      return {
        new: await ids('k-new'),
        kept: await ids('k-kept'),
        moved: await ids('k-moved'),
        elsewhere: await ids('k-elsewhere'),
        gone: await ids('k-gone'),
        never: await ids('k-never'),
      };
    });
    expect(seen).toEqual({
      new: [['new', 'queued']],
      kept: [['kept', 'running']],
      moved: [],
      elsewhere: [['moved', 'queued']],
      gone: [],
      never: [],
    });
  });

  test('a row that leaves a value and comes back is listed once, where it came back, as after a restart', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    for (const id of ['s1', 's2', 's3']) await store.write((tx) => tx.put('sessions', session(id, { team_id: 't1' })));
    await store.write((tx) => tx.update('sessions', 's1', { team_id: 't2' }));
    await store.write((tx) => tx.update('sessions', 's1', { team_id: 't1' }));
    const ids = (s: JournalStore, team_id: string) => s.read(async (tx) => (await tx.list('sessions', { team_id })).map((x) => x.session_id));
    expect([await ids(store, 't1'), await ids(store, 't2')]).toEqual([['s2', 's3', 's1'], []]);
    expect(await store.read((tx) => tx.count('sessions', { team_id: 't1' }))).toBe(3);
  });

  test('index lists stay exact while most of their rows are deleted or moved, and a value whose rows all went lists none', async () => {
    const { store } = await openAt(await tempDir());
    const all = Array.from({ length: 40 }, (_, i) => `s${i}`);
    await store.write((tx) => {
      for (const id of all) tx.put('sessions', session(id, { team_id: 't1', automation_id: 'a1' }));
    });
    // Every third row deleted, every third moved to another automation, one at a time.
    for (const [i, id] of all.entries()) {
      if (i % 3 === 0) await store.write((tx) => tx.delete('sessions', id));
      if (i % 3 === 1) await store.write((tx) => tx.update('sessions', id, { automation_id: 'a2' }));
    }
    const ids = (where: { team_id?: string; automation_id?: string }) => store.read(async (tx) => (await tx.list('sessions', where)).map((x) => x.session_id));
    expect(await ids({ automation_id: 'a1' })).toEqual(all.filter((_, i) => i % 3 === 2));
    expect(await ids({ automation_id: 'a2' })).toEqual(all.filter((_, i) => i % 3 === 1));
    expect(await ids({ team_id: 't1' })).toEqual(all.filter((_, i) => i % 3 !== 0));
    for (const id of all.filter((_, i) => i % 3 === 2)) await store.write((tx) => tx.delete('sessions', id));
    expect(await ids({ automation_id: 'a1' })).toEqual([]);
    expect(await ids({ team_id: 't1' })).toEqual(all.filter((_, i) => i % 3 === 1));
  });

  test('one transaction that puts a key twice, or deletes and puts it again, leaves the indexes as its last write says', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('sessions', session('s1', { team_id: 't1' })));
    await store.write((tx) => {
      tx.put('sessions', session('s1', { team_id: 't2' }));
      tx.put('sessions', session('s1', { team_id: 't3' }));
      tx.delete('sessions', 's1');
      tx.put('sessions', session('s1', { team_id: 't4' }));
      tx.insert('sessions', session('s2', { team_id: 't2' }));
    });
    const ids = (s: JournalStore, team_id: string) => s.read(async (tx) => (await tx.list('sessions', { team_id })).map((x) => x.session_id));
    const teams = ['t1', 't2', 't3', 't4'];
    const expected = [[], ['s2'], [], ['s1']];
    expect(await Promise.all(teams.map((t) => ids(store, t)))).toEqual(expected);
    const { store: again } = await reopen(store, dir);
    expect(await Promise.all(teams.map((t) => ids(again, t)))).toEqual(expected);
  });

  test('an inserted row is read back by key and by index, before and after a restart', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.insert('sessions', session('s1', { team_id: 't1', idempotency_key: 'k1' })));
    await store.write((tx) => tx.update('sessions', 's1', { status: 'running' }));
    const seen = (s: JournalStore) =>
      s.read(async (tx) => ({
        row: await tx.get('sessions', 's1'),
        byKey: (await tx.list('sessions', { idempotency_key: 'k1' })).map((x) => x.session_id),
        byTeam: (await tx.list('sessions', { team_id: 't1' })).map((x) => x.session_id),
      }));
    const expected = { row: session('s1', { team_id: 't1', idempotency_key: 'k1', status: 'running' }), byKey: ['s1'], byTeam: ['s1'] };
    expect(await seen(store)).toEqual(expected);
    const { store: again } = await reopen(store, dir);
    expect(await seen(again)).toEqual(expected);
  });

  test('writes after close are refused', async () => {
    const { store } = await openAt(await tempDir());
    await store.close();
    await expect(store.write((tx) => tx.put('teams', team('t')))).rejects.toThrow('the store is closed');
  });
});

describe('restart', () => {
  test('everything written is there after close and reopen', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    for (let i = 0; i < 20; i++) await store.write((tx) => tx.put('sessions', session(`s${i}`)));
    await store.write((tx) => tx.delete('sessions', 's3'));
    await store.write((tx) => tx.put('sessions', session('s4', { status: 'running' })));
    const { store: again } = await reopen(store, dir);
    expect(await again.read((tx) => tx.count('sessions'))).toBe(19);
    expect(await again.read((tx) => tx.get('sessions', 's3'))).toBeUndefined();
    expect((await again.read((tx) => tx.get('sessions', 's4')))?.status).toBe('running');
    expect(again.stats().seq).toBe(22);
  });

  test('a store that was never closed is rebuilt from the journal alone', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    for (let i = 0; i < 10; i++) await store.write((tx) => tx.put('teams', team(`t${i}`)));
    // No close(): the snapshot is the empty one written at first open; the journal holds the rest.
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.count('teams'))).toBe(10);
    expect(again.stats()).toMatchObject({ seq: 10, snapshotSeq: 0 });
  });

  test('close writes a snapshot and leaves one journal segment', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    await store.close();
    const snap = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'));
    expect(snap).toMatchObject({ schema_version: SCHEMA_VERSION, seq: 1 });
    expect(snap.tables.teams).toEqual([team('t1')]);
    expect(await segmentsIn(dir)).toEqual(['journal-0000000000000002.jsonl']);
  });
});

describe('what the journal writes', () => {
  /** Bytes of journal records in the folder so far. */
  const journalSize = async (dir: string) => {
    let size = 0;
    for (const segment of await segmentsIn(dir)) size += (await journalBytes(join(dir, segment))).length;
    return size;
  };
  /** How many bytes of journal `write` added. */
  const grownBy = async (dir: string, write: () => Promise<unknown>) => {
    const before = await journalSize(dir);
    await write();
    return (await journalSize(dir)) - before;
  };
  const BLOB = 'x'.repeat(2000);

  test('a row replaced with a few changed fields costs the journal those fields, not the row, and replays to the same row', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('sessions', session('s1', { event: { id: 'e1', data: { blob: BLOB } } })));
    const grown = await grownBy(dir, () =>
      store.write(async (tx) => {
        const s = (await tx.get('sessions', 's1'))!;
        tx.put('sessions', { ...s, status: 'completed', completed_at: '2024-01-02T00:00:00.000Z', runner: 'record' });
      }),
    );
    expect(grown).toBeLessThan(BLOB.length / 4);
    const expected = await store.read((tx) => tx.get('sessions', 's1'));
    // Not closed: the journal alone rebuilds the row.
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.get('sessions', 's1'))).toEqual(expected);
  });

  test('update() costs the journal the fields it is given, returns the new row, and refuses a row that does not exist', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('sessions', session('s1', { prompt: BLOB })));
    let updated: unknown;
    const grown = await grownBy(dir, async () => (updated = await store.write((tx) => tx.update('sessions', 's1', { status: 'running', runner: 'exec' }))));
    expect(updated).toMatchObject({ session_id: 's1', status: 'running', runner: 'exec', prompt: BLOB });
    expect(grown).toBeLessThan(BLOB.length / 4);
    await expect(store.write((tx) => tx.update('sessions', 'ghost', { status: 'running' }))).rejects.toThrow('sessions row ghost to update does not exist');
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.get('sessions', 's1'))).toEqual(updated);
  });

  test('a replacement that drops a field, sets one to undefined, or follows a delete replays to the same rows', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => {
      tx.put('sessions', session('drop', { runner: 'exec' }));
      tx.put('sessions', session('undef', { runner: 'exec' }));
      tx.put('sessions', session('again'));
    });
    await store.write(async (tx) => {
      const { runner: _dropped, ...rest } = (await tx.get('sessions', 'drop'))!;
      tx.put('sessions', rest);
      tx.put('sessions', { ...(await tx.get('sessions', 'undef'))!, runner: undefined });
      tx.delete('sessions', 'again');
      tx.put('sessions', session('again', { status: 'running' }));
    });
    const { store: again } = await openAt(dir);
    const rows = await again.read(async (tx) => [await tx.get('sessions', 'drop'), await tx.get('sessions', 'undef'), await tx.get('sessions', 'again')]);
    expect(rows.map((r) => [r && 'runner' in r, r?.status])).toEqual([[false, 'queued'], [false, 'queued'], [false, 'running']]);
  });

  test('rows of one write that hold the same values cost the journal those values once, and replay to the same rows', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    const ids = ['s1', 's2', 's3', 's4'];
    const stored = await grownBy(dir, () =>
      store.write((tx) => {
        for (const id of ids) {
          tx.put('messages', message(`m-${id}`, id, { content: BLOB }));
          tx.put('sessions', session(id, { team_id: 't1', last_error: BLOB }));
        }
      }),
    );
    // each value shared by the four messages, and by the four sessions, once
    expect(stored).toBeLessThan(3 * BLOB.length);
    const completed = await grownBy(dir, () =>
      store.write(async (tx) => {
        for (const id of ids) tx.put('sessions', { ...(await tx.get('sessions', id))!, status: 'completed' });
      }),
    );
    expect(completed).toBeLessThan(BLOB.length / 4);
    const expected = await store.read(async (tx) => [await tx.list('sessions'), await tx.list('messages')]);
    // Not closed: the journal alone rebuilds the rows.
    const { store: again } = await openAt(dir);
    expect(await again.read(async (tx) => [await tx.list('sessions'), await tx.list('messages')])).toEqual(expected);
    expect(await again.read((tx) => tx.count('events'))).toBe(0);
  });
});

describe('large transactions', () => {
  test('a transaction whose journal line is larger than the read buffer replays intact', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => {
      for (let i = 0; i < 3000; i++) tx.put('sessions', session(`big${i}`, { prompt: `${i} `.repeat(200) }));
    });
    expect((await stat(join(dir, (await segmentsIn(dir))[0]))).size).toBeGreaterThan(2 * 1024 * 1024);
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.count('sessions'))).toBe(3000);
    expect((await again.read((tx) => tx.get('sessions', 'big2999')))?.prompt).toBe('2999 '.repeat(200));
  });
});

describe('damaged files', () => {
  /** A folder whose one journal segment (`path`) holds the writes of teams t1 and t2. */
  async function twoTeamsJournal() {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    await store.write((tx) => tx.put('teams', team('t2')));
    const [segment] = await segmentsIn(dir);
    return { dir, path: join(dir, segment) };
  }

  test('a torn last journal line is dropped with a warning and cut off the file', async () => {
    const { dir, path } = await twoTeamsJournal();
    const goodSize = (await journalBytes(path)).length;
    await writeAfterLastRecord(path, '{"seq":3,"m":[["put","teams",{"id":"t3","sl');

    const { store: again, log } = await openAt(dir);
    expect((await again.read((tx) => tx.list('teams'))).map((t) => t.id)).toEqual(['t1', 't2']);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([expect.stringContaining('torn last journal line')]);
    expect((await stat(path)).size).toBe(goodSize);

    // Later appends start on a clean line and survive another restart.
    await again.write((tx) => tx.put('teams', team('t3')));
    // `again` is not closed: its journal alone must carry t3.
    const { store: third } = await openAt(dir);
    expect((await third.read((tx) => tx.list('teams'))).map((t) => t.id)).toEqual(['t1', 't2', 't3']);
  });

  test('the zeros kept past the last record are no torn line: a restart says nothing and appends after the last record', async () => {
    const { dir, path } = await twoTeamsJournal();
    const records = (await journalBytes(path)).length;
    expect((await stat(path)).size).toBeGreaterThan(records);
    const { store: again, log } = await openAt(dir);
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
    await again.write((tx) => tx.put('teams', team('t3')));
    // `again` is not closed: its journal alone must carry t3, right after t2's record.
    const { store: third } = await openAt(dir);
    expect((await third.read((tx) => tx.list('teams'))).map((t) => t.id)).toEqual(['t1', 't2', 't3']);
    expect((await journalText(path)).split('\n').filter(Boolean).map((l) => JSON.parse(l).seq)).toEqual([1, 2, 3]);
  });

  test('a complete last line holding zeros (a power loss persisted its end, not its middle) is treated as torn too', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    const [segment] = await segmentsIn(dir);
    await writeAfterLastRecord(join(dir, segment), '{"seq":2,"m":[["put","te\0\0\0\0\0\0\0\0ms",{"id":"t2"}]]}\n');
    const { store: again, log } = await openAt(dir);
    expect(await again.read((tx) => tx.count('teams'))).toBe(1);
    expect(log.lines.some((l) => l.level === 'warn')).toBe(true);
  });

  test('a complete last line damaged otherwise was written whole: startup stops, the file untouched', async () => {
    const { dir, path } = await twoTeamsJournal();
    // one byte of the acknowledged last record changed, as bit rot or a careless edit would
    const bytes = await readFile(path);
    bytes[(await journalBytes(path)).length - 2] = '#'.charCodeAt(0);
    await writeFile(path, bytes);
    await expect(openAt(dir)).rejects.toThrow(`journal ${path} line 2 is not a valid journal record, though it was written whole`);
    expect(await readFile(path)).toEqual(bytes);
  });

  test('a missing snapshot stops startup when the journal does not reach back to the first record', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    await store.write((tx) => tx.put('teams', team('t2')));
    await store.close(); // the data is in the snapshot now, the journal segment after it empty
    await rename(join(dir, 'snapshot.json'), join(dir, 'snapshot.json.bad'));
    const before = await readdir(dir);
    await expect(openAt(dir)).rejects.toThrow(/snapshot\.json is missing, but the journal starts at record 3 .*records 1 to 2 were in that snapshot/);
    expect(await readdir(dir)).toEqual(before);
  });

  test('a corrupt line that is not the last one stops startup and names the file and line', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    const [segment] = await segmentsIn(dir);
    const path = join(dir, segment);
    await writeAfterLastRecord(path, 'not json\n{"seq":3,"m":[]}\n');
    const before = await readFile(path);
    await expect(openAt(dir)).rejects.toThrow(`journal ${path} line 2 is not a valid journal record`);
    expect(await readFile(path)).toEqual(before);
  });

  test('a gap in the journal sequence stops startup', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    const [segment] = await segmentsIn(dir);
    await writeAfterLastRecord(join(dir, segment), '{"seq":5,"m":[]}\n');
    await expect(openAt(dir)).rejects.toThrow('has seq 5 where 2 was expected');
  });

  test('a snapshot that does not parse refuses to start, names the file, and is left byte-identical', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    await store.close();
    const path = join(dir, 'snapshot.json');
    const damaged = Buffer.from('{"schema_version":1,"seq":1,"tables":{"teams":[{"id":"t1"');
    await writeFile(path, damaged);
    const segmentsBefore = await segmentsIn(dir);

    await expect(openAt(dir)).rejects.toThrow(`snapshot ${path} is not valid JSON`);
    await expect(openAt(dir)).rejects.toThrow('left untouched');
    expect(await readFile(path)).toEqual(damaged);
    expect(await segmentsIn(dir)).toEqual(segmentsBefore);
  });

  test.each([
    ['a null row', [null], 'row 0 of table teams is null, not an object'],
    ['a row that is an array', [['t1']], 'row 0 of table teams is an array, not an object'],
    ['a row without its key', [{ slug: 'x' }], 'row 0 of table teams has no id (its key)'],
    ['a row whose key is no string', [{ id: 7 }], 'row 0 of table teams has no id (its key)'],
  ])('a snapshot holding %s refuses to start, names the file and the row, and is left byte-identical', async (_, rows, message) => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    await store.close();
    const path = join(dir, 'snapshot.json');
    const snap = JSON.parse(await readFile(path, 'utf8')) as { tables: Record<string, unknown[]> };
    snap.tables.teams = rows;
    const edited = Buffer.from(JSON.stringify(snap));
    await writeFile(path, edited);

    await expect(openAt(dir)).rejects.toThrow(`snapshot ${path}: ${message}; the daemon will not start`);
    expect(await readFile(path)).toEqual(edited);
  });

  test('a leftover temp snapshot from a crash mid-compaction is ignored and removed', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    await writeFile(join(dir, 'snapshot.json.tmp'), '{"half a');
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.count('teams'))).toBe(1);
    expect(await readdir(dir)).not.toContain('snapshot.json.tmp');
  });

  test('after a journal write fails, the store refuses reads and writes alike, and says why', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    expect(store.failure()).toBeNull();
    // The journal's file closed under it: the next append fails as on a full disk. That write was
    // applied in memory first, so reading memory now could show a write that was refused.
    await (store as unknown as { journal: { segment: { handle: { close(): Promise<void> } } } }).journal.segment.handle.close();
    await expect(store.write((tx) => tx.put('teams', team('t2')))).rejects.toThrow('journal write failed');
    expect(store.failure()?.message).toContain('journal write failed');
    await expect(store.read((tx) => tx.list('teams'))).rejects.toThrow('journal write failed');
    await expect(store.write((tx) => tx.put('teams', team('t3')))).rejects.toThrow('journal write failed');
  });

  test('a store told to refuse writes (its lock lost) refuses them, and still reads', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    store.refuseWrites(new Error('the data folder lock was lost'));
    await expect(store.write((tx) => tx.put('teams', team('t2')))).rejects.toThrow('the data folder lock was lost');
    expect((await store.read((tx) => tx.list('teams'))).map((t) => t.id)).toEqual(['t1']);
    expect(store.failure()?.message).toBe('the data folder lock was lost');
  });

  test("refuses a snapshot newer than the journal's last record (another folder's), leaving the files untouched", async () => {
    const theirs = await tempDir();
    const { store: other } = await openAt(theirs);
    for (let i = 0; i < 5; i++) await other.write((tx) => tx.put('teams', team(`other${i}`)));
    await other.close(); // a snapshot at seq 5
    const ours = await tempDir();
    const { store: mine } = await openAt(ours);
    await mine.write((tx) => tx.put('teams', team('mine1')));
    await mine.write((tx) => tx.put('teams', team('mine2')));
    // (left open: a crashed daemon, whose two records are in the journal only)
    await copyFile(join(theirs, 'snapshot.json'), join(ours, 'snapshot.json'));
    const before = await Promise.all((await readdir(ours)).sort().map(async (f) => [f, await readFile(join(ours, f), 'utf8').catch(() => '')]));
    await expect(openAt(ours)).rejects.toThrow('covers records up to 5, but the journal ends at record 2');
    expect(await Promise.all((await readdir(ours)).sort().map(async (f) => [f, await readFile(join(ours, f), 'utf8').catch(() => '')]))).toEqual(before);
  });

  test('a store that lost its lock neither snapshots nor removes journal segments, at close or otherwise', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    const before = (await readdir(dir)).sort();
    store.refuseWrites(new Error('the data folder lock was lost'));
    // Another daemon took the folder over and journals into the same segment.
    const segment = before.find((f) => f.startsWith('journal-'))!;
    const theirs = `${JSON.stringify({ seq: 2, m: [['put', 'teams', team('t2')]] })}\n`;
    await writeAfterLastRecord(join(dir, segment), theirs);
    await store.close();
    expect((await readdir(dir)).sort()).toEqual(before);
    expect(await journalText(join(dir, segment))).toContain(theirs);
    const { store: reopened } = await openAt(dir);
    expect((await reopened.read((tx) => tx.list('teams'))).map((t) => t.id).sort()).toEqual(['t1', 't2']);
    await reopened.close();
  });

  test('a snapshot write that fails part-way removes its temp file, leaving the last snapshot in place', async () => {
    const dir = await tempDir();
    const file = new SnapshotFile(join(dir, 'snapshot.json'));
    await file.write({ schema_version: SCHEMA_VERSION, seq: 1, tables: { teams: [team('t1')] } } as never);
    // A value JSON cannot write stands for the disk filling up after the first rows went out.
    const unwritable = { schema_version: SCHEMA_VERSION, seq: 2, tables: { teams: [team('t2'), { id: 'x', n: 1n }] } };
    await expect(file.write(unwritable as never)).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['snapshot.json']);
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')).seq).toBe(1);
  });
});

describe('schema versions', () => {
  test('a snapshot from a newer schema version refuses to start with a clear message', async () => {
    const dir = await tempDir();
    const path = join(dir, 'snapshot.json');
    const newer = `{"schema_version":${SCHEMA_VERSION + 1},"seq":0,"tables":{}}\n`;
    await writeFile(path, newer);
    await expect(openAt(dir)).rejects.toThrow(`${path} has schema_version ${SCHEMA_VERSION + 1} but this svc only knows up to ${SCHEMA_VERSION}`);
    expect(await readFile(path, 'utf8')).toBe(newer);
  });

  test('older data is migrated step by step, journal included, and a new snapshot is written at once', async () => {
    const dir = await tempDir();
    // No steps: the data is written as version 1.
    const { store } = await openAt(dir, { migrations: [] });
    await store.write((tx) => tx.put('teams', team('t1', { name: 'one' })));
    await store.close();
    const { store: v1tail } = await openAt(dir, { migrations: [] });
    await v1tail.write((tx) => tx.put('teams', team('t2', { name: 'two' }))); // t2 lives only in the v1 journal

    const steps = [
      (tables: Record<string, Record<string, unknown>[]>) => ({
        ...tables,
        teams: tables.teams.map((t) => ({ ...t, name: String(t.name).toUpperCase() })),
      }),
      (tables: Record<string, Record<string, unknown>[]>) => ({
        ...tables,
        teams: tables.teams.map((t) => ({ ...t, name: `${String(t.name)}!` })),
      }),
    ];
    const { store: migrated, log } = await openAt(dir, { migrations: steps });
    expect((await migrated.read((tx) => tx.list('teams'))).map((t) => t.name)).toEqual(['ONE!', 'TWO!']);
    expect(log.lines.some((l) => l.msg === 'store data migrated')).toBe(true);
    const snap = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'));
    expect(snap).toMatchObject({ schema_version: 3, seq: 2 });
    expect(await segmentsIn(dir)).toEqual(['journal-0000000000000003.jsonl']);

    // Data written after the migration is in the new version: reopened, nothing is migrated twice.
    await migrated.write((tx) => tx.put('teams', team('t3', { name: 'three' })));
    const { store: again } = await reopen(migrated, dir, { migrations: steps });
    expect((await again.read((tx) => tx.list('teams'))).map((t) => t.name)).toEqual(['ONE!', 'TWO!', 'three']);
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'))).toMatchObject({ schema_version: 3, seq: 3 });
  });

  test('schema 1 data becomes schema 2: no dispatches table, no stored prompt messages, keys derived on events', async () => {
    const dir = await tempDir();
    const at = '2026-01-05T10:00:00.000Z';
    const v1Session = { ...session('s1', { status: 'completed', prompt: 'do it', idempotency_key: 'event:a1:e1' }), event: { id: 'e1' } } as Record<string, unknown>;
    delete v1Session.event_row_id;
    const v1Event = { ...event('r1', at), dispatched: [{ automationId: 'a1', idempotencyKey: 'event:a1:e1', triggerIds: ['t1'] }] };
    const snapshot = {
      schema_version: 1,
      seq: 1,
      tables: {
        sessions: [v1Session],
        messages: [message('prompt-row', 's1', { role: 'user', content: 'do it' }), message('answer', 's1', { role: 'assistant', content: 'done' })],
        events: [v1Event],
        dispatches: [{ id: 'event:a1:e1', team_id: 'team-1', session_id: 's1', created_at: at }],
      },
    };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snapshot));
    // A schema 1 journal line still names the dropped table; it replays without that mutation.
    const line = { seq: 2, m: [['put', 'dispatches', { id: 'k2', team_id: 'team-1', session_id: 's1', created_at: at }], ['put', 'teams', team('t1')]] };
    await writeFile(join(dir, 'journal-0000000000000002.jsonl'), `${JSON.stringify(line)}\n`);

    const { store } = await openAt(dir);
    expect(await store.read((tx) => tx.list('teams'))).toHaveLength(1);
    expect((await store.read((tx) => tx.list('messages'))).map((m) => m.id)).toEqual(['answer']);
    const [s] = await store.read((tx) => tx.list('sessions', { idempotency_key: 'event:a1:e1' }));
    expect(s).toMatchObject({ session_id: 's1', event_row_id: null, event: { id: 'e1' } });
    expect((await store.read((tx) => tx.get('events', 'r1')))?.dispatched).toEqual([{ automationId: 'a1', triggerIds: ['t1'] }]);
    const snap = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'));
    expect(snap.schema_version).toBe(SCHEMA_VERSION);
    expect(snap.tables.dispatches).toBeUndefined();
  });

  test('schema 2 data becomes schema 3: automation name keys fold Unicode case', async () => {
    const dir = await tempDir();
    const automation = (id: string, name: string) => ({ id, team_id: 'team-1', name, name_key: name.trim().toLowerCase(), status: 'active' });
    const snapshot = { schema_version: 2, seq: 1, tables: { automations: [automation('a1', 'Straße Bot'), automation('a2', 'ΣΑΣ')] } };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snapshot));
    const { store } = await openAt(dir);
    const keys = (await store.read((tx) => tx.list('automations'))).map((a) => [a.name, a.name_key]);
    expect(keys).toEqual([['Straße Bot', 'strasse bot'], ['ΣΑΣ', 'σας']]); // (final sigma: 'σασ' folds the same way)
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')).schema_version).toBe(SCHEMA_VERSION);
  });

  test('schema 3 data becomes schema 4: the capital sharp s folds to ss', async () => {
    const dir = await tempDir();
    const automation = (id: string, name: string, nameKey: string) => ({ id, team_id: 'team-1', name, name_key: nameKey, status: 'active' });
    const snapshot = { schema_version: 3, seq: 1, tables: { automations: [automation('a1', 'STRAẞE', 'straße'), automation('a2', 'Straße', 'strasse')] } };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snapshot));
    const { store } = await openAt(dir);
    expect((await store.read((tx) => tx.list('automations'))).map((a) => a.name_key)).toEqual(['strasse', 'strasse']);
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')).schema_version).toBe(SCHEMA_VERSION);
  });

  test('schema 4 data becomes schema 5: event triggers are indexed by their event type in lower case', async () => {
    const dir = await tempDir();
    const trigger = (id: string, kind: string, eventType: string | null) =>
      ({ id, team_id: 'team-1', automation_id: 'a1', kind, event_type: eventType, type_key: eventType === null ? null : `team-1|*|${eventType}` });
    const snapshot = { schema_version: 4, seq: 1, tables: { triggers: [trigger('t1', 'event', 'Deploy.Finished'), trigger('t2', 'schedule', null)] } };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snapshot));
    const { store } = await openAt(dir);
    expect((await store.read((tx) => tx.list('triggers'))).map((t) => t.type_key)).toEqual(['team-1|*|deploy.finished', null]);
    expect((await store.read((tx) => tx.list('triggers', { type_key: 'team-1|*|deploy.finished' })))[0].id).toBe('t1');
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')).schema_version).toBe(SCHEMA_VERSION);
  });

  test("schema 6 data becomes schema 7: a provider's own '|' is escaped in the trigger index's key", async () => {
    const dir = await tempDir();
    const trigger = (id: string, provider: string, eventType: string) =>
      ({ id, team_id: 'team-1', automation_id: 'a1', kind: 'event', provider, event_type: eventType, match_key: `team-1|${provider}|${eventType}`, type_key: `team-1|*|${eventType}` });
    const schedule = { id: 't3', team_id: 'team-1', automation_id: 'a1', kind: 'schedule', provider: null, event_type: null, match_key: null, type_key: null };
    const snapshot = { schema_version: 6, seq: 1, tables: { triggers: [trigger('t1', 'a', 'b|c'), trigger('t2', 'a|b', 'c'), trigger('t4', 'github', 'push'), schedule] } };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snapshot));
    const { store } = await openAt(dir);
    expect((await store.read((tx) => tx.list('triggers'))).map((t) => t.match_key)).toEqual(['team-1|a|b|c', 'team-1|a\\|b|c', 'team-1|github|push', null]);
    expect((await store.read((tx) => tx.list('triggers', { match_key: 'team-1|a|b|c' }))).map((t) => t.id)).toEqual(['t1']);
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')).schema_version).toBe(SCHEMA_VERSION);
  });

  test("schema 5 data becomes schema 6: an event's sessions are keyed through receipts, older ones linked to one", async () => {
    const dir = await tempDir();
    const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
    const at = '2026-01-01T00:00:00.000Z';
    const copy = (id: string) => ({ id, provider: 'github', event_type: 'push', connection_id: null, source: null, subject: null, time: at, metadata: {}, data: { n: 2 }, received_at: at });
    const snapshot = {
      schema_version: 5,
      seq: 1,
      tables: {
        events: [event('r1', at), { ...event('r3', at), event_id: 'e3' }],
        sessions: [
          // since schema 2: refers to its receipt
          session('s1', { automation_id: A, idempotency_key: `event:${A}:r1`, event_row_id: 'r1' }),
          // schema 1, its receipt dropped: one is made from its copy of the event
          { ...session('s2', { automation_id: A, idempotency_key: `event:${A}:e2` }), event: copy('e2') },
          // schema 1, a receipt of its event id kept
          { ...session('s3', { automation_id: A, idempotency_key: `event:${A}:e3` }), event: copy('e3') },
          session('s4', { automation_id: A, idempotency_key: 'schedule:t:2026-01-01T00:00:00.000Z' }),
        ],
      },
    };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snapshot));
    const { store } = await openAt(dir);
    const rows = await store.read((tx) => tx.list('sessions'));
    expect(rows.map((s) => [s.session_id, s.idempotency_key])).toEqual([['s1', null], ['s2', null], ['s3', null], ['s4', 'schedule:t:2026-01-01T00:00:00.000Z']]);
    expect(rows[2].event_row_id).toBe('r3');
    const restored = await store.read((tx) => tx.get('events', rows[1].event_row_id!));
    expect(restored).toMatchObject({ event_id: 'e2', team_id: 'team-1', provider: 'github', data: { n: 2 }, received_at: at, dispatched: [{ automationId: A, triggerIds: [] }] });
    const found = await store.read(async (tx) => Promise.all(['r1', 'e2', 'e3'].map(async (id) => (await sessionForKey(tx, 'team-1', `event:${A}:${id}`))?.session_id)));
    expect(found).toEqual(['s1', 's2', 's3']);
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')).schema_version).toBe(SCHEMA_VERSION);
  });

  test('schema 9 data becomes schema 10: a session an event started holds its event id, unique with its automation', async () => {
    const dir = await tempDir();
    const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
    const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
    const C = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
    const at = '2026-01-01T00:00:00.000Z';
    const v9 = (id: string, extra: Partial<SessionRow>) => {
      const row = session(id, { status: 'running', ...extra }) as Partial<SessionRow>;
      delete row.event_id;
      return row;
    };
    const snapshot = {
      schema_version: 9,
      seq: 1,
      tables: {
        events: [{ ...event('r1', at), event_id: 'e1' }, { ...event('r2', at), event_id: 'e2', team_id: 'team-2' }],
        sessions: [
          v9('s1', { automation_id: A, event_row_id: 'r1' }),
          v9('s2', { automation_id: A, event_row_id: 'r1' }), // a second one of the key: it loads, unkeyed
          v9('s3', { automation_id: B, event_row_id: 'r1' }),
          v9('s4', { automation_id: A, event_row_id: 'dropped' }), // its receipt went with retention
          v9('s5', { automation_id: A, event_row_id: 'r2' }), // a receipt of another team
          v9('s6', { automation_id: A, idempotency_key: 'schedule:t:2026-01-01T00:00:00.000Z' }),
        ],
      },
    };
    await writeFile(join(dir, 'snapshot.json'), JSON.stringify(snapshot));
    // A schema 9 journal line, replayed before the data is migrated.
    const line = { seq: 2, m: [['put', 'sessions', v9('s7', { automation_id: C, event_row_id: 'r1' })]] };
    await writeFile(join(dir, 'journal-0000000000000002.jsonl'), `${JSON.stringify(line)}\n`);

    const { store } = await openAt(dir);
    const rows = await store.read((tx) => tx.list('sessions'));
    expect(rows.map((s) => [s.session_id, s.event_id ?? null])).toEqual([
      ['s1', 'e1'], ['s2', null], ['s3', 'e1'], ['s4', null], ['s5', null], ['s6', null], ['s7', 'e1'],
    ]);
    const found = await store.read(async (tx) => Promise.all([A, B, C].map(async (a) => (await sessionForKey(tx, 'team-1', `event:${a}:e1`))?.session_id)));
    expect(found).toEqual(['s1', 's3', 's7']);
    const again = await store.write((tx) => tx.insert('sessions', session('s8', { automation_id: A, event_id: 'e1' }))).catch((e: unknown) => e);
    expect(again).toBeInstanceOf(UniqueViolation);
    expect(JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8')).schema_version).toBe(SCHEMA_VERSION);
  });
});

describe('compaction and retention', () => {
  test('passing the size threshold writes a snapshot and deletes the covered journal segments', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir, { compactThresholdBytes: 4096 });
    for (let i = 0; i < 100; i++) await store.write((tx) => tx.put('sessions', session(`s${i}`)));
    await store.compact(); // waits for any compaction the threshold started
    const stats = store.stats();
    expect(stats.compactions).toBeGreaterThan(0);
    expect(stats.snapshotSeq).toBe(100);
    expect(await segmentsIn(dir)).toEqual(['journal-0000000000000101.jsonl']);
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.count('sessions'))).toBe(100);
  });

  test('a journal smaller than the last snapshot waits to be as large before the next compaction', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir, { compactThresholdBytes: 4096 });
    const fill = (prefix: string, n: number) => store.write((tx) => {
      for (let i = 0; i < n; i++) tx.put('sessions', session(`${prefix}${i}`, { prompt: `${prefix}${i} ${'p'.repeat(500)}` }));
    });
    await fill('a', 200);
    await store.compact();
    const { snapshotBytes, compactions } = store.stats();
    expect(snapshotBytes).toBeGreaterThan(4 * 4096);
    // Past the threshold but not past the snapshot's size: no compaction starts.
    await fill('b', 20);
    expect(store.stats()).toMatchObject({ compactions, compacting: false });
    expect(store.stats().journalBytes).toBeGreaterThan(4096);
    // Past the snapshot's size: one does.
    await fill('c', 600);
    const started = store.stats();
    expect(started.compacting || started.compactions > compactions).toBe(true);
    await store.compact();
    const { store: again } = await reopen(store, dir);
    expect(await again.read((tx) => tx.count('sessions'))).toBe(820);
  });

  test('a compaction builds its snapshot in a worker thread from the files: the same rows, retention included, and writes go on meanwhile', async () => {
    // The compiled worker (npm test builds dist/ first): the test runner itself loads TypeScript.
    const { inWorker } = await import('../../dist/daemon/store/snapshot-runner.js');
    const dir = await tempDir();
    const now = new Date('2024-06-30T00:00:00.000Z');
    const old = '2024-05-01T00:00:00.000Z';
    const { store } = await openAt(dir, { now: () => now, snapshotRunner: inWorker });
    await store.write((tx) => {
      tx.put('sessions', session('done-old', { status: 'completed', completed_at: old, updated_at: old }));
      for (let i = 0; i < 200; i++) tx.put('sessions', session(`s${i}`, { prompt: `prompt ${i}` }));
    });
    const recent = '2024-06-29T00:00:00.000Z';
    for (let i = 0; i < 20; i++) {
      await store.write(async (tx) => tx.put('sessions', { ...(await tx.get('sessions', `s${i}`))!, status: 'completed', completed_at: recent, updated_at: recent }));
    }
    const compaction = store.compact();
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.write((tx) => tx.put('sessions', session(`late${i}`)))));
    await compaction;
    const expected = await store.read((tx) => tx.list('sessions'));
    expect(expected.map((s) => s.session_id)).not.toContain('done-old');
    const snap = JSON.parse(await readFile(join(dir, 'snapshot.json'), 'utf8'));
    // The snapshot holds the rows as of the capture (some of the late writes may precede it).
    const n = snap.tables.sessions.length;
    expect(n).toBeGreaterThanOrEqual(200);
    expect(snap.tables.sessions).toEqual(expected.slice(0, n));
    expect(snap.tables.sessions.filter((s: { status: string }) => s.status === 'completed')).toHaveLength(20);
    const { store: again } = await reopen(store, dir, { now: () => now });
    expect(await again.read((tx) => tx.list('sessions'))).toEqual(expected);
  });

  test('writes keep flowing while a compaction runs and none is lost', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    for (let i = 0; i < 50; i++) await store.write((tx) => tx.put('sessions', session(`a${i}`)));
    const compaction = store.compact();
    await Promise.all(Array.from({ length: 50 }, (_, i) => store.write((tx) => tx.put('sessions', session(`b${i}`)))));
    await compaction;
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.count('sessions'))).toBe(100);
  });

  test('a compaction that fails loses nothing: writes go on and the journal still has everything', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1')));
    // A folder where the temp snapshot goes makes writing the snapshot fail.
    await mkdir(join(dir, 'snapshot.json.tmp'));
    await expect(store.compact()).rejects.toThrow();
    await store.write((tx) => tx.put('teams', team('t2')));
    await rmdir(join(dir, 'snapshot.json.tmp'));
    const { store: again } = await openAt(dir);
    expect((await again.read((tx) => tx.list('teams'))).map((t) => t.id)).toEqual(['t1', 't2']);
  });

  test('compaction drops old events and old finished sessions with their messages, and keeps the rest and the events kept sessions refer to', async () => {
    const dir = await tempDir();
    const now = new Date('2024-06-30T00:00:00.000Z');
    const old = '2024-05-01T00:00:00.000Z';
    const recent = '2024-06-20T00:00:00.000Z';
    const { store } = await openAt(dir, { now: () => now, retentionDays: 30 });
    await store.write((tx) => {
      tx.put('events', event('e-old', old));
      tx.put('events', event('e-new', recent));
      tx.put('sessions', session('done-old', { status: 'completed', completed_at: old, updated_at: old }));
      tx.put('sessions', session('failed-old', { status: 'failed', completed_at: null, updated_at: old }));
      tx.put('sessions', session('cancelled-new', { status: 'cancelled', completed_at: recent, updated_at: recent }));
      tx.put('sessions', session('running-old', { status: 'running', updated_at: old }));
      tx.put('sessions', session('queued-old', { status: 'queued', updated_at: old }));
      tx.put('messages', message('m1', 'done-old'));
      tx.put('messages', message('m2', 'failed-old'));
      tx.put('messages', message('m3', 'running-old'));
      // an old event that a kept session was started by stays: the session refers to it
      tx.put('events', event('e-started-running', old));
      tx.put('sessions', session('running-from-event', { status: 'running', updated_at: old, event_row_id: 'e-started-running' }));
    });
    await store.compact();

    const check = async (s: JournalStore) => {
      expect((await s.read((tx) => tx.list('events'))).map((e) => e.id)).toEqual(['e-new', 'e-started-running']);
      expect((await s.read((tx) => tx.list('sessions'))).map((x) => x.session_id).sort()).toEqual(['cancelled-new', 'queued-old', 'running-from-event', 'running-old']);
      expect((await s.read((tx) => tx.list('messages'))).map((m) => m.id)).toEqual(['m3']);
    };
    await check(store);
    const { store: again } = await reopen(store, dir, { now: () => now });
    await check(again);
  });

  test('retention also runs on a timer, so a quiet daemon drops aged data without stopping; a pass with nothing to drop writes nothing', async () => {
    const dir = await tempDir();
    let now = new Date('2024-06-30T00:00:00.000Z');
    const { store } = await openAt(dir, { now: () => now, retentionDays: 30, retentionIntervalMs: 20 });
    await store.write((tx) => tx.put('events', event('e1', '2024-06-20T00:00:00.000Z')));
    await new Promise((r) => setTimeout(r, 100));
    // Nothing aged out yet: no snapshot, the write is still only in the journal.
    expect(store.stats()).toMatchObject({ compactions: 0, snapshotSeq: 0 });
    now = new Date('2024-08-01T00:00:00.000Z');
    for (let i = 0; i < 100 && store.stats().compactions === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(store.stats().compactions).toBe(1);
    expect(await store.read((tx) => tx.count('events'))).toBe(0);
    const { store: again } = await reopen(store, dir, { now: () => now });
    expect(await again.read((tx) => tx.count('events'))).toBe(0);
  });
});

describe('group commit', () => {
  test('many concurrent writes all become durable with fewer fsyncs than writes', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    const n = 300;
    await Promise.all(Array.from({ length: n }, (_, i) => store.write((tx) => tx.put('sessions', session(`s${i}`)))));
    const stats = store.stats();
    expect(stats.commits).toBe(n);
    expect(stats.syncs).toBeLessThan(n);
    expect(stats.syncs).toBeGreaterThan(0);
    // Not closed: what the journal holds is exactly what was acknowledged.
    const { store: again } = await openAt(dir);
    expect(await again.read((tx) => tx.count('sessions'))).toBe(n);
  });

  // Linux shows an open file's flags in /proc; O_DSYNC makes each write durable when it returns.
  test.runIf(process.platform === 'linux')('journal segments are written with O_DSYNC, before and after a compaction', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    const journalFlags = async () => {
      const flags: number[] = [];
      for (const fd of await readdir('/proc/self/fd')) {
        const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
        if (!target.startsWith(join(dir, 'journal-'))) continue;
        const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
        const octal = /^flags:\s+([0-7]+)/m.exec(info)?.[1];
        if (octal) flags.push(parseInt(octal, 8));
      }
      return flags;
    };
    await store.write((tx) => tx.put('sessions', session('s1')));
    expect(await journalFlags()).toEqual([expect.any(Number)]);
    for (const f of await journalFlags()) expect(f & fsConstants.O_DSYNC).toBe(fsConstants.O_DSYNC);
    await store.compact();
    await store.write((tx) => tx.put('sessions', session('s2')));
    const after = await journalFlags();
    expect(after).toHaveLength(1);
    expect(after[0] & fsConstants.O_DSYNC).toBe(fsConstants.O_DSYNC);
  });
});

describe('unique fields and counters', () => {
  const automation = (id: string, teamId: string, nameKey: string) => ({
    id, team_id: teamId, name: nameKey, name_key: nameKey, prompt: 'p', status: 'active' as const, environment_id: null, repo_filters: {},
    last_error: null, last_error_at: null, consecutive_failures: 0, created_at: '2024-01-01T00:00:00.000Z', updated_at: '2024-01-01T00:00:00.000Z',
  });
  const refusal = (write: Promise<unknown>) => write.then(() => undefined, (err: unknown) => err);

  test('a write giving a second row a unique value throws UniqueViolation naming the field, and applies nothing of its transaction', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('teams', team('t1', { slug: 'acme' })));
    const seq = store.stats().seq;
    for (const write of [
      (tx: WriteTx) => tx.insert('teams', team('t2', { slug: 'acme' })),
      (tx: WriteTx) => tx.put('teams', team('t2', { slug: 'acme' })),
      async (tx: WriteTx) => {
        tx.put('teams', team('t2', { slug: 'other' }));
        await tx.update('teams', 't2', { slug: 'acme' });
      },
    ]) {
      const err = await refusal(
        store.write(async (tx) => {
          tx.put('sessions', session('s-lost'));
          await write(tx);
        }),
      );
      expect(err).toBeInstanceOf(UniqueViolation);
      expect(err).toMatchObject({ table: 'teams', fields: ['slug'] });
    }
    expect(store.stats().seq).toBe(seq);
    expect(await store.read((tx) => tx.get('sessions', 's-lost'))).toBeUndefined();
    expect((await store.read((tx) => tx.list('teams'))).map((t) => t.id)).toEqual(['t1']);
  });

  test('fields unique together conflict only when all are equal, never on null, and are free again once the holder moves or goes', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => {
      tx.put('automations', automation('a1', 'team-1', 'nightly'));
      tx.put('automations', automation('a2', 'team-2', 'nightly')); // another team
      tx.put('sessions', session('s1', { automation_id: 'a1', event_id: 'e1' }));
      tx.put('sessions', session('s2', { automation_id: 'a2', event_id: 'e1' })); // another automation
      tx.put('sessions', session('s3', { automation_id: 'a1', event_id: null }));
      tx.put('sessions', session('s4', { automation_id: 'a1', event_id: null })); // nulls are never equal
      tx.put('sessions', session('s5', { automation_id: 'a1' }));
    });
    const name = await refusal(store.write((tx) => tx.put('automations', automation('a3', 'team-1', 'nightly'))));
    expect(name).toMatchObject({ table: 'automations', fields: ['team_id', 'name_key'] });
    const key = await refusal(store.write((tx) => tx.insert('sessions', session('s6', { automation_id: 'a1', event_id: 'e1' }))));
    expect(key).toMatchObject({ table: 'sessions', fields: ['automation_id', 'event_id'] });
    // two rows of one transaction
    const inOne = await refusal(
      store.write((tx) => {
        tx.insert('sessions', session('s7', { automation_id: 'a1', event_id: 'e2' }));
        tx.insert('sessions', session('s8', { automation_id: 'a1', event_id: 'e2' }));
      }),
    );
    expect(inOne).toBeInstanceOf(UniqueViolation);

    // The holder renamed (or deleted) earlier in the same transaction: the values are free.
    await store.write(async (tx) => {
      await tx.update('automations', 'a1', { name_key: 'daily' });
      tx.put('automations', automation('a3', 'team-1', 'nightly'));
      tx.delete('sessions', 's1');
      tx.insert('sessions', session('s9', { automation_id: 'a1', event_id: 'e1' }));
    });
    // A row put again with the values it holds is no conflict with itself.
    await store.write((tx) => tx.put('sessions', { ...session('s9', { automation_id: 'a1', event_id: 'e1' }), status: 'running' }));
    // Taking back a name another row took in this transaction is.
    const back = await refusal(store.write((tx) => tx.update('automations', 'a1', { name_key: 'nightly' })));
    expect(back).toBeInstanceOf(UniqueViolation);

    // An equality query on a group's fields finds its row, in reads and in writes, after a restart too.
    const bySession = (s: Store) => s.read(async (tx) => (await tx.list('sessions', { automation_id: 'a1', event_id: 'e1' })).map((r) => r.session_id));
    expect(await bySession(store)).toEqual(['s9']);
    expect(await store.write(async (tx) => (await tx.list('automations', { team_id: 'team-1', name_key: 'nightly' })).map((a) => a.id))).toEqual(['a3']);
    const { store: again } = await reopen(store, dir);
    expect(await bySession(again)).toEqual(['s9']);
    expect(await refusal(again.write((tx) => tx.insert('sessions', session('s10', { automation_id: 'a1', event_id: 'e1' }))))).toBeInstanceOf(UniqueViolation);
    await again.write((tx) => tx.insert('sessions', session('s10', { automation_id: 'a1', event_id: 'e3' })));
  });

  test('increment adds to the stored counters, sets the other fields, returns the row, and is what a restart replays', async () => {
    const dir = await tempDir();
    const { store } = await openAt(dir);
    await store.write((tx) => tx.put('automations', automation('a1', 'team-1', 'nightly')));
    const inside = await store.write(async (tx) => {
      const first = await tx.increment('automations', 'a1', { consecutive_failures: 2 }, { last_error: 'boom' });
      const second = await tx.increment('automations', 'a1', { consecutive_failures: 1 });
      return { first: first.consecutive_failures, second, seen: await tx.get('automations', 'a1') };
    });
    expect(inside.first).toBe(2);
    expect(inside.second).toMatchObject({ consecutive_failures: 3, last_error: 'boom', name: 'nightly' });
    expect(inside.seen).toEqual(inside.second);
    await store.write((tx) => tx.increment('automations', 'a1', { consecutive_failures: -3 }));
    expect(await refusal(store.write((tx) => tx.increment('automations', 'nope', { consecutive_failures: 1 })))).toBeInstanceOf(Error);
    await store.write((tx) => tx.increment('automations', 'a1', { consecutive_failures: 5 }, { last_error: null }));
    const { store: again } = await reopen(store, dir);
    expect(await again.read((tx) => tx.get('automations', 'a1'))).toMatchObject({ consecutive_failures: 5, last_error: null });
  });
});
