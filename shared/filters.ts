// Event filters (CONTRACT §6): `{ jsonPath, operator, value }` tested against a normalised event.
//
// Semantics, for users and for the dispatcher's `reason` text:
// - `jsonPath` is RFC 9535 JSONPath over the whole normalised event, so `$.data.env`,
//   `$.metadata.branch`, `$.subject`, `$.data.items[*].name`. json-p3 parses it; our own walker
//   (jsonpath-nodes.ts) evaluates it, counting the nodes it visits (MAX_PATH_NODES).
// - What a node is compared as (its "text"): a string as itself; a number, boolean or null as its
//   JSON text (`42`, `true`, `null`), so 42 and "42" both equal "42"; an object or array as its
//   JSON text.
// - `contains` on an array node is true when one of its elements' text equals the value
//   (`$.data.labels contains "bug"`); searching the array's JSON text would let "bu" match and
//   let values match across element boundaries. On anything else it is a substring test.
// - `in` splits the value on commas, trims each item and drops empty ones.
// - `gt`/`gte`/`lt`/`lte` are numeric: both the node's text and the value must be decimal
//   numbers ("42", "-1.5", "1e3"; not "0x10", "", "true"), else the node does not pass. They
//   compare exactly as written (shared/decimal.ts), not as doubles.
// - `matches` is an unanchored search (use ^ and $ to anchor) with a regular expression in
//   JavaScript syntax, matched by RE2 in linear time (see filter-regex.ts): \p{L}, astral
//   characters and named groups work; lookaround and backreferences do not.
// - Several nodes: the filter passes when ANY node passes (CONTRACT §6), for every operator:
//   `not_equals` passes when some node differs from the value, `not_contains` when some node
//   does not contain it. `not_exists` passes only when the path finds nothing.
// - A path that finds nothing makes every negative operator true ("the event has no env, so it
//   is not prod") and every positive one false.
// - Regular expressions are user input evaluated against sender-controlled text: RE2 keeps each
//   test linear in the text. Text longer than MAX_MATCHED_TEXT_LENGTH is never tested and counts
//   as no match, which bounds RE2's slower paths (its NFA is linear in text times pattern). The
//   same engine and bound serve JSONPath's own match() and search() functions, whose patterns
//   may come from the event.
import { JSONPathEnvironment, type JSONPathQuery, type JSONValue } from 'json-p3';
import { compileFilterRegex, IRegexpFunctions, MAX_REGEX_LENGTH } from './filter-regex.js';
import { compareDecimals, parseDecimal } from './decimal.js';
import { MAX_BODY_DEPTH } from './json-depth.js';
import { nonStandardPart } from './jsonpath-strict.js';
import { CountedQuery, NodeBudget, PathBudgetError } from './jsonpath-nodes.js';

import { FILTER_OPERATORS, type FilterOperator } from './filter-operators.js';

export { FILTER_OPERATORS, type FilterOperator };

export interface EventFilter {
  jsonPath: string;
  operator: string;
  /** Ignored by `exists`/`not_exists`; a string for every other operator. */
  value?: string | null;
}

/** Whether an operator compares against `value` (all but `exists` and `not_exists`, which ignore it). */
export const takesValue = (operator: string): boolean => operator !== 'exists' && operator !== 'not_exists';

/** A filter checked and compiled once, to be tested against many events. */
export interface CompiledFilter {
  readonly filter: EventFilter;
  /**
   * Whether the event passes. With `paths` (made for this event), the walk shares the event's
   * node budget and what its other filters' paths found.
   */
  test(event: unknown, paths?: EventPaths): boolean;
  /** One line saying why the filter passed or failed for this event. */
  explain(event: unknown, paths?: EventPaths): string;
}

export type FilterEvaluation = { passed: true } | { passed: false; index: number; reason: string };

export const MAX_JSON_PATH_LENGTH = 1000;
export { MAX_REGEX_LENGTH };
export const MAX_MATCHED_TEXT_LENGTH = 8 * 1024;
/**
 * Nodes one evaluation of a filter's path may visit, embedded filter queries included. Each `..`
 * multiplies the work by the payload's depth and each extra selector (`[*,*]`) by its count, so
 * an unbounded path over a 1 MiB event could block the daemon for minutes; past this budget the
 * filter fails instead. Real filters visit a handful of nodes; `$..name` over a webhook payload
 * of a few hundred KB fits.
 */
