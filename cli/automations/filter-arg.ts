// `--filter 'JSONPATH OPERATOR VALUE'`: one event filter in one shell word. The path ends at the
// first space outside brackets and quotes (so `$[?@.tag == 'a b']` stays whole), the operator is
// the next word, and the value is the rest of the text as typed, inner spaces kept. A value in
// double quotes is read as a JSON string, to keep edge spaces or to give an empty value.
import { FILTER_OPERATORS } from '../../shared/filter-operators.js';
import type { EventFilter } from '../../shared/filters.js';
import { checkFilter } from './filter-check.js';
import { NO_VALUE } from './filter-text.js';
const FORM = "'JSONPATH OPERATOR VALUE', e.g. '$.data.env equals prod'";

/** The filter, or a message naming what is wrong with the text. */
export function parseFilterText(text: string): EventFilter | string {
  const input = text.trim();
  const pathEnd = endOfPath(input);
  if (pathEnd === null) return `unbalanced brackets or quotes in the JSONPath; expected ${FORM}`;
  const jsonPath = input.slice(0, pathEnd);
  const rest = input.slice(pathEnd).trimStart();
  if (!rest) return `no operator after the JSONPath; expected ${FORM}`;
  const opMatch = /^(\S+)(\s+([\s\S]*))?$/.exec(rest)!;
  const operator = opMatch[1].toLowerCase().replace(/-/g, '_');
  if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    return `unknown operator "${opMatch[1]}"; use one of: ${FILTER_OPERATORS.join(', ')}`;
  }
  const rawValue = opMatch[3];
  let filter: EventFilter;
  if (NO_VALUE.has(operator)) {
    if (rawValue !== undefined && rawValue.trim() !== '') return `operator "${operator}" takes no value (got "${rawValue.trim()}")`;
    filter = { jsonPath, operator };
  } else {
    if (rawValue === undefined || rawValue.trim() === '') return `operator "${operator}" needs a value; expected ${FORM}`;
    filter = { jsonPath, operator, value: unquote(rawValue.trim()) };
  }
  const problem = checkFilter(filter);
  return problem ?? filter;
}

/** The index just past the JSONPath (first whitespace at depth 0, outside quotes), or null. */
function endOfPath(text: string): number | null {
  let depth = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (/\s/.test(c) && depth === 0) return i;
    if (depth < 0) return null;
  }
  return quote || depth !== 0 ? null : text.length;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === 'string') return parsed;
    } catch {
      // not a JSON string after all: the quotes are part of the value
    }
  }
  return value;
}
