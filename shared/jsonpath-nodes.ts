// What an RFC 9535 query finds, walked by our own small evaluator over the query json-p3 has
// parsed: its segments, selectors and filter expressions, read through json-p3's public classes.
// The walk counts every node it visits against a budget the caller passes (NodeBudget), embedded
// filter queries included, so a path that would explode over a large event fails instead.
// Comparisons and functions are json-p3's own (its exported `compare` and the environment's
// function register), so they mean what they mean there.
import {
  FunctionExpressionType,
  jsonpath,
  JSONPathNode,
  JSONPathNodeList,
  JSONPathRecursionLimitError,
  Nothing,
  type FilterFunction,
  type JSONPathQuery,
  type JSONValue,
  type Token,
} from 'json-p3';

const { FilterSelector, IndexSelector, NameSelector, SliceSelector, WildcardSelector } = jsonpath.selectors;
const { BooleanLiteral, FunctionExtension, InfixExpression, LogicalExpression, NullLiteral, NumberLiteral, PrefixExpression, RelativeQuery, RootQuery, StringLiteral, compare } =
  jsonpath.expressions;
type Expression = InstanceType<typeof jsonpath.expressions.FilterExpression>;

/** Thrown when a walk visits more nodes than its budget holds. */
export class PathBudgetError extends RangeError {
  override name = 'PathBudgetError';
}

/** The nodes one walk (or several, sharing it) may still visit. */
export class NodeBudget {
  #left: number;

  constructor(readonly limit: number) {
    this.#left = limit;
  }

  /** Nodes visited so far, at most `limit`. */
  get used(): number {
    return this.limit - Math.max(0, this.#left);
  }

  /** Counts one more node; throws PathBudgetError past the limit. */
  spend(): void {
    if (--this.#left < 0) {
      throw new PathBudgetError(`the path visited more than ${this.limit.toLocaleString('en-US')} nodes of the event; use fewer ".." segments and selectors`);
    }
  }
}

type Value = JSONValue | typeof Nothing;

interface Segment {
  /** `..`: the selectors apply to the node and every node under it */
  descendant: boolean;
  selectors: Selector[];
  /** where the segment is in the path, for the recursion limit's error */
  token: Token;
}

type Selector =
  | { kind: 'name'; name: string }
  | { kind: 'index'; index: number }
  | { kind: 'slice'; start: number | undefined; stop: number | undefined; step: number }
  | { kind: 'wildcard' }
  | { kind: 'filter'; test: Test };

interface Query {
  /** `$` (from the root) rather than `@` (from the node under test) */
  fromRoot: boolean;
  segments: Segment[];
}

/** A filter expression in a place where it is true or false. */
type Test =
  | { kind: 'and' | 'or'; left: Test; right: Test }
  | { kind: 'not'; operand: Test }
  | { kind: 'exists'; query: Query }
  | { kind: 'compare'; operator: string; left: Operand; right: Operand }
  | { kind: 'call'; call: Call };

/** A filter expression in a place where it is a value (or Nothing). */
type Operand = { kind: 'literal'; value: JSONValue } | { kind: 'query'; query: Query } | { kind: 'call'; call: Call };

interface Call {
  fn: FilterFunction;
  /** per argument: a node list (NodesType) or a value */
  args: ({ nodes: Query } | { value: Operand })[];
}

/** Not a part of RFC 9535 that this evaluator knows; the path is refused when it is compiled. */
class Unsupported extends Error {}

/** One walk: the event, the budget, and how deep `..` may go. */
interface Walk {
  root: JSONValue;
  budget: NodeBudget;
  maxDepth: number;
}

/** A query compiled for this evaluator: what it finds in a value, within a budget. */
export class CountedQuery {
  /** For a path of member names only (`$.data.env`, `$['a b'].c`), the names; else null. */
  readonly memberNames: readonly string[] | null;

  private constructor(
    private readonly segments: Segment[],
    private readonly maxDepth: number,
  ) {
    const names: string[] = [];
    for (const s of segments) {
      const [selector] = s.selectors;
      if (s.descendant || s.selectors.length !== 1 || selector.kind !== 'name') {
        this.memberNames = null;
        return;
      }
      names.push(selector.name);
    }
    this.memberNames = names;
  }

  /** The query, or why this evaluator cannot run it. */
  static compile(query: JSONPathQuery): CountedQuery | string {
    try {
      return new CountedQuery(segmentsOf(query), query.environment.maxRecursionDepth);
    } catch (err) {
      if (err instanceof Unsupported) return err.message;
      throw err;
    }
  }