export const MAX_PATH_NODES = 50_000;

const NEGATIVE: ReadonlySet<string> = new Set(['not_equals', 'not_contains', 'not_exists']);
const NUMERIC: ReadonlySet<string> = new Set(['gt', 'gte', 'lt', 'lte']);
const SHOWN_NODES = 3;
const SHOWN_CHARS = 80;

/** Thrown by `compile` for a filter that does not validate; `message` is the validation message. */
export class FilterError extends RangeError {
  override name = 'FilterError';
}

/**
 * Compiles and caches filters. One evaluator per dispatcher (or per request) keeps repeated
 * evaluation cheap; the cache is bounded (least recently used entries are dropped).
 */
export class FilterEvaluator {
  readonly #env = createJsonPathEnvironment();
  readonly #cache = new Map<string, CompiledFilter | string>();
  readonly #cacheSize: number;

  constructor(options: { cacheSize?: number } = {}) {
    this.#cacheSize = Math.max(1, options.cacheSize ?? 256);
  }

  /** null when the filter is usable, else a message naming the problem. */
  validate(filter: EventFilter): string | null {
    const compiled = this.#lookup(filter);
    return typeof compiled === 'string' ? compiled : null;
  }

  /** The compiled filter; throws FilterError when it does not validate. */
  compile(filter: EventFilter): CompiledFilter {
    const compiled = this.#lookup(filter);
    if (typeof compiled === 'string') throw new FilterError(compiled);
    return compiled;
  }

  /** Whether the event passes; an invalid filter passes nothing. */
  test(filter: EventFilter, event: unknown): boolean {
    const compiled = this.#lookup(filter);
    return typeof compiled !== 'string' && compiled.test(event);
  }

  /** One line for the dispatcher's reason, e.g. `$.data.env equals "prod" was false (found "staging")`. */
  explain(filter: EventFilter, event: unknown): string {
    const compiled = this.#lookup(filter);
    return typeof compiled === 'string' ? `filter is invalid: ${compiled}` : compiled.explain(event);
  }

  /** All filters must pass; otherwise the first that does not, and why. */
  evaluate(filters: readonly EventFilter[], event: unknown): FilterEvaluation {
    for (let index = 0; index < filters.length; index++) {
      const compiled = this.#lookup(filters[index]);
      if (typeof compiled === 'string') return { passed: false, index, reason: `filter is invalid: ${compiled}` };
      if (!compiled.test(event)) return { passed: false, index, reason: compiled.explain(event) };
    }
    return { passed: true };
  }

