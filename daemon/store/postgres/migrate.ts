// Numbered migrations, applied at start in one transaction under an advisory lock: daemons started
// together migrate once, and a database left by a newer svc is refused before anything is touched.
import type pg from 'pg';
import { sql as tables } from './migrations/0001-tables.js';
import { sql as rateWindows } from './migrations/0002-rate-windows.js';
import { sql as claims } from './migrations/0003-claims.js';
import { sql as sessionTurns } from './migrations/0004-session-turns.js';
import { sql as connections } from './migrations/0005-connections.js';

export interface PgMigration {
  version: number;
  name: string;
  sql: string;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 1, name: 'tables', sql: tables },
  { version: 2, name: 'rate windows', sql: rateWindows },
  { version: 3, name: 'claims', sql: claims },
  { version: 4, name: 'session turns', sql: sessionTurns },
  { version: 5, name: 'connections', sql: connections },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1].version;

export class PgSchemaVersionError extends Error {}

/** Held for the migration transaction only (advisory locks are for migrations only). */
const MIGRATION_LOCK = "hashtext('svc:migrations')";

export async function migrate(client: pg.ClientBase, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<{ from: number; to: number }> {
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await client.query('CREATE TABLE IF NOT EXISTS svc_schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM svc_schema_migrations');
    const from = rows[0].v ?? 0;
    const known = migrations[migrations.length - 1]?.version ?? 0;
    if (from > known) {
      throw new PgSchemaVersionError(
        `the database's svc schema is version ${from}, newer than this svc knows (${known}): it was written by a newer svc; upgrade svc, or use another database`,
      );
    }
    for (const m of migrations) {
      if (m.version <= from) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO svc_schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await client.query('COMMIT');
    return { from, to: Math.max(from, known) };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
