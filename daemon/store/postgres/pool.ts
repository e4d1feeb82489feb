// The connection pool: every connection speaks UTC, and hands back timestamps as the ISO strings
// the services keep (`2026-11-28T10:33:52.123Z`), bigints as numbers and JSON parsed.
import pg from 'pg';

const TIMESTAMPTZ = 1184;
const INT8 = 20;

/** `2026-11-28 10:33:52.12+00` (what a UTC session prints) -> `2026-11-28T10:33:52.120Z`. */
export function isoOfTimestamptz(text: string): string {
  // Every timestamp read goes through here: the usual shape is rearranged, not parsed as a date.
  if (text.length >= 22 && text.length <= 29 && text[4] === '-' && text[10] === ' ' && text.endsWith('+00')) {
    const fraction = text.length > 22 ? text.slice(20, -3) : '';
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${(fraction + '000').slice(0, 3)}Z`;
  }
  return new Date(text.replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString();
}

const typeParsers = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === TIMESTAMPTZ) return isoOfTimestamptz;
    // Counters: far below 2^53, and the services add to them as numbers.
    if (oid === INT8) return Number;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

export interface PoolOptions {
  url: string;
  max?: number;
  /** how long a request waits to connect before the database counts as unreachable */
  connectTimeoutMs?: number;
}

export function createPool(opts: PoolOptions): pg.Pool {
  return new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    // A daemon that stops answering mid-transaction (paused, cut off) must not hold its row locks
    // against the other daemons for long.
    options: '-c TimeZone=UTC -c idle_in_transaction_session_timeout=60000',
    types: typeParsers,
    application_name: 'svc',
    // Statements are written as they are asked for, not one round trip after another: a
    // transaction's reads asked together, its last writes and its COMMIT each wait once.
    pipeline: true,
  } as pg.PoolConfig);
}
