// The in-memory tables' indexes against a brute-force model, over random sequences of writes:
// puts that add rows, change an indexed value, drop it (null, absent) and bring it back; updates;
// deletes; several writes of one key in one transaction. Lists by an indexed value must hold
// exactly the rows holding it, each once, in the order they (last) joined it, however many of
// their keys went stale in between (see key-list.ts).
import { describe, expect, it } from 'vitest';
import { MemoryTables, OverlayTx, type AnyRow } from '../../daemon/store/memory-tables.js';
import type { TableName } from '../../daemon/store/tables.js';

const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'];
const VALUES = ['v0', 'v1', 'v2', null, undefined];
/** sessions: two non-unique indexes and a unique one */
const TABLE: TableName = 'sessions';
const INDEXED = ['team_id', 'automation_id'] as const;

/** A seeded generator, so a failure names a sequence that can be run again. */
function random(seed: number) {
  let s = seed;
  const next = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] };
}

/** Rows by key, and for each (field, key) when the key last joined the value it holds. */
class Model {
  readonly rows = new Map<string, AnyRow>();
  readonly joined = new Map<string, number>();
  private clock = 0;

  put(row: AnyRow): void {
    const k = row.session_id as string;
    const old = this.rows.get(k);
    this.rows.set(k, row);
    for (const f of INDEXED) {
      const v = row[f];
      if (old && old[f] === v) continue;
      if (v !== undefined && v !== null) this.joined.set(`${f}|${k}`, ++this.clock);
    }
  }

  delete(k: string): void {
    this.rows.delete(k);
  }

  holding(field: string, value: unknown): string[] {
    return [...this.rows.values()]
      .filter((r) => r[field] === value)
      .map((r) => r.session_id as string)
      .sort((a, b) => this.joined.get(`${field}|${a}`)! - this.joined.get(`${field}|${b}`)!);
  }
}

function row(rng: ReturnType<typeof random>, key: string): AnyRow {
  const r: AnyRow = { session_id: key, idempotency_key: rng.pick([`u-${key}`, null]) };
  for (const f of INDEXED) {
    const v = rng.pick(VALUES);
    if (v !== undefined) r[f] = v;
  }
  return r;
}

/** One transaction of one to three writes, applied to the tables and to the model. */
async function randomTransaction(rng: ReturnType<typeof random>, tables: MemoryTables, model: Model): Promise<void> {
  const tx = new OverlayTx(tables);
  const after = new Map<string, AnyRow | null>();
  const writes = 1 + Math.floor(rng.next() * 3);
  for (let w = 0; w < writes; w++) {
    const key = rng.pick(KEYS);
    const exists = after.has(key) ? after.get(key) !== null : model.rows.has(key);
    const op = rng.next();
    if (op < 0.5 || !exists) {
      const r = row(rng, key);
      tx.put(TABLE, r as never);
      after.set(key, r);
    } else if (op < 0.8) {
      const fields: AnyRow = {};
      for (const f of INDEXED) if (rng.next() < 0.6) fields[f] = rng.pick(['v0', 'v1', 'v2', null]);
      after.set(key, (await tx.update(TABLE, key, fields as never)) as unknown as AnyRow);
    } else {
      tx.delete(TABLE, key);
      after.set(key, null);
    }
  }
  tables.apply(tx.mutations, tx.replaced);
  for (const m of tx.mutations) {
    if (m[0] === 'put') model.put(m[2]);
    else if (m[0] === 'del') model.delete(m[2]);
  }
}

describe('index lists under random writes', () => {
  it('list exactly the rows holding a value, each once, in the order they joined it', async () => {
    let checks = 0;
    for (let seed = 1; seed <= 150; seed++) {
      const rng = random(seed);
      const tables = new MemoryTables();
      const model = new Model();
      for (let step = 0; step < 120; step++) {
        await randomTransaction(rng, tables, model);
        for (const field of INDEXED) {
          for (const value of ['v0', 'v1', 'v2']) {
            const listed = tables.list(TABLE, { [field]: value } as never).map((r) => (r as unknown as AnyRow).session_id);
            expect(listed, `seed ${seed}, step ${step}, ${field}=${value}`).toEqual(model.holding(field, value));
            checks++;
          }
        }
      }
      // A restart loads the rows in table order: every index is rebuilt alike.
      const reloaded = new MemoryTables();
      reloaded.load(tables.dump());
      for (const field of INDEXED) {
        for (const value of ['v0', 'v1', 'v2']) {
          const ids = (t: MemoryTables) => t.list(TABLE, { [field]: value } as never).map((r) => (r as unknown as AnyRow).session_id).sort();
          expect(ids(reloaded), `seed ${seed} after reload`).toEqual(ids(tables));
        }
      }
    }
    expect(checks).toBe(150 * 120 * 6);
  });
});
