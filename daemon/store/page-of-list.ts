// A page of a list held in memory in insertion order (the JSON-file store's): the rows before the
// cursor row, walking back, that match the page's other fields.
import { CursorGoneError, type PageQuery } from './store.js';
import type { TableName, Tables } from './tables.js';

/** `rows`: every row whose first `where` field matches, in insertion order. */
export function pageOfList<T extends TableName>(rows: readonly Tables[T][], key: keyof Tables[T], query: PageQuery<T>): Tables[T][] {
  let end = rows.length;
  if (query.after !== undefined) {
    const at = rows.findIndex((r) => r[key] === query.after);
    const nextAt = at < 0 && query.orAt !== undefined ? rows.findIndex((r) => r[key] === query.orAt) : -1;
    if (at < 0 && nextAt < 0) throw new CursorGoneError();
    end = at >= 0 ? at : nextAt + 1;
  }
  const fields = Object.entries(query.where).filter(([, v]) => v !== undefined) as [keyof Tables[T], unknown][];
  const out: Tables[T][] = [];
  for (let i = end - 1; i >= 0 && out.length < query.limit; i--) {
    if (fields.every(([f, v]) => rows[i][f] === v)) out.push(rows[i]);
  }
  return out;
}

/** The first field of a page query: the indexed one the list is read through. */
export function indexedPart<T extends TableName>(where: PageQuery<T>['where']): Partial<Tables[T]> {
  const [first] = Object.entries(where);
  return { [first[0]]: first[1] } as Partial<Tables[T]>;
}
