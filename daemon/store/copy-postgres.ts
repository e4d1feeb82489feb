// The PostgreSQL ends of `svc daemon copy` (copy.ts). The source is read in one read-only
// REPEATABLE READ transaction, so the copy is of one moment however long it takes (as pg_dump's
// is), each table through a cursor in `ord` order: fetched a batch at a time, whether or not the
// table has an index on `ord`. The target is written in one transaction that first locks every
// table: a daemon starting on the database meanwhile waits for it, and a copy that fails or does
// not count up leaves the database as empty as it found it.
import type pg from 'pg';
import { COPIED_TABLES, CopyRefusedError, StoreUnreachableError, type CopySource, type CopyTarget } from './copy.js';
import type { StoreLogger } from './logger.js';
import { isUnavailable, isUnstorableText } from './postgres/errors.js';
import { migrate } from './postgres/migrate.js';
import { createPool } from './postgres/pool.js';
import { buildStatements, type TableSql } from './postgres/statements.js';
import { redactUrl } from './store-url.js';
import { TABLE_NAMES, type TableName, type Tables } from './tables.js';

const q = (name: string) => `"${name}"`;
const MASTER_KEY_CHECK = "SELECT value FROM svc_meta WHERE key = 'master_key_check'";
/** JSON parameters of this size at most: one INSERT per part. */
const MAX_INSERT_CHARS = 8 * 1024 * 1024;
/** How long the target waits for daemons' transactions on it to end before it refuses. */
const LOCK_TIMEOUT = '10s';

interface Connection {
  pool: pg.Pool;
  client: pg.PoolClient;
  where: string;
}

/** One connection of its own (the pool's types: ISO timestamps, numbers, parsed JSON). */
async function connect(url: string, logger: StoreLogger): Promise<Connection> {
  const where = redactUrl(url);
  const pool = createPool({ url, max: 1 });
  pool.on('error', (err) => logger.warn({ err: { message: err.message } }, `the connection to ${where} was lost`));
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    await pool.end().catch(() => undefined);
    if (isUnavailable(err)) throw new StoreUnreachableError(where, (err as Error).message);
    throw new Error(`cannot open the PostgreSQL database at ${where}: ${(err as Error).message}`, { cause: err });
  }
  client.on('error', () => undefined);
  // Named in pg_stat_activity apart from the daemons.
  await client.query("SET application_name = 'svc copy'");
  return { pool, client, where };
}

async function disconnect(c: Connection): Promise<void> {
  c.client.release();
  await c.pool.end().catch(() => undefined);
}

/** Brings the schema to this svc's version (what a daemon start does), refusing a newer one. */
async function migrated(c: Connection): Promise<void> {
  const { rows } = await c.client.query<{ v: number }>("SELECT current_setting('server_version_num')::int AS v");
  if (rows[0].v < 150000) throw new Error(`svc needs PostgreSQL 15 or newer; ${c.where} runs ${Math.floor(rows[0].v / 10000)}`);
  await migrate(c.client);
}

function readMasterKeyCheck(c: Connection): Promise<string | null> {
  return c.client.query(MASTER_KEY_CHECK).then(({ rows }) => (rows.length === 0 ? null : (rows[0].value as string)));
}

