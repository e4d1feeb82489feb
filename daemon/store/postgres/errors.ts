// What a PostgreSQL error means to the store: a transaction to run again, a unique constraint
// that was hit, a database that cannot be reached now, or a value PostgreSQL cannot hold.
import { StoreUnavailableError, UniqueViolation } from '../store.js';
import { TABLE_NAMES, type TableName } from '../tables.js';

interface PgError {
  code?: string;
  constraint?: string;
  table?: string;
  message?: string;
}

const asPg = (err: unknown): PgError => (typeof err === 'object' && err !== null ? (err as PgError) : {});

/** A serialisation failure or a deadlock: the transaction did nothing and may simply run again. */
export const isRetryable = (err: unknown) => {
  const code = asPg(err).code;
  return code === '40001' || code === '40P01';
};

export const isUniqueViolation = (err: unknown) => asPg(err).code === '23505';

/** The UniqueViolation a 23505 stands for, its fields read off the constraint's name (see the migrations). */
export function uniqueViolationOf(err: unknown): UniqueViolation {
  const { constraint = '', table = '' } = asPg(err);
  const name = (TABLE_NAMES as string[]).includes(table) ? (table as TableName) : (constraint.split('__')[0] as TableName);
  const parts = constraint.split('__');
  const fields = parts.length >= 3 && parts[parts.length - 1] === 'key' ? parts.slice(1, -1) : parts[0] === name && constraint.endsWith('_pkey') ? ['key'] : [constraint];
  return new UniqueViolation(name, fields);
}

/**
 * Errors that say the server is gone or going (a refused or broken connection, a shutdown, too
 * many clients): the request gets 503 and may be tried again once the database is back.
 */
export function isUnavailable(err: unknown): boolean {
  const { code, message = '' } = asPg(err);
  if (typeof code === 'string') {
    if (code.startsWith('08') || code.startsWith('57P') || code === '53300' || code === '53100') return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH'].includes(code)) return true;
  }
  return /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(message);
}

export function unavailable(err: unknown): StoreUnavailableError {
  const code = asPg(err).code;
  return new StoreUnavailableError(`the database cannot be reached${code ? ` (${code})` : ''}; try again once it is back`);
}

/**
 * A value PostgreSQL cannot store: text holding a NUL character (U+0000), which neither `text` nor
 * a `json` value converted to text accepts, or a byte sequence that is not valid UTF-8.
 */
export const isUnstorableText = (err: unknown) => {
  const code = asPg(err).code;
  return code === '22P05' || code === '22021';
};