  #lookup(filter: EventFilter): CompiledFilter | string {
    const key = cacheKey(filter);
    if (key === null) return compileWith(this.#env, filter);
    const hit = this.#cache.get(key);
    if (hit !== undefined) {
      this.#cache.delete(key);
      this.#cache.set(key, hit);
      return hit;
    }
    const compiled = compileWith(this.#env, filter);
    this.#cache.set(key, compiled);
    if (this.#cache.size > this.#cacheSize) this.#cache.delete(this.#cache.keys().next().value as string);
    return compiled;
  }
}

/** null when the filter is usable, else a message naming the problem (for a 400). */
export function validateFilter(filter: EventFilter): string | null {
  const compiled = compileWith(createJsonPathEnvironment(), filter);
  return typeof compiled === 'string' ? compiled : null;
}

/** Compiles one filter for repeated use; throws FilterError when it does not validate. */
export function compileFilter(filter: EventFilter): CompiledFilter {
  const compiled = compileWith(createJsonPathEnvironment(), filter);
  if (typeof compiled === 'string') throw new FilterError(compiled);
  return compiled;
}

/** One line saying why `filter` failed (or passed) for `event`. */
export function explainFilterFailure(filter: EventFilter, event: unknown): string {
  return new FilterEvaluator({ cacheSize: 1 }).explain(filter, event);
}

/** All filters must pass; otherwise the first that does not, and why. */
export function evaluateFilters(filters: readonly EventFilter[], event: unknown): FilterEvaluation {
  return new FilterEvaluator({ cacheSize: Math.max(1, filters.length) }).evaluate(filters, event);
}

function cacheKey(filter: EventFilter): string | null {
  if (typeof filter !== 'object' || filter === null) return null;
  const { jsonPath, operator, value } = filter;
  if (typeof jsonPath !== 'string' || typeof operator !== 'string') return null;
  return JSON.stringify([jsonPath, operator, typeof value === 'string' ? value : null]);
}

function compileWith(env: JSONPathEnvironment, filter: EventFilter): CompiledFilter | string {
  if (typeof filter !== 'object' || filter === null) return 'filter must be an object with jsonPath, operator and value';
  const { jsonPath, operator } = filter;
  if (typeof jsonPath !== 'string' || jsonPath.trim() === '') return 'jsonPath must be a non-empty string';
  if (jsonPath.length > MAX_JSON_PATH_LENGTH) return `jsonPath is longer than ${MAX_JSON_PATH_LENGTH} characters`;
  let query: JSONPathQuery;
  try {
    query = env.compile(jsonPath);
  } catch (err) {
    return `jsonPath "${jsonPath}" is invalid: ${err instanceof Error ? err.message : String(err)}`;
  }
  const nonStandard = nonStandardPart(query);
  if (nonStandard) return `jsonPath "${jsonPath}" is invalid: ${nonStandard}`;
  const counted = CountedQuery.compile(query);
  if (typeof counted === 'string') return `jsonPath "${jsonPath}" is invalid: ${counted}`;
  if (typeof operator !== 'string' || !(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    return `operator ${JSON.stringify(operator)} is not supported; use one of: ${FILTER_OPERATORS.join(', ')}`;
  }
  const op = operator as FilterOperator;
  const hint = payloadHint(env, jsonPath);
  if (op === 'exists' || op === 'not_exists') return buildFilter(filter, counted, op, '', () => true, hint);
  const value = filter.value;
  if (value === undefined || value === null) return `value is required for operator "${op}"`;
  if (typeof value !== 'string') return `value for operator "${op}" must be a string`;
  const predicate = nodePredicate(op, value);
  return typeof predicate === 'string' ? predicate : buildFilter(filter, counted, op, value, predicate, hint);
}

/**
 * Nodes the hint's walk may visit: it runs only to explain a failure, apart from the event's
 * budget (a hint must never make another filter fail), so it is kept small.
 */
const HINT_PATH_NODES = 5_000;

/** The same path under `$.data`, and whether it finds something in an event. */
interface PayloadHint {
  path: string;
  finds(event: unknown): boolean;
}

/**
 * A path that finds nothing at the top of the event often meant the sender's payload, which the
 * normalised event holds under `data` (`$.env` for `$.data.env`). Null for a path that a `$.data`
 * in front cannot help: `$..x` already searches the payload. Compiled on first use: only a
 * failing filter's explanation needs it.
 */
function payloadHint(env: JSONPathEnvironment, jsonPath: string): (() => PayloadHint | null) | null {
  const path = jsonPath.trim();
  if (!/^\$\s*(\.[^.]|\[)/.test(path)) return null;
  const suggested = `$.data${path.slice(1)}`;
  let hint: PayloadHint | null | undefined;
  return () => {
    if (hint !== undefined) return hint;
    let counted: CountedQuery | string;
    try {
      counted = CountedQuery.compile(env.compile(suggested));
    } catch {
      return (hint = null);
    }
    if (typeof counted === 'string') return (hint = null);
    const query = counted;
    const finds = (event: unknown): boolean => {
      try {
        return query.nodes(event as JSONValue, new NodeBudget(HINT_PATH_NODES)).length > 0;
      } catch (err) {
        if (err instanceof PathBudgetError) return false;
        throw err;
      }
    };
    return (hint = { path: suggested, finds });
  };
}

type NodePredicate = (node: JSONValue, text: string) => boolean;

function nodePredicate(op: Exclude<FilterOperator, 'exists' | 'not_exists'>, value: string): NodePredicate | string {
  switch (op) {
    case 'equals':
    case 'not_equals':
      return (_node, text) => text === value;
    case 'contains':
    case 'not_contains':
      return (node, text) => (Array.isArray(node) ? node.some((item) => textOf(item) === value) : text.includes(value));
    case 'starts_with':
      return (_node, text) => text.startsWith(value);
    case 'ends_with':
      return (_node, text) => text.endsWith(value);
    case 'in': {
      const items = new Set(splitList(value));
      if (items.size === 0) return 'value for operator "in" must list at least one item, separated by commas';
      return (_node, text) => items.has(text);
    }
    case 'matches': {
      const re = compileFilterRegex(value);
      if (typeof re === 'string') return `value for operator "matches" ${re}`;
      return (_node, text) => text.length <= MAX_MATCHED_TEXT_LENGTH && re.test(text);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const bound = parseDecimal(value.trim());
      if (bound === null) return `value for operator "${op}" must be a number; got ${JSON.stringify(value)}`;
      const compare = COMPARATORS[op];
      return (_node, text) => {
        const n = parseDecimal(text.trim());
        return n !== null && compare(compareDecimals(n, bound));
      };
    }
  }
}

/** Each numeric operator on the sign of compareDecimals(node, value). */
const COMPARATORS: Record<'gt' | 'gte' | 'lt' | 'lte', (order: number) => boolean> = {
  gt: (order) => order > 0,
  gte: (order) => order >= 0,
  lt: (order) => order < 0,
  lte: (order) => order <= 0,
};

export { PathBudgetError };

const eventOverBudget = () =>
  new PathBudgetError(
    `the filters this event met visited more than ${MAX_EVENT_PATH_NODES.toLocaleString('en-US')} nodes of it together; use fewer ".." segments and selectors`,
  );

/**
 * Nodes the paths of all the filters one event meets may visit together. MAX_PATH_NODES bounds
 * one filter, but a team's automations may carry hundreds of filters: without a bound per event,
 * one event could hold the daemon that many times as long.
 */
export const MAX_EVENT_PATH_NODES = 200_000;

/**
 * One event's filter evaluations: the nodes they may still visit together, and what each path
 * found (or the budget error it met), so a path many filters share is walked once per event.
 * Paths of member names only (`$.data.env`) cost nothing here: they visit one node per name.
 * Pass it to each filter's `test` and `explain` for this event.
 */
export class EventPaths {
  #left = MAX_EVENT_PATH_NODES;
  readonly #found = new Map<string, JSONValue[] | PathBudgetError>();

  constructor(readonly event: unknown) {}

  /** What `path` finds in the event, walked within what is left of the event's budget. */
  nodes(path: string, query: CountedQuery): JSONValue[] {
    let found = this.#found.get(path);
    if (found === undefined) {
      const budget = new NodeBudget(Math.min(MAX_PATH_NODES, this.#left));
      try {
        found = query.nodes(this.event as JSONValue, budget);
      } catch (err) {
        if (!(err instanceof PathBudgetError)) throw err;
        found = budget.limit < MAX_PATH_NODES ? eventOverBudget() : err;
      }
      this.#left -= budget.used;
      this.#found.set(path, found);
    }
    if (found instanceof PathBudgetError) throw found;
    return found;
  }
}

/**
 * For a path of member names only (`$.data.env`, `$['a b'].c`), the one node it can find, by
 * walking the event: what RFC 9535 selects for such a path (a member of an object, nothing on an
 * array or a scalar), without a general query per event. Null for any other path.
 */
function memberChainFinder(query: CountedQuery): ((event: unknown) => JSONValue[]) | null {
  const names = query.memberNames;
  if (names === null) return null;
  return (event) => {
    let node = event as JSONValue;
    for (const name of names) {
      if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, name)) return [];
      node = (node as Record<string, JSONValue>)[name];
    }
    return [node];
  };
}

function buildFilter(
  filter: EventFilter,
  query: CountedQuery,
  op: FilterOperator,
  value: string,
  predicate: NodePredicate,
  hint: (() => PayloadHint | null) | null,
): CompiledFilter {
  const frozen: EventFilter = Object.freeze({ jsonPath: filter.jsonPath, operator: op, value: filter.value });
  const find =
    memberChainFinder(query) ??
    ((event: unknown, paths?: EventPaths): JSONValue[] =>
      paths !== undefined && paths.event === event ? paths.nodes(filter.jsonPath, query) : query.nodes(event as JSONValue, new NodeBudget(MAX_PATH_NODES)));
  const negative = NEGATIVE.has(op);
  // A negative operator's node passes when its positive twin's fails (not_exists: never, as
  // every node found exists).
  const passes = (nodes: JSONValue[]): boolean => {
    if (nodes.length === 0) return negative;
    // A path may find one large object many times (`$['data','data']`): its text is made once.
    // (The memo is made only then, and no closure per call: this runs for every filter of every event.)
    let texts: Map<object, string> | undefined;
    for (const node of nodes) {
      let text: string | undefined;
      if (node === null || typeof node !== 'object') text = textOf(node);
      else if ((text = (texts ??= new Map()).get(node)) === undefined) texts.set(node, (text = textOf(node)));
      if (predicate(node, text) !== negative) return true;
    }
    return false;
  };
  const test = (event: unknown, paths?: EventPaths): boolean => passes(find(event, paths));
  const explain = (event: unknown, paths?: EventPaths): string => {
    const nodes = find(event, paths);
    const passed = passes(nodes);
    const condition = `${filter.jsonPath} ${op}${takesValue(op) ? ` ${quote(value)}` : ''}`;
    if (nodes.length === 0) {
      if (passed) return `${condition} was true (found nothing)`;
      const under = hint?.();
      return under?.finds(event)
        ? `${filter.jsonPath} found nothing; the event's payload is under $.data: did you mean ${under.path}?`
        : `${filter.jsonPath} found nothing`;
    }
    return `${condition} was ${passed}${passed ? '' : ` (found ${describeNodes(nodes, op)})`}`;
  };
  return { filter: frozen, test, explain };
}

function describeNodes(nodes: JSONValue[], op: FilterOperator): string {
  const shown = nodes.slice(0, SHOWN_NODES).map((node) => {
    const text = textOf(node);
    const shownText = truncate(typeof node === 'string' ? JSON.stringify(node) : text);
    if (op === 'matches' && text.length > MAX_MATCHED_TEXT_LENGTH) {
      return `a ${text.length}-character text, longer than the ${MAX_MATCHED_TEXT_LENGTH} characters matches tests`;
    }
    if (NUMERIC.has(op) && parseDecimal(text) === null) return `${shownText}, not a number`;
    return shownText;
  });
  const more = nodes.length > SHOWN_NODES ? `, … (${nodes.length} nodes)` : '';
  return shown.join(', ') + more;
}

function textOf(node: JSONValue | undefined): string {
  if (typeof node === 'string') return node;
  return JSON.stringify(node) ?? 'null';
}

function quote(value: string): string {
  return truncate(JSON.stringify(value));
}

function truncate(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS - 1)}…` : text;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}


/** A JSONPath environment whose match() and search() run on RE2 and skip over-long text. */
function createJsonPathEnvironment(): JSONPathEnvironment {
  // `..` descends as deep as an event nests: a body may nest MAX_BODY_DEPTH levels, the
  // normalised event holds its data one level down, and json-p3 counts the leaf value as a level
  // too (its default stops at 50, and a limit is reached at, not past, the number).
  const env = new JSONPathEnvironment({ maxRecursionDepth: MAX_BODY_DEPTH + 4 });
  const regex = new IRegexpFunctions();
  for (const name of ['match', 'search'] as const) {
    const standard = env.functionRegister.get(name);
    if (!standard) continue;
    env.functionRegister.set(name, {
      argTypes: standard.argTypes,
      returnType: standard.returnType,
      call: (text: unknown, pattern: unknown) =>
        !(typeof text === 'string' && text.length > MAX_MATCHED_TEXT_LENGTH) && regex[name](text, pattern),
    });
  }
  // RFC 9535 §2.4.4: a string's length counts Unicode scalar values; json-p3 counts UTF-16 code
  // units, so "🚀" was 2.
  const length = env.functionRegister.get('length');
  if (length) {
    env.functionRegister.set('length', {
      argTypes: length.argTypes,
      returnType: length.returnType,
      call: (value: unknown) => (typeof value === 'string' ? [...value].length : length.call(value)),
    });
  }
  return env;
}