export async function openPostgresSource(url: string, logger: StoreLogger): Promise<CopySource> {
  const c = await connect(url, logger);
  const sql = buildStatements();
  try {
    const { rows } = await c.client.query("SELECT to_regclass('svc_schema_migrations') IS NOT NULL AS svc");
    if (!rows[0].svc) throw new CopyRefusedError('source-missing', `${c.where} holds no svc data (no svc schema)`);
    await migrated(c);
    await c.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const daemons = await c.client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'svc' AND pid <> pg_backend_pid()",
    );
    if (daemons.rows[0].n > 0) {
      logger.warn(
        `${c.where} has ${daemons.rows[0].n} connection(s) of running svc daemons: the copy is of this moment, and what they write from now on is not in it. To move a store, stop its daemons first.`,
      );
    }
  } catch (err) {
    await disconnect(c);
    throw err;
  }
  let cursors = 0;
  return {
    end: { kind: 'postgres', store: c.where },
    count: async (table) => (await c.client.query(`SELECT count(*)::int AS n FROM ${q(table)}`)).rows[0].n as number,
    async *batches<T extends TableName>(table: T, batchRows: number): AsyncIterable<Tables[T][]> {
      const t: TableSql = sql[table];
      const cursor = `svc_copy_${++cursors}`;
      await c.client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR SELECT ${t.columns} FROM ${q(table)} ORDER BY ord`);
      try {
        for (;;) {
          const { rows } = await c.client.query(`FETCH FORWARD ${batchRows} FROM ${cursor}`);
          if (rows.length === 0) break;
          yield rows.map((raw) => t.row(raw) as unknown as Tables[T]);
          if (rows.length < batchRows) break;
        }
      } finally {
        await c.client.query(`CLOSE ${cursor}`);
      }
    },
    masterKeyCheck: () => readMasterKeyCheck(c),
    async close() {
      try {
        await c.client.query('COMMIT');
      } finally {
        await disconnect(c);
      }
    },
  };
}

export async function openPostgresTarget(url: string, logger: StoreLogger): Promise<CopyTarget> {
  const c = await connect(url, logger);
  const sql = buildStatements();
  try {
    await migrated(c);
    await c.client.query('BEGIN');
    await c.client.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    try {
      await c.client.query(`LOCK TABLE svc_meta, ${TABLE_NAMES.map(q).join(', ')} IN ACCESS EXCLUSIVE MODE`);
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err;
      throw new CopyRefusedError('target-in-use', `${c.where} is in use: daemons on it held their transactions for over ${LOCK_TIMEOUT}; stop them, then copy`);
    }
    const held: string[] = [];
    for (const table of COPIED_TABLES) {
      const { rows } = await c.client.query(`SELECT count(*)::int AS n FROM ${q(table)}`);
      if (rows[0].n > 0) held.push(`${rows[0].n} ${table}`);
    }
    if (held.length > 0) throw new CopyRefusedError('target-not-empty', `${c.where} is not empty (${held.join(', ')}): copy into an empty database`);
  } catch (err) {
    await c.client.query('ROLLBACK').catch(() => undefined);
    await disconnect(c);
    throw err;
  }
  /** rows written so far per table: the next row's `ord` is one more */
  const written = new Map<TableName, number>();
  let done = false;
  return {
    end: { kind: 'postgres', store: c.where },
    count: async (table) => (await c.client.query(`SELECT count(*)::int AS n FROM ${q(table)}`)).rows[0].n as number,
    async append(table, rows) {
      const t = sql[table];
      let ord = written.get(table) ?? 0;
      // `ord` given, in the order the rows come: lists read them back in that order.
      const text =
        `INSERT INTO ${q(table)} (ord, ${t.columns}) OVERRIDING SYSTEM VALUE ` +
        `SELECT r.ord, ${t.fields.map((f) => `r.${q(f)}`).join(', ')} FROM json_populate_recordset(NULL::${q(table)}, $1::json) AS r`;
      const insert = async (part: string[]) => {
        try {
          await c.client.query(text, [`[${part.join(',')}]`]);
        } catch (err) {
          if (!isUnstorableText(err)) throw err;
          throw new Error(`a row of ${table} holds text PostgreSQL cannot store (a NUL character, or an invalid Unicode sequence): ${(err as Error).message}`);
        }
      };
      let part: string[] = [];
      let chars = 0;
      for (const row of rows) {
        const json = JSON.stringify({ ...row, ord: ++ord });
        if (part.length > 0 && chars + json.length > MAX_INSERT_CHARS) {
          await insert(part);
          part = [];
          chars = 0;
        }
        part.push(json);
        chars += json.length;
      }
      if (part.length > 0) await insert(part);
      written.set(table, ord);
    },
    masterKeyCheck: () => readMasterKeyCheck(c),
    async recordMasterKeyCheck(value) {
      await c.client.query("INSERT INTO svc_meta (key, value) VALUES ('master_key_check', $1)", [value]);
    },
    async commit() {
      // The next row a daemon inserts comes after the copied ones.
      for (const [table, last] of written) {
        if (last > 0) await c.client.query(`SELECT setval(pg_get_serial_sequence($1, 'ord'), $2)`, [q(table), last]);
      }
      await c.client.query('COMMIT');
      done = true;
      await disconnect(c);
    },
    async abandon() {
      if (done) return;
      try {
        await c.client.query('ROLLBACK');
      } finally {
        await disconnect(c);
      }
    },
  };
}
