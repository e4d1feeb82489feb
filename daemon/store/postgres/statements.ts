// The SQL of each table, built once from the table's fields (tables.ts): one place per table, so
// every statement the store sends is one of these, prepared once per connection by name.
import { createHash } from 'node:crypto';
import { TABLE_FIELDS, TABLE_NAMES, TABLE_SPECS, type TableName } from '../tables.js';

/** Columns of type uuid: a key that is not a UUID cannot be in them, so it is not looked up. */
const UUID_COLUMNS: { [T in TableName]: readonly string[] } = {
  teams: ['id'],
  api_keys: ['id', 'team_id', 'project_id'],
  projects: ['id', 'team_id'],
  environments: ['id', 'team_id', 'project_id'],
  automations: ['id', 'team_id', 'environment_id'],
  triggers: ['id', 'automation_id', 'team_id'],
  env_vars: ['id', 'team_id', 'environment_id'],
  sessions: ['session_id', 'team_id', 'parent_session_id', 'automation_id', 'trigger_id', 'environment_id', 'event_row_id'],
  messages: ['id', 'session_id'],
  events: ['id', 'team_id'],
  skill_scans: [],
  instances: [],
  session_turns: [],
  connections: ['id', 'team_id'],
  deliveries: ['id', 'connection_id', 'team_id'],
};

/**
 * Fields a row may lack (rows written before they existed, in the JSON-file store): a null read
 * back from the database leaves them out, so a row reads the same from either store.
 */
const OPTIONAL_FIELDS: { [T in TableName]?: readonly string[] } = {
  triggers: ['type_key'],
  sessions: ['event_id', 'event', 'runner', 'answer', 'claimed_by', 'turns_in_flight'],
  events: ['failures', 'replays'],
};

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const q = (name: string) => `"${name}"`;

export interface Statement {
  name: string;
  text: string;
}

/** A statement prepared by a name of its own text: names are cut at 63 bytes, hashes never collide in practice. */
const statement = (text: string): Statement => ({ name: `svc_${createHash('sha1').update(text).digest('hex').slice(0, 32)}`, text });

export interface TableSql {
  table: TableName;
  key: string;
  fields: readonly string[];
  /** SELECT list of every field, in TABLE_FIELDS order */
  columns: string;
  all: Statement;
  countAll: Statement;
  insert: Statement;
  upsert: Statement;
  /** the parameters of insert and upsert for these rows */
  rowParams(rows: readonly Record<string, unknown>[]): unknown[];
  deleteMany: Statement;
  /** whether `value` can be held by `field` (a non-UUID never matches a uuid column) */
  fits(field: string, value: unknown): boolean;
  /** the row as the services know it: optional fields that are null left out */
  row(raw: Record<string, unknown>): Record<string, unknown>;
  /** `SELECT ... WHERE f1 = $1 AND ...` (or IS NULL), in insertion order; count too */
  where(fields: readonly string[], nulls: readonly boolean[], count: boolean): Statement;
  /** where the row with this key stands in a list newest first: its insertion position and `newestBy` field */
  positionOf(newestBy: string | undefined): Statement;
  /** a page newest first: `... WHERE f1 = $1 AND ... [AND (f, ord) < ($n, $n+1)] ORDER BY [f DESC,] ord DESC LIMIT $m` */
  page(fields: readonly string[], nulls: readonly boolean[], bounded: boolean, newestBy: string | undefined): Statement;
  /** `UPDATE ... SET` of these fields, some of them added to rather than set */
  update(setFields: readonly string[], addFields: readonly string[]): Statement;
  /** the same for many rows at once, each given as a JSON object with its key: `$1` their array */
  updateMany(setFields: readonly string[], addFields: readonly string[]): Statement;
  /**
   * `SELECT ... WHERE field = ANY($1)`, in insertion order: the rows of many values of one field
   * (of many keys, for gets); `locked`, FOR SHARE until the transaction ends
   */
  anyOf(field: string, locked?: boolean): Statement;
  /** a value of `field` as PostgreSQL hands it back: UUIDs in lower case */
  norm(field: string, value: unknown): string;
}

