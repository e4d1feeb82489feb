// Cursor pagination over lists kept in insertion order: the cursor names the last row a page
// returned, so a page stays stable while new rows arrive.
import { invalid } from '../errors.js';

export interface PageRequest {
  limit?: string;
  cursor?: string;
}

export interface PageResult<T> {
  data: T[];
  next_cursor?: string;
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export function parseLimit(limit: string | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT;
  const n = Number(limit);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw invalid(`querystring.limit must be between 1 and ${MAX_LIMIT}`);
  return n;
}

/** Pages `rows` (already in the order the list shows them) by the key `keyOf`. */
export function paginate<R, T>(rows: R[], keyOf: (r: R) => string, page: PageRequest, view: (r: R) => T): PageResult<T> {
  const limit = parseLimit(page.limit);
  let start = 0;
  if (page.cursor !== undefined) {
    const after = decodeCursor(page.cursor);
    const at = rows.findIndex((r) => keyOf(r) === after);
    if (at < 0) throw invalid('querystring.cursor is not a cursor of this list (the row it points at may have been deleted)');
    start = at + 1;
  }
  const slice = rows.slice(start, start + limit);
  const result: PageResult<T> = { data: slice.map(view) };
  if (start + limit < rows.length && slice.length > 0) result.next_cursor = encodeCursor(keyOf(slice[slice.length - 1]));
  return result;
}

function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!key || encodeCursor(key) !== cursor) throw invalid('querystring.cursor is malformed');
  return key;
}
