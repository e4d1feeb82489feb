// An event filter as `--filter` takes it: `$.data.env equals "prod"`. Kept apart from the parser
// (filter-arg.ts), which loads the JSONPath and regex libraries that showing a filter needs none of.
import type { EventFilter } from '../../shared/filters.js';

/** The operators that take no value. */
export const NO_VALUE: ReadonlySet<string> = new Set(['exists', 'not_exists']);

/** `$.data.env equals "prod"`: the filter as --filter takes it back. */
export function formatFilter(f: EventFilter): string {
  if (NO_VALUE.has(f.operator) || f.value === undefined || f.value === null) return `${f.jsonPath} ${f.operator}`;
  return `${f.jsonPath} ${f.operator} ${JSON.stringify(f.value)}`;
}