/**
 * Each table's column types as the database has them (`format_type`), read once at start: with
 * them, rows are written as one typed array per column (`unnest`), which PostgreSQL takes in
 * less time than a JSON array of objects. Without them (a copy), as JSON.
 */
export type ColumnTypes = { [T in TableName]?: Record<string, string> };

function tableSql(table: TableName, types: Record<string, string> | undefined): TableSql {
  const key = TABLE_SPECS[table].key;
  const fields = TABLE_FIELDS[table] as readonly string[];
  const columns = fields.map(q).join(', ');
  const uuid = new Set(UUID_COLUMNS[table]);
  const optional = OPTIONAL_FIELDS[table] ?? [];
  const t = q(table);
  const keyCast = uuid.has(key) ? 'uuid' : 'text';
  const nonKey = fields.filter((f) => f !== key);
  const whereCache = new Map<string, Statement>();
  const updateCache = new Map<string, Statement>();
  const anyCache = new Map<string, Statement>();
  const setsOf = (setFields: readonly string[], addFields: readonly string[]) => [
    ...setFields.map((f) => `${q(f)} = r.${q(f)}`),
    // (a counter a row does not have yet, an optional field, counts from 0: see WriteTx.increment)
    ...addFields.map((f) => `${q(f)} = coalesce(${t}.${q(f)}, 0) + r.${q(f)}`),
  ];
  // Rows arrive in one round trip, an array per column or one JSON array, and are typed by
  // PostgreSQL column by column; in their order, which `ord` keeps.
  const typed = types !== undefined && fields.every((f) => types[f] !== undefined);
  const fromJson = typed
    ? `FROM unnest(${fields.map((f, i) => `$${i + 1}::${types[f]}[]`).join(', ')}) WITH ORDINALITY AS r(${columns}, ordinality) ORDER BY r.ordinality`
    : `FROM json_populate_recordset(NULL::${t}, $1::json) WITH ORDINALITY AS r ORDER BY r.ordinality`;
  // (a JSON value goes as its text: an array in it would read as a dimension of the column's array)
  const json = new Set(typed ? fields.filter((f) => types[f] === 'json' || types[f] === 'jsonb') : []);
  return {
    table,
    key,
    fields,
    columns,
    all: statement(`SELECT ${columns} FROM ${t} ORDER BY ord`),
    countAll: statement(`SELECT count(*)::int AS n FROM ${t}`),
    insert: statement(`INSERT INTO ${t} (${columns}) SELECT ${fields.map((f) => `r.${q(f)}`).join(', ')} ${fromJson}`),
    upsert: statement(
        `INSERT INTO ${t} (${columns}) SELECT ${fields.map((f) => `r.${q(f)}`).join(', ')} ${fromJson} ` +
        `ON CONFLICT (${q(key)}) DO UPDATE SET ${nonKey.map((f) => `${q(f)} = EXCLUDED.${q(f)}`).join(', ')}`,
    ),
    rowParams: typed
      ? (rows) => fields.map((f) => rows.map((r) => (r[f] === undefined || r[f] === null ? null : json.has(f) ? JSON.stringify(r[f]) : r[f])))
      : (rows) => [JSON.stringify(rows)],
    deleteMany: statement(`DELETE FROM ${t} WHERE ${q(key)} = ANY($1::${keyCast}[])`),
    positionOf: (newestBy) => statement(`SELECT ord${newestBy ? `, ${q(newestBy)} AS at` : ''} FROM ${t} WHERE ${q(key)} = $1`),
    page(whereFields, nulls, bounded, newestBy) {
      const id = `page${bounded ? '<' : ''}${newestBy ?? ''}:${whereFields.map((f, i) => (nulls[i] ? `${f}=null` : f)).join(',')}`;
      let s = whereCache.get(id);
      if (!s) {
        let n = 0;
        const cond = whereFields.map((f, i) => (nulls[i] ? `${q(f)} IS NULL` : `${q(f)} = $${++n}`));
        if (bounded) cond.push(newestBy ? `(${q(newestBy)}, ord) < ($${++n}, $${++n})` : `ord < $${++n}`);
        const order = newestBy ? `${q(newestBy)} DESC, ord DESC` : 'ord DESC';
        s = statement(`SELECT ${columns} FROM ${t} WHERE ${cond.join(' AND ')} ORDER BY ${order} LIMIT $${++n}`);
        whereCache.set(id, s);
      }
      return s;
    },
    fits: (field, value) => !uuid.has(field) || value === null || (typeof value === 'string' && UUID_TEXT.test(value)),
    row(raw) {
      for (const f of optional) if (raw[f] === null) delete raw[f];
      return raw;
    },
    where(whereFields, nulls, count) {
      const id = `${count ? 'count' : 'list'}:${whereFields.map((f, i) => (nulls[i] ? `${f}=null` : f)).join(',')}`;
      let s = whereCache.get(id);
      if (!s) {
        let n = 0;
        const cond = whereFields.map((f, i) => (nulls[i] ? `${q(f)} IS NULL` : `${q(f)} = $${++n}`)).join(' AND ');
        const text = count ? `SELECT count(*)::int AS n FROM ${t} WHERE ${cond}` : `SELECT ${columns} FROM ${t} WHERE ${cond} ORDER BY ord`;
        s = statement(text);
        whereCache.set(id, s);
      }
      return s;
    },
    update(setFields, addFields) {
      const id = `${setFields.join(',')}|${addFields.join(',')}`;
      let s = updateCache.get(id);
      if (!s) {
        const text =
          `UPDATE ${t} SET ${setsOf(setFields, addFields).join(', ')} FROM json_populate_record(NULL::${t}, $2::json) AS r ` +
          `WHERE ${t}.${q(key)} = $1 RETURNING ${fields.map((f) => `${t}.${q(f)}`).join(', ')}`;
        s = statement(text);
        updateCache.set(id, s);
      }
      return s;
    },
    updateMany(setFields, addFields) {
      const id = `many:${setFields.join(',')}|${addFields.join(',')}`;
      let s = updateCache.get(id);
      if (!s) {
        s = statement(`UPDATE ${t} SET ${setsOf(setFields, addFields).join(', ')} FROM json_populate_recordset(NULL::${t}, $1::json) AS r WHERE ${t}.${q(key)} = r.${q(key)}`);
        updateCache.set(id, s);
      }
      return s;
    },
    anyOf(field, locked = false) {
      const id = `${field}${locked ? ' locked' : ''}`;
      let s = anyCache.get(id);
      if (!s) {
        s = statement(`SELECT ${columns} FROM ${t} WHERE ${q(field)} = ANY($1::${uuid.has(field) ? 'uuid' : 'text'}[]) ORDER BY ord${locked ? ' FOR SHARE' : ''}`);
        anyCache.set(id, s);
      }
      return s;
    },
    norm: (field, value) => (uuid.has(field) ? String(value).toLowerCase() : String(value)),
  };
}

