// Event filters as typed in a form: one per line, `JSONPATH OPERATOR [VALUE]`, e.g.
//   $.data.env equals prod
//   $.data.labels contains "needs review"
// The operator is found as a word of its own, so a JSONPath may hold spaces ($.data['a b']).
// A value in double quotes is read as a JSON string (to keep leading spaces or quotes).
import { type EventFilter, FILTER_OPERATORS, validateFilter } from '../../shared/filters.js';

export type FilterLines = { ok: true; filters: EventFilter[] } | { ok: false; error: string };

const OPERATOR = new RegExp(`\\s(${[...FILTER_OPERATORS].sort((a, b) => b.length - a.length).join('|')})(?:\\s+|$)`);

export function parseFilterLine(line: string): EventFilter | string {
  const m = OPERATOR.exec(line);
  if (!m) return `no operator: write JSONPATH OPERATOR VALUE, with one of ${FILTER_OPERATORS.join(', ')}`;
  const jsonPath = line.slice(0, m.index).trim();
  let value = line.slice(m.index + m[0].length).trim();
  if (/^".*"$/.test(value)) {
    try {
      value = JSON.parse(value) as string;
    } catch {
      return 'the quoted value is not a valid JSON string';
    }
  }
  const filter: EventFilter = { jsonPath, operator: m[1] };
  if (m[1] !== 'exists' && m[1] !== 'not_exists') filter.value = value;
  return filter;
}

/** Every non-blank line as a filter, or the first problem, naming its line. */
export function parseFilterLines(text: string): FilterLines {
  const filters: EventFilter[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const parsed = parseFilterLine(line);
    const problem = typeof parsed === 'string' ? parsed : validateFilter(parsed);
    if (problem) return { ok: false, error: `filter line ${i + 1}: ${problem}` };
    filters.push(parsed as EventFilter);
  }
  return { ok: true, filters };
}
