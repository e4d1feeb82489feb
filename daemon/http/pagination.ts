// Keyset pagination, newest first: the cursor names the last row a page returned, and the row
// after it, so the next page is still found when that last row has been deleted meanwhile (or, on a
// filtered list, no longer matches). The store finds the page from the row's key, so a page costs
// what its rows cost, however long the list.
import { invalid } from '../errors.js';
import { CursorGoneError } from '../store/store.js';

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

/** Where a page starts, for the store (PageQuery's `after` and `orAt`). */
export interface PageStart {
  after?: string;
  orAt?: string;
}

/**
 * A page of `limit` rows, newest first, read from the store by `fetch` (a PageQuery with this start
 * and limit) and, where the list has a condition the store cannot test, `keep`: pages are read
 * until enough rows pass it or the list ends.
 */
export async function keysetPage<R, T>(
  page: PageRequest,
  fetch: (start: PageStart, limit: number) => Promise<R[]>,
  keyOf: (r: R) => string,
  view: (r: R) => T | Promise<T>,
  keep?: (r: R) => boolean | Promise<boolean>,
): Promise<PageResult<T>> {
  const limit = parseLimit(page.limit);
  let start: PageStart = {};
  if (page.cursor !== undefined) {
    const { last, next } = decodeCursor(page.cursor);
    start = { after: last, orAt: next };
  }
  // One row more than the page, to know whether there is a next one and where it starts.
  const rows: R[] = [];
  for (;;) {
    let fetched: R[];
    try {
      fetched = await fetch(start, limit + 1);
    } catch (err) {
      if (err instanceof CursorGoneError) {
        throw invalid('querystring.cursor is not a cursor of this list (it comes from another list, or the rows it points at have been deleted); start again without it');
      }
      throw err;
    }
    for (const r of fetched) if (!keep || (await keep(r))) rows.push(r);
    if (fetched.length < limit + 1 || rows.length > limit) break;
    start = { after: keyOf(fetched[fetched.length - 1]) };
  }
  const data = await Promise.all(rows.slice(0, limit).map(view));
  const result: PageResult<T> = { data };
  if (rows.length > limit) result.next_cursor = encodeCursor(keyOf(rows[limit - 1]), keyOf(rows[limit]));
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