/** The statements of every table, and `together`. */
export type Statements = { [T in TableName]: TableSql } & {
  /**
   * Writes to different tables as one statement (data-modifying CTEs), their parameters in turn:
   * none sees another's rows, so none may be one another depends on.
   */
  together(parts: readonly [Statement, unknown[]][]): [Statement, unknown[]];
};

export function buildStatements(types: ColumnTypes = {}): Statements {
  const combined = new Map<string, Statement>();
  const together = (parts: readonly [Statement, unknown[]][]): [Statement, unknown[]] => {
    if (parts.length === 1) return parts[0];
    const id = parts.map(([s]) => s.name).join(' ');
    let s = combined.get(id);
    if (!s) {
      let offset = 0;
      const texts = parts.map(([p, values]) => {
        const base = offset;
        offset += values.length;
        return p.text.replace(/\$(\d+)\b/g, (_, n: string) => `$${base + Number(n)}`);
      });
      const last = texts.pop()!;
      s = statement(`WITH ${texts.map((text, i) => `w${i} AS (${text})`).join(', ')} ${last}`);
      combined.set(id, s);
    }
    return [s, parts.flatMap(([, values]) => values)];
  };
  return { ...(Object.fromEntries(TABLE_NAMES.map((t) => [t, tableSql(t, types[t])])) as { [T in TableName]: TableSql }), together };
}
