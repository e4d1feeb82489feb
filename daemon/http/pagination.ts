// Cursor pagination over lists kept in insertion order: the cursor names the last row a page
// returned, so a page stays stable while new rows arrive, and the row after it, so the next page
// is still found when the last row has been deleted meanwhile. New rows arrive at one end of a
// list, so those two stay neighbours; only a row entering a filtered list (a session becoming
// `failed`) can land between them, and paging on from the second then passes it, as it passes
// any row that changes while a client pages.
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
    const { last, next } = decodeCursor(page.cursor);
    const at = rows.findIndex((r) => keyOf(r) === last);
    const nextAt = at < 0 && next !== undefined ? rows.findIndex((r) => keyOf(r) === next) : -1;
    if (at < 0 && nextAt < 0) {
      throw invalid('querystring.cursor is not a cursor of this list (it comes from another list, or the rows it points at have been deleted or no longer match the list filters); start again without it');
    }
    start = at >= 0 ? at + 1 : nextAt;
  }
  const slice = rows.slice(start, start + limit);
  const result: PageResult<T> = { data: slice.map(view) };
  if (start + limit < rows.length && slice.length > 0) result.next_cursor = encodeCursor(keyOf(slice[slice.length - 1]), keyOf(rows[start + limit]));
  return result;
}

// Keys are ids (UUIDs and the like): a line break never occurs in one.
const SEPARATOR = '\n';

function encodeCursor(last: string, next: string): string {
  return Buffer.from(`${last}${SEPARATOR}${next}`, 'utf8').toString('base64url');
}

/** The last row a page returned and the row after it (cursors of earlier versions name only the first). */
function decodeCursor(cursor: string): { last: string; next?: string } {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text || Buffer.from(text, 'utf8').toString('base64url') !== cursor) throw invalid('querystring.cursor is malformed');
  const [last, next, ...rest] = text.split(SEPARATOR);
  if (!last || next === '' || rest.length > 0) throw invalid('querystring.cursor is malformed');
  return { last, next };
}
