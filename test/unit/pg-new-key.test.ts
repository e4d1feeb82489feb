import { describe, expect, it } from 'vitest';
import { buildStatements } from '../../daemon/store/postgres/statements.js';
import { PgWriteTx } from '../../daemon/store/postgres/transactions.js';

describe('PostgreSQL newKey', () => {
  const tx = new PgWriteTx({ query: () => Promise.reject(new Error('no database here')) }, buildStatements());

  it('gives version-7 UUIDs, each unlike the others', () => {
    const keys = Array.from({ length: 1000 }, () => tx.newKey('sessions'));
    for (const k of keys) expect(k).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('orders keys made in later milliseconds after earlier ones', async () => {
    const first = tx.newKey('sessions');
    await new Promise((r) => setTimeout(r, 5));
    const later = tx.newKey('sessions');
    expect(later > first).toBe(true);
    expect(Number.parseInt(later.replace(/-/g, '').slice(0, 12), 16)).toBeGreaterThanOrEqual(Date.now() - 1000);
  });
});