  /**
   * The values of the nodes the query finds in `value`, in RFC 9535 order. Throws PathBudgetError
   * when the walk visits more nodes than `budget` has left, and json-p3's
   * JSONPathRecursionLimitError when `..` goes deeper than the environment allows.
   */
  nodes(value: JSONValue, budget: NodeBudget): JSONValue[] {
    return select(this.segments, value, { root: value, budget, maxDepth: this.maxDepth });
  }
}

// ---- compiling json-p3's parsed query ----

type Environment = JSONPathQuery['environment'];

function segmentsOf(query: JSONPathQuery): Segment[] {
  return query.segments.map((segment) => ({
    // (json-p3 does not export its segment classes; a descendant segment prints as `..[…]`)
    descendant: segment.toString().startsWith('..'),
    selectors: segment.selectors.map((selector) => selectorOf(selector, query.environment)),
    token: segment.token,
  }));
}

function selectorOf(selector: InstanceType<typeof jsonpath.JSONPathSelector>, env: Environment): Selector {
  if (selector instanceof NameSelector) return { kind: 'name', name: selector.name };
  if (selector instanceof IndexSelector) return { kind: 'index', index: selector.index };
  if (selector instanceof SliceSelector) return { kind: 'slice', start: selector.start, stop: selector.stop, step: selector.step ?? 1 };
  if (selector instanceof WildcardSelector) return { kind: 'wildcard' };
  if (selector instanceof FilterSelector) return { kind: 'filter', test: testOf(selector.expression, env) };
  throw new Unsupported(`the selector ${selector.toString()} is not supported`);
}

function queryOf(e: Expression): Query | undefined {
  if (e instanceof RelativeQuery) return { fromRoot: false, segments: segmentsOf(e.path) };
  if (e instanceof RootQuery) return { fromRoot: true, segments: segmentsOf(e.path) };
  return undefined;
}

function testOf(e: Expression, env: Environment): Test {
  if (e instanceof LogicalExpression) return testOf(e.expression, env);
  if (e instanceof PrefixExpression && e.operator === '!') return { kind: 'not', operand: testOf(e.right, env) };
  if (e instanceof InfixExpression) {
    if (e.operator === '&&') return { kind: 'and', left: testOf(e.left, env), right: testOf(e.right, env) };
    if (e.operator === '||') return { kind: 'or', left: testOf(e.left, env), right: testOf(e.right, env) };
    return { kind: 'compare', operator: e.operator, left: operandOf(e.left, env), right: operandOf(e.right, env) };
  }
  const query = queryOf(e);
  if (query) return { kind: 'exists', query };
  if (e instanceof FunctionExtension) return { kind: 'call', call: callOf(e, env) };
  throw new Unsupported(`${e.toString()} is not a test`);
}

function operandOf(e: Expression, env: Environment): Operand {
  if (e instanceof NullLiteral) return { kind: 'literal', value: null };
  if (e instanceof BooleanLiteral || e instanceof NumberLiteral || e instanceof StringLiteral) return { kind: 'literal', value: e.value };
  if (e instanceof FunctionExtension) return { kind: 'call', call: callOf(e, env) };
  // A value is one node or none: json-p3 refuses any other query as a comparison's side or a value argument.
  if ((e instanceof RelativeQuery || e instanceof RootQuery) && e.path.singularQuery()) return { kind: 'query', query: queryOf(e)! };
  throw new Unsupported(`${e.toString()} is not a value`);
}

function callOf(e: InstanceType<typeof FunctionExtension>, env: Environment): Call {
  const fn = env.functionRegister.get(e.name);
  if (!fn) throw new Unsupported(`there is no function ${e.name}()`);
  return {
    fn,
    args: e.args.map((arg, i) => {
      if (fn.argTypes[i] !== FunctionExpressionType.NodesType) return { value: operandOf(arg, env) };
      const nodes = queryOf(arg);
      if (!nodes) throw new Unsupported(`argument ${i + 1} of ${e.name}() must be a query`);
      return { nodes };
    }),
  };
}

// ---- walking ----

function select(segments: readonly Segment[], value: JSONValue, walk: Walk): JSONValue[] {
  let nodes = [value];
  for (const segment of segments) {
    const next: JSONValue[] = [];
    for (const node of nodes) {
      if (segment.descendant) descend(segment, node, 1, walk, next);
      else for (const s of segment.selectors) apply(s, node, walk, next);
    }
    nodes = next;
  }
  return nodes;
}

/** `..`: the segment's selectors on `node`, then on every node under it, depth first. */
function descend(segment: Segment, node: JSONValue, depth: number, walk: Walk, out: JSONValue[]): void {
  if (depth >= walk.maxDepth) throw new JSONPathRecursionLimitError('recursion limit reached', segment.token);
  for (const s of segment.selectors) apply(s, node, walk, out);
  for (const child of childrenOf(node)) {
    walk.budget.spend();
    descend(segment, child, depth + 1, walk, out);
  }
}

const isObject = (v: JSONValue): v is { [key: string]: JSONValue } => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An array's elements or an object's member values, in order; nothing for a scalar. */
function childrenOf(node: JSONValue): readonly JSONValue[] {
  if (Array.isArray(node)) return node;
  if (isObject(node)) return Object.values(node);
  return [];
}

function apply(s: Selector, node: JSONValue, walk: Walk, out: JSONValue[]): void {
  switch (s.kind) {
    case 'name':
      if (isObject(node) && Object.hasOwn(node, s.name)) {
        walk.budget.spend();
        out.push(node[s.name]);
      }
      return;
    case 'index': {
      if (!Array.isArray(node)) return;
      const i = s.index < 0 ? node.length + s.index : s.index;
      if (i >= 0 && i < node.length) {
        walk.budget.spend();
        out.push(node[i]);
      }
      return;
    }
    case 'slice':
      if (Array.isArray(node)) for (const i of sliceIndexes(s, node.length)) {
        walk.budget.spend();
        out.push(node[i]);
      }
      return;
    case 'wildcard':
      for (const child of childrenOf(node)) {
        walk.budget.spend();
        out.push(child);
      }
      return;
    case 'filter':
      for (const child of childrenOf(node)) {
        if (!holds(s.test, child, walk)) continue;
        walk.budget.spend();
        out.push(child);
      }
      return;
  }
}

/** RFC 9535 §2.3.4.2.2: the indexes `start:stop:step` selects in an array of `length`. */
function sliceIndexes({ start, stop, step }: { start: number | undefined; stop: number | undefined; step: number }, length: number): number[] {
  const out: number[] = [];
  if (step === 0 || length === 0) return out;
  const bound = (n: number) => (n >= 0 ? n : length + n);
  if (step > 0) {
    const lower = Math.min(Math.max(bound(start ?? 0), 0), length);
    const upper = Math.min(Math.max(bound(stop ?? length), 0), length);
    for (let i = lower; i < upper; i += step) out.push(i);
  } else {
    const upper = start === undefined ? length - 1 : Math.min(Math.max(bound(start), -1), length - 1);
    const lower = stop === undefined ? -1 : Math.min(Math.max(bound(stop), -1), length - 1);
    for (let i = upper; i > lower; i += step) out.push(i);
  }
  return out;
}

/** Whether `test` holds for `current`, the node the filter selector is looking at. */
function holds(test: Test, current: JSONValue, walk: Walk): boolean {
  switch (test.kind) {
    case 'and':
      return holds(test.left, current, walk) && holds(test.right, current, walk);
    case 'or':
      return holds(test.left, current, walk) || holds(test.right, current, walk);
    case 'not':
      return !holds(test.operand, current, walk);
    case 'exists':
      return run(test.query, current, walk).length > 0;
    case 'compare':
      return compare(valueOf(test.left, current, walk), test.operator, valueOf(test.right, current, walk));
    case 'call': {
      const result = call(test.call, current, walk);
      return result instanceof JSONPathNodeList ? result.length > 0 : result !== false;
    }
  }
}

function valueOf(operand: Operand, current: JSONValue, walk: Walk): Value {
  switch (operand.kind) {
    case 'literal':
      return operand.value;
    case 'query': {
      const [node] = run(operand.query, current, walk);
      return node === undefined ? Nothing : node;
    }
    case 'call':
      return call(operand.call, current, walk) as Value;
  }
}

function call({ fn, args }: Call, current: JSONValue, walk: Walk): unknown {
  return fn.call(
    ...args.map((arg) =>
      'nodes' in arg ? new JSONPathNodeList(run(arg.nodes, current, walk).map((v) => new JSONPathNode(v, [], walk.root))) : valueOf(arg.value, current, walk),
    ),
  );
}

function run(query: Query, current: JSONValue, walk: Walk): JSONValue[] {
  return select(query.segments, query.fromRoot ? walk.root : current, walk);
}
