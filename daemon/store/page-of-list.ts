// A page of a list held in memory in insertion order (the JSON-file store's): the rows after the
// cursor row, newest first, that match the page's other fields.
import { CursorGoneError, type PageQuery } from './store.js';
import type { TableName, Tables } from './tables.js';

/** `rows`: every row whose first `where` field matches, in insertion order. */
export function pageOfList<T extends TableName>(rows: readonly Tables[T][], key: keyof Tables[T], query: PageQuery<T>): Tables[T][] {
  const newest = newestFirst(rows, query.newestBy);
  let start = 0;
  if (query.after !== undefined) {
    const at = newest.findIndex((r) => r[key] === query.after);
    const nextAt = at < 0 && query.orAt !== undefined ? newest.findIndex((r) => r[key] === query.orAt) : -1;
    if (at < 0 && nextAt < 0) throw new CursorGoneError();
    start = at >= 0 ? at + 1 : nextAt;
  }
  const fields = Object.entries(query.where).filter(([, v]) => v !== undefined) as [keyof Tables[T], unknown][];
  const out: Tables[T][] = [];
  for (let i = start; i < newest.length && out.length < query.limit; i++) {
    if (fields.every(([f, v]) => newest[i][f] === v)) out.push(newest[i]);
  }
  return out;
}

/** Newest first: by `field` when given (ISO timestamps compare as strings), later rows first among equals. */
function newestFirst<R>(rows: readonly R[], field: keyof R | undefined): R[] {
  const reversed = rows.slice().reverse();
  if (field === undefined) return reversed;
  // The rows are all but sorted already, which the (stable) sort takes in one pass.
  return reversed.sort((a, b) => (a[field] < b[field] ? 1 : a[field] > b[field] ? -1 : 0));
}

/** The first field of a page query: the indexed one the list is read through. */
export function indexedPart<T extends TableName>(where: PageQuery<T>['where']): Partial<Tables[T]> {
  const [first] = Object.entries(where);
  return { [first[0]]: first[1] } as Partial<Tables[T]>;
}
