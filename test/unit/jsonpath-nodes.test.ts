// The evaluator filters walk their paths with (shared/jsonpath-nodes.ts) finds what json-p3's own
// query finds, in the same order, over paths that use every selector and filter expression of
// RFC 9535; it counts the nodes it visits and stops at its budget.
import { describe, expect, it } from 'vitest';
import { JSONPathEnvironment, JSONPathRecursionLimitError, type JSONValue } from 'json-p3';
import { CountedQuery, NodeBudget, PathBudgetError } from '../../shared/jsonpath-nodes.js';

const env = new JSONPathEnvironment({ maxRecursionDepth: 20 });

function compiled(path: string): CountedQuery {
  const q = CountedQuery.compile(env.compile(path));
  if (typeof q === 'string') throw new Error(q);
  return q;
}

const find = (path: string, value: JSONValue, budget = new NodeBudget(1_000_000)) => compiled(path).nodes(value, budget);

const events: JSONValue[] = [
  {
    id: 'e1',
    data: {
      env: 'prod',
      count: 42,
      ratio: 1.5,
      on: true,
      off: false,
      none: null,
      labels: ['bug', 'ui', 'bug'],
      items: [{ name: 'alpha', size: 3, tags: ['a'] }, { name: 'beta', size: 12, tags: [] }, { name: 'gamma' }, 7, 'text', null],
      nested: { deep: { value: 'x-1', list: [1, [2, [3, { value: 'inner' }]]] } },
      'a b': { c: 1 },
      empty: {},
      blank: [],
    },
    metadata: { branch: 'main', attempt: 2 },
  },
  { data: [1, 2, 3, { env: 'prod' }, [4, 5]] },
  { data: 'prod' },
  { data: null },
  {},
  [],
  'scalar',
  { a: { a: { a: { b: 1 } } }, b: [{ a: 1 }, { a: [{ a: 2 }] }] },
];

const paths = [
  '$',
  '$.data',
  '$.data.env',
  "$['data']['a b'].c",
  "$.data['env','count','missing','env']",
  '$.data.*',
  '$[*]',
  '$.data.items[0]',
  '$.data.items[-1]',
  '$.data.items[-7]',
  '$.data.items[99]',
  '$.data.items[0,2,0]',
  '$.data.items[1:3]',
  '$.data.items[::2]',
  '$.data.items[::-1]',
  '$.data.items[-2:]',
  '$.data.items[:-2]',
  '$.data.items[5:1:-2]',
  '$.data.items[10:0:-1]',
  '$.data.items[-10:10]',
  '$.data.items[1:1]',
  '$.data.items[::0]',
  '$..name',
  '$..*',
  '$..[0]',
  '$..[*]',
  '$.data..value',
  '$..["value","name"]',
  '$..items[1:]',
  '$..a',
  '$..a..a',
  '$.data.items[?@.size > 10].name',
  '$.data.items[?@.size >= 3]',
  '$.data.items[?@.size < 12 && @.size > 1]',
  '$.data.items[?@.size == 3 || @.name == "gamma"]',
  '$.data.items[?!@.size]',
  '$.data.items[?!(@.size > 5)]',
  '$.data.items[?@.name]',
  '$.data.items[?@.tags[0]]',
  '$.data.items[?@.tags[0] == "a"]',
  '$.data.items[?@ == 7]',
  '$.data.items[?@ == "text"]',
  '$.data.items[?@ == null]',
  '$.data.items[?@.missing == null]',
  '$.data.items[?@.missing != null]',
  '$.data.items[?@.missing == @.other]',
  '$.data.items[?@.size <= @.missing]',
  '$.data.items[?@ > 5]',
  '$.data.items[?@.name > "b"]',
  '$.data.items[?@.tags == "x"]',
  '$.data[?@ == true]',
  '$.data[?@ == false]',
  '$.data[?@ == 1.5]',
  '$.data[?@ == 42.0]',
  '$.data.labels[?@ == "bug"]',
  '$.data.items[?@.size == $.data.count]',
  '$.data.items[?$.data.env == "prod"]',
  '$.data.items[?$.data.nope]',
  '$.data.items[?length(@.name) == 5]',
  '$.data.items[?length(@) == 3]',
  '$.data.items[?length(@.tags) == 0]',
  '$.data.items[?count(@.*) == 3]',
  '$.data.items[?count(@..a) > 0]',
  '$.data.items[?value(@..name) == "beta"]',
  '$.data.items[?match(@.name, "a.*a")]',
  '$.data.items[?search(@.name, "et")]',
  '$.data.items[?!match(@.name, "beta")]',
  '$.data.items[?@.tags[?@ == "a"]]',
  '$..[?@.value]',
  '$..[?@ == 3]',
  '$.data.nested..[?@.value == "inner"]',
  '$..[?@.a && @.b]',
  '$.b[?@.a[?@.a == 2]]',
  '$.data.nested.deep.list[1][1][1].value',
];

describe('CountedQuery', () => {
  it.each(paths)('%s finds what json-p3 finds, in the same order', (path) => {
    for (const event of events) expect(find(path, event), JSON.stringify(event)).toEqual(env.query(path, event).values());
  });

  it('reads $ in a filter inside an embedded query as the root of the whole value (RFC 9535 §2.3.5.1)', () => {
    const event = { x: 1, a: [{ x: 2, b: [{ c: 1 }] }] };
    expect(find('$.a[?@.b[?$.x == 1]]', event)).toEqual([event.a[0]]);
    // (json-p3's own query reads $ there as the embedded query's start, the node under test)
    expect(find('$.a[?@.b[?$.x == 2]]', event)).toEqual([]);
  });

  it('names the paths of member names only', () => {
    expect(compiled('$.data.env').memberNames).toEqual(['data', 'env']);
    expect(compiled("$['a b'].c").memberNames).toEqual(['a b', 'c']);
    expect(compiled('$').memberNames).toEqual([]);
    for (const p of ['$..env', '$.data[0]', "$.data['a','b']", '$.data.*', '$.data[?@.x]']) expect(compiled(p).memberNames).toBeNull();
  });

  it('counts every node it visits, those of embedded queries too, and stops past its budget', () => {
    const xs = Array.from({ length: 100 }, (_, i) => ({ n: i }));
    const counted = (path: string) => {
      const budget = new NodeBudget(1_000_000);
      find(path, { xs }, budget);
      return budget.used;
    };
    expect(counted('$.xs')).toBe(1);
    expect(counted('$.xs[*]')).toBe(101);
    // each element's @.n is visited, and the one element that passes
    expect(counted('$.xs[?@.n == 5]')).toBe(1 + 100 + 1);
    expect(counted('$..n')).toBe(1 + 100 + 100 + 100);
    const budget = new NodeBudget(150);
    expect(() => find('$..n', { xs }, budget)).toThrow(PathBudgetError);
    expect(() => find('$..n', { xs }, new NodeBudget(150))).toThrow('the path visited more than 150 nodes of the event');
    expect(budget.used).toBe(150);
  });

  it("stops `..` at the environment's recursion limit, as json-p3 does", () => {
    let deep: JSONValue = { leaf: true };
    for (let i = 0; i < 30; i++) deep = { a: deep };
    expect(() => find('$..leaf', deep)).toThrow(JSONPathRecursionLimitError);
    expect(() => env.query('$..leaf', deep)).toThrow(JSONPathRecursionLimitError);
  });
});
