import { describe, expect, it } from 'vitest';
import { query as jsonPathQuery, type JSONValue } from 'json-p3';
import { MAX_BODY_DEPTH } from '../../shared/json-depth.js';
import {
  FILTER_OPERATORS,
  FilterError,
  FilterEvaluator,
  MAX_MATCHED_TEXT_LENGTH,
  compileFilter,
  evaluateFilters,
  explainFilterFailure,
  validateFilter,
  type EventFilter,
} from '../../shared/filters.js';

const event = {
  id: '5b0c8c5e-2f55-4c39-9d1f-0c3a3f1c6a11',
  provider: 'github',
  event_type: 'push',
  connection_id: null,
  source: 'https://github.com/acme/app',
  subject: 'refs/heads/main',
  time: '2026-05-01T12:00:00.000Z',
  metadata: { branch: 'main', attempt: 2, retried: false },
  data: {
    env: 'prod',
    region: 'eu-west-1',
    count: 42,
    countText: '42',
    price: '19.99',
    ratio: 0.5,
    enabled: true,
    nothing: null,
    greeting: 'Grüße, 世界 😀',
    labels: ['bug', 'ui', 'needs review'],
    items: [
      { name: 'alpha', size: 3 },
      { name: 'beta', size: 12 },
      { name: 'gamma' },
    ],
    nested: { deep: { value: 'x-1' } },
    empty: '',
  },
  received_at: '2026-05-01T12:00:01.000Z',
};

const pass = (jsonPath: string, operator: string, value?: string): boolean =>
  compileFilter({ jsonPath, operator, value }).test(event);

describe('equals and not_equals', () => {
  it('equals compares a string node with the value', () => {
    expect(pass('$.data.env', 'equals', 'prod')).toBe(true);
    expect(pass('$.data.env', 'equals', 'Prod')).toBe(false);
    expect(pass('$.data.env', 'equals', 'prod ')).toBe(false);
  });

  it('a number node equals its JSON text, so 42 and "42" both equal "42"', () => {
    expect(pass('$.data.count', 'equals', '42')).toBe(true);
    expect(pass('$.data.countText', 'equals', '42')).toBe(true);
    expect(pass('$.data.count', 'equals', '42.0')).toBe(false);
    expect(pass('$.data.ratio', 'equals', '0.5')).toBe(true);
  });

  it('booleans and null compare by their JSON text', () => {
    expect(pass('$.data.enabled', 'equals', 'true')).toBe(true);
    expect(pass('$.metadata.retried', 'equals', 'false')).toBe(true);
    expect(pass('$.data.nothing', 'equals', 'null')).toBe(true);
    expect(pass('$.connection_id', 'equals', 'null')).toBe(true);
    expect(pass('$.data.nothing', 'equals', '')).toBe(false);
  });

  it('an object node compares by its JSON text', () => {
    expect(pass('$.data.nested.deep', 'equals', '{"value":"x-1"}')).toBe(true);
  });

  it('equals "" matches an empty string', () => {
    expect(pass('$.data.empty', 'equals', '')).toBe(true);
  });

  it('unicode strings compare as themselves', () => {
    expect(pass('$.data.greeting', 'equals', 'Grüße, 世界 😀')).toBe(true);
  });

  it('not_equals is true when the node differs and false when it equals', () => {
    expect(pass('$.data.env', 'not_equals', 'staging')).toBe(true);
    expect(pass('$.data.env', 'not_equals', 'prod')).toBe(false);
  });

  it('not_equals is true when the path finds nothing', () => {
    expect(pass('$.data.missing', 'not_equals', 'prod')).toBe(true);
  });

  it('equals is false when the path finds nothing', () => {
    expect(pass('$.data.missing', 'equals', 'prod')).toBe(false);
  });

  it('with several nodes, each operator passes when any node does (CONTRACT §6)', () => {
    expect(pass('$.data.items[*].name', 'equals', 'beta')).toBe(true);
    expect(pass('$.data.items[*].name', 'equals', 'delta')).toBe(false);
    // alpha and gamma differ from beta
    expect(pass('$.data.items[*].name', 'not_equals', 'beta')).toBe(true);
    expect(pass('$.data.items[*].name', 'not_equals', 'delta')).toBe(true);
    // both nodes found are beta: none differs
    expect(pass('$.data.items[1,1].name', 'not_equals', 'beta')).toBe(false);
  });
});

describe('contains and not_contains', () => {
  it('contains is a substring test on strings', () => {
    expect(pass('$.data.region', 'contains', 'west')).toBe(true);
    expect(pass('$.data.region', 'contains', 'east')).toBe(false);
    expect(pass('$.data.greeting', 'contains', '世界')).toBe(true);
  });

  it('contains on an array node is true when an element equals the value', () => {
    expect(pass('$.data.labels', 'contains', 'bug')).toBe(true);
    expect(pass('$.data.labels', 'contains', 'needs review')).toBe(true);
    expect(pass('$.data.labels', 'contains', 'bu')).toBe(false);
    expect(pass('$.data.labels', 'contains', '"bug","ui"')).toBe(false);
  });

  it('contains on a number node searches its JSON text', () => {
    expect(pass('$.data.count', 'contains', '4')).toBe(true);
  });

  it('not_contains negates contains, and is true when the path finds nothing', () => {
    expect(pass('$.data.labels', 'not_contains', 'bug')).toBe(false);
    expect(pass('$.data.labels', 'not_contains', 'docs')).toBe(true);
    expect(pass('$.data.region', 'not_contains', 'east')).toBe(true);
    expect(pass('$.data.missing', 'not_contains', 'x')).toBe(true);
  });

  it('with a wildcard path, not_contains passes when any node does not contain the value', () => {
    expect(pass('$.data.items[*].name', 'contains', 'mm')).toBe(true);
    // alpha and beta hold no "mm"
    expect(pass('$.data.items[*].name', 'not_contains', 'mm')).toBe(true);
    // every name holds an "a"
    expect(pass('$.data.items[*].name', 'not_contains', 'a')).toBe(false);
  });
});

describe('starts_with and ends_with', () => {
  it('test the start and the end of the text', () => {
    expect(pass('$.subject', 'starts_with', 'refs/heads/')).toBe(true);
    expect(pass('$.subject', 'starts_with', 'refs/tags/')).toBe(false);
    expect(pass('$.subject', 'ends_with', '/main')).toBe(true);
    expect(pass('$.data.greeting', 'ends_with', '😀')).toBe(true);
  });

  it('are false when the path finds nothing', () => {
    expect(pass('$.data.missing', 'starts_with', '')).toBe(false);
  });
});

describe('in', () => {
  it('matches one of a comma-separated list, trimming spaces around items', () => {
    expect(pass('$.data.env', 'in', 'staging, prod ,dev')).toBe(true);
    expect(pass('$.data.env', 'in', 'staging,dev')).toBe(false);
  });

  it('does not match part of an item', () => {
    expect(pass('$.data.env', 'in', 'production,pro')).toBe(false);
  });

  it('compares numbers by their JSON text', () => {
    expect(pass('$.data.count', 'in', '41, 42, 43')).toBe(true);
  });

  it('ignores empty items, so a trailing comma does not match empty strings', () => {
    expect(pass('$.data.empty', 'in', 'a,')).toBe(false);
  });

  it('passes when any node of a wildcard path is listed', () => {
    expect(pass('$.data.items[*].name', 'in', 'delta, gamma')).toBe(true);
  });
});

describe('exists and not_exists', () => {
  it('exists is true for a present key, even when its value is null', () => {
    expect(pass('$.data.env', 'exists')).toBe(true);
    expect(pass('$.data.nothing', 'exists')).toBe(true);
    expect(pass('$.data.missing', 'exists')).toBe(false);
  });

  it('not_exists is true only when the path finds nothing', () => {
    expect(pass('$.data.missing', 'not_exists')).toBe(true);
    expect(pass('$.data.nothing', 'not_exists')).toBe(false);
  });

  it('ignore a value when one is given', () => {
    expect(pass('$.data.env', 'exists', 'whatever')).toBe(true);
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'not_exists' })).toBeNull();
  });

  it('exists on a wildcard path is true when some element has the key', () => {
    expect(pass('$.data.items[*].size', 'exists')).toBe(true);
    expect(pass('$.data.items[*].colour', 'exists')).toBe(false);
  });

  it('work on metadata and top-level fields', () => {
    expect(pass('$.metadata.branch', 'exists')).toBe(true);
    expect(pass('$.metadata.tag', 'not_exists')).toBe(true);
  });
});

describe('matches', () => {
  it('searches the text with a regular expression (unanchored unless anchored)', () => {
    expect(pass('$.metadata.branch', 'matches', '^ma')).toBe(true);
    expect(pass('$.data.region', 'matches', 'west-\\d$')).toBe(true);
    expect(pass('$.data.region', 'matches', '^west')).toBe(false);
    expect(pass('$.data.region', 'matches', 'west')).toBe(true);
  });

  it('handles unicode: property escapes and astral characters count as one character', () => {
    expect(pass('$.data.greeting', 'matches', '^\\p{Lu}\\p{Ll}+')).toBe(true);
    expect(pass('$.data.greeting', 'matches', ' .$')).toBe(true);
  });

  it('accepts legacy escapes that unicode mode rejects', () => {
    expect(validateFilter({ jsonPath: '$.data.region', operator: 'matches', value: 'eu\\-west' })).toBeNull();
    expect(pass('$.data.region', 'matches', 'eu\\-west')).toBe(true);
  });

  it('tests numbers and booleans by their JSON text', () => {
    expect(pass('$.data.count', 'matches', '^4\\d$')).toBe(true);
    expect(pass('$.data.enabled', 'matches', '^true$')).toBe(true);
  });

  it('passes when any node of a wildcard path matches', () => {
    expect(pass('$.data.items[*].name', 'matches', '^g')).toBe(true);
    expect(pass('$.data.items[*].name', 'matches', '^z')).toBe(false);
  });

  it('does not test text longer than the cap, and says so', () => {
    const long = { data: { body: `${'a'.repeat(MAX_MATCHED_TEXT_LENGTH)}b` } };
    const filter = { jsonPath: '$.data.body', operator: 'matches', value: 'b$' };
    expect(compileFilter(filter).test(long)).toBe(false);
    expect(explainFilterFailure(filter, long)).toBe(
      `$.data.body matches "b$" was false (found a ${MAX_MATCHED_TEXT_LENGTH + 1}-character text, longer than the ${MAX_MATCHED_TEXT_LENGTH} characters matches tests)`,
    );
    const atCap = { data: { body: `${'a'.repeat(MAX_MATCHED_TEXT_LENGTH - 1)}b` } };
    expect(compileFilter(filter).test(atCap)).toBe(true);
  });
});

describe('gt, gte, lt, lte', () => {
  it('compare numbers numerically', () => {
    expect(pass('$.data.count', 'gt', '41')).toBe(true);
    expect(pass('$.data.count', 'gt', '42')).toBe(false);
    expect(pass('$.data.count', 'gte', '42')).toBe(true);
    expect(pass('$.data.count', 'lt', '100')).toBe(true);
    expect(pass('$.data.count', 'lt', '9')).toBe(false);
    expect(pass('$.data.count', 'lte', '42.0')).toBe(true);
    expect(pass('$.data.ratio', 'lt', '1e0')).toBe(true);
  });

  it('parse numeric strings in the event, not lexical order ("42" > "9")', () => {
    expect(pass('$.data.countText', 'gt', '9')).toBe(true);
    expect(pass('$.data.price', 'gte', '19.99')).toBe(true);
    expect(pass('$.data.price', 'lt', '20')).toBe(true);
  });

  it('are false for text that is not a number, booleans and null', () => {
    expect(pass('$.data.env', 'gt', '0')).toBe(false);
    expect(pass('$.data.env', 'lt', '0')).toBe(false);
    expect(pass('$.data.enabled', 'gte', '0')).toBe(false);
    expect(pass('$.data.nothing', 'lte', '0')).toBe(false);
    expect(pass('$.data.empty', 'lte', '0')).toBe(false);
    expect(pass('$.data.missing', 'lt', '0')).toBe(false);
  });

  it('compare numbers sent as strings exactly as written, beyond what a double holds', () => {
    const e = { data: { id: '9007199254740993', big: '1234567890123456790', tenth: '0.3' } };
    const test = (jsonPath: string, operator: string, value: string) => compileFilter({ jsonPath, operator, value }).test(e);
    expect(test('$.data.id', 'lte', '9007199254740992')).toBe(false);
    expect(test('$.data.id', 'gt', '9007199254740992')).toBe(true);
    expect(test('$.data.big', 'gt', '1234567890123456789')).toBe(true);
    expect(test('$.data.tenth', 'lt', '0.30000000000000001')).toBe(true);
  });

  it('do not read hexadecimal or Infinity as numbers', () => {
    const e = { data: { hex: '0x10', inf: 'Infinity' } };
    expect(compileFilter({ jsonPath: '$.data.hex', operator: 'gt', value: '1' }).test(e)).toBe(false);
    expect(compileFilter({ jsonPath: '$.data.inf', operator: 'gt', value: '1' }).test(e)).toBe(false);
  });

  it('pass when any node of a wildcard path passes; a missing key is not a node', () => {
    expect(pass('$.data.items[*].size', 'gt', '10')).toBe(true);
    expect(pass('$.data.items[*].size', 'gt', '12')).toBe(false);
  });

  it('reject a value that is not a number at validation', () => {
    expect(validateFilter({ jsonPath: '$.data.count', operator: 'gt', value: 'ten' })).toBe(
      'value for operator "gt" must be a number; got "ten"',
    );
  });
});

describe('JSONPath', () => {
  it('descends (..) through an event nested as deep as a body may be', () => {
    let data: Record<string, unknown> = { needle: 'yes' };
    for (let i = 1; i < MAX_BODY_DEPTH; i++) data = { a: data };
    const deep = { ...event, data };
    expect(compileFilter({ jsonPath: '$..needle', operator: 'equals', value: 'yes' }).test(deep)).toBe(true);
    expect(compileFilter({ jsonPath: '$..secret', operator: 'not_exists' }).test(deep)).toBe(true);
  });

  it("length() counts a string's Unicode scalar values (RFC 9535 §2.4.4), not UTF-16 units", () => {
    const e = { data: { rocket: '🚀', word: 'héllo', list: [1, 2, 3] } };
    const test = (jsonPath: string) => compileFilter({ jsonPath, operator: 'exists' }).test(e);
    expect(test('$.data[?length(@) == 1]')).toBe(true);
    expect(test('$.data[?length(@) == 2]')).toBe(false);
    expect(test('$.data[?length(@) == 5]')).toBe(true);
    expect(test('$.data[?length(@) == 3]')).toBe(true);
  });

  it('reaches nested objects, metadata and the subject', () => {
    expect(pass('$.data.nested.deep.value', 'equals', 'x-1')).toBe(true);
    expect(pass('$.metadata.attempt', 'equals', '2')).toBe(true);
    expect(pass('$.subject', 'equals', 'refs/heads/main')).toBe(true);
    expect(pass('$.provider', 'equals', 'github')).toBe(true);
  });

  it('supports bracket notation, indexes, descendants and filter selectors', () => {
    expect(pass("$['data']['env']", 'equals', 'prod')).toBe(true);
    expect(pass('$.data.items[1].name', 'equals', 'beta')).toBe(true);
    expect(pass('$.data.items[-1].name', 'equals', 'gamma')).toBe(true);
    expect(pass('$..value', 'equals', 'x-1')).toBe(true);
    expect(pass('$.data.items[?@.size > 10].name', 'equals', 'beta')).toBe(true);
    expect(pass('$.data.items[?@.size > 10].name', 'equals', 'alpha')).toBe(false);
  });

  it('treats a path into a scalar as finding nothing', () => {
    expect(pass('$.data.env.length', 'exists')).toBe(false);
  });

  it('rejects an invalid path with the parser reason', () => {
    expect(validateFilter({ jsonPath: 'data.env', operator: 'equals', value: 'x' })).toMatch(
      /^jsonPath "data\.env" is invalid: expected '\$', found 'd'/,
    );
    expect(validateFilter({ jsonPath: '$.data[', operator: 'equals', value: 'x' })).toMatch(
      /^jsonPath "\$\.data\[" is invalid: .+/,
    );
    expect(validateFilter({ jsonPath: '$.data[?nope(@)]', operator: 'exists' })).toMatch(/no such function 'nope'/);
  });

  it('rejects an empty or over-long path', () => {
    expect(validateFilter({ jsonPath: '', operator: 'exists' })).toBe('jsonPath must be a non-empty string');
    expect(validateFilter({ jsonPath: `$.${'a'.repeat(1000)}`, operator: 'exists' })).toBe(
      'jsonPath is longer than 1000 characters',
    );
  });

  it('runs match() and search() inside paths on RE2, and skips long text', () => {
    /** The names the filter path selects, through svc's JSONPath environment. */
    const names = (fn: string, pattern: string) =>
      ['abc', 'a\nc', ' '.repeat(4000)].filter((name) =>
        compileFilter({ jsonPath: `$.data.items[?${fn}(@.name, '${pattern}')]`, operator: 'exists' }).test({ data: { items: [{ name }] } }),
      );
    // A pattern that backtracks exponentially in JavaScript's engine is linear on RE2.
    expect(names('match', '(a|b)*c')).toEqual(['abc']);
    expect(names('search', '\\\\p{Zs}*\\\\p{Zs}*\\\\p{Zs}*x')).toEqual([]);
    // I-Regexp: match() is whole-text, search() is anywhere, and . is no line break.
    expect(names('match', 'a.c')).toEqual(['abc']);
    expect(names('match', 'b')).toEqual([]);
    expect(names('search', 'b')).toEqual(['abc']);
    // A pattern that is not an I-Regexp (lookahead, \\d, an inline flag) is false, as RFC 9535 says.
    expect(names('search', 'a(?=b)')).toEqual([]);
    expect(names('search', '\\\\w')).toEqual([]);
    expect(names('search', '(?i)ABC')).toEqual([]);
    const long = { data: { items: [{ name: 'a'.repeat(MAX_MATCHED_TEXT_LENGTH + 1) }] } };
    expect(compileFilter({ jsonPath: "$.data.items[?search(@.name, 'a')]", operator: 'exists' }).test(long)).toBe(false);
  });
});

describe('validateFilter', () => {
  it('accepts a well-formed filter for every operator', () => {
    const values: Record<string, string | undefined> = { matches: '^p', gt: '1', gte: '1', lt: '1', lte: '1', exists: undefined, not_exists: undefined };
    for (const operator of FILTER_OPERATORS) {
      const value = operator in values ? values[operator] : 'prod';
      expect(validateFilter({ jsonPath: '$.data.env', operator, value }), operator).toBeNull();
    }
  });

  it('refuses what RFC 9535 refuses and json-p3 lets through: - in a shorthand name, a comparison of comparisons or of a negation', () => {
    const exists = (jsonPath: string) => validateFilter({ jsonPath, operator: 'exists' });
    expect(exists('$.data.a-b')).toBe(`jsonPath "$.data.a-b" is invalid: .a-b is not a valid shorthand name (letters, digits and _ only); write ['a-b']`);
    expect(exists('$..é-x')).toContain('not a valid shorthand name');
    expect(exists('$[?@.a-b]')).toContain('not a valid shorthand name');
    for (const path of ['$.data[?@.a == 1 == 2]', '$.data[?@.a < 1 < 2]', '$[?!@.a==1]', '$[?(@.a==1)==true]', '$[?@.x[?@.a == 1 == 2]]', '$[?count(@[?@.a == 1 == 2]) > 0]']) {
      expect(exists(path), path).toContain('must be a value, a query or a function');
    }
    for (const path of [
      "$.data['a-b']",
      '$.data.é_x9',
      '$..a',
      '$[?!(@.a==1)]',
      '$[?!@.a]',
      '$[?@.a == 1 && @.b != "x" || !(@.c < 2)]',
      '$[?length(@.a) > 1]',
      '$[?@.a == $.data.b]',
      '$[?match(@.a, "x.*")]',
      '$[?@.a == -0]',
      '$[?@.a == -0.5]',
      '$[?@.a > -10]',
    ]) {
      expect(exists(path), path).toBeNull();
    }
    for (const path of ['$.data[?@.a == -01]', '$.data[?@.a == -00]', '$.data[?@.a == -01.5]', '$.data[?@.a==-00]']) {
      expect(exists(path), path).toMatch(/is not a valid number literal \(no leading zeros\)/);
    }
  });

  it('names the allowed operators for an unknown one', () => {
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'like', value: 'x' })).toBe(
      'operator "like" is not supported; use one of: equals, not_equals, contains, not_contains, starts_with, ends_with, in, exists, not_exists, matches, gt, gte, lt, lte',
    );
  });

  it('requires a string value for operators other than exists and not_exists', () => {
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'equals' })).toBe('value is required for operator "equals"');
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'equals', value: null })).toBe(
      'value is required for operator "equals"',
    );
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'equals', value: 42 as unknown as string })).toBe(
      'value for operator "equals" must be a string',
    );
  });

  it('requires at least one item for in', () => {
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'in', value: ' , ' })).toBe(
      'value for operator "in" must list at least one item, separated by commas',
    );
  });

  it('rejects an invalid regular expression with the reason', () => {
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value: '(unclosed' })).toMatch(
      /^value for operator "matches" is not a valid regular expression: .*/,
    );
    // No linear-time engine has lookaround or backreferences.
    for (const value of ['x(?=y)', '(?<!a)b', '(a)\\1']) {
      expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value })).toMatch(/lookahead, lookbehind and backreferences are not supported/);
    }
    // A named one too, which the translation to RE2 would otherwise have read as the text "k<n>".
    for (const value of ['^(?<n>a)\\k<n>$', 'a\\k']) {
      expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value })).toMatch(/backreferences \(\\k<name>\) are not supported/);
    }
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value: 'a\\\\k' })).toBeNull();
  });

  it('matches in time linear in the text, even for patterns no static check flags', () => {
    // Both take minutes on 8 KiB in a backtracking engine; neither nests quantifiers.
    const spaces = { data: { body: ' '.repeat(MAX_MATCHED_TEXT_LENGTH) } };
    expect(compileFilter({ jsonPath: '$.data.body', operator: 'matches', value: '\\s*\\s*\\s*x' }).test(spaces)).toBe(false);
    const as = { data: { body: 'a'.repeat(MAX_MATCHED_TEXT_LENGTH) } };
    expect(compileFilter({ jsonPath: '$.data.body', operator: 'matches', value: '.*a.*b' }).test(as)).toBe(false);
  });

  it('accepts the classic catastrophic patterns, and matches them in time linear in the text', () => {
    // Nested quantifiers and repeated alternatives: exponential in a backtracking engine on these
    // texts (tens of characters would do), immediate on RE2.
    const cases: [string, string][] = [
      ['(a+)+$', `${'a'.repeat(MAX_MATCHED_TEXT_LENGTH - 1)}!`],
      ['^(\\w+\\s?)*$', `${'word '.repeat(1600)}!`],
      ['(a|a)*b', 'a'.repeat(MAX_MATCHED_TEXT_LENGTH)],
      ['((x|y)z){2,}!', 'xz'.repeat(4000)],
    ];
    for (const [value, text] of cases) {
      expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value }), value).toBeNull();
      expect(compileFilter({ jsonPath: '$.data.env', operator: 'matches', value }).test({ data: { env: text } }), value).toBe(false);
    }
  });

  it("accepts RE2's inline flags and alternatives of every kind", () => {
    for (const value of ['(?i)prod', '(?i:prod)', '(?s)a.b', '(?m)^a', '^(feature|bugfix)/', '(a|b)?c', '(ab){1}', '[|(]+', '\\(a\\|b\\)*']) {
      expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value }), value).toBeNull();
    }
    expect(compileFilter({ jsonPath: '$.data.env', operator: 'matches', value: '(?i)^PROD$' }).test({ data: { env: 'prod' } })).toBe(true);
  });

  it('rejects a regular expression over 1000 characters', () => {
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value: 'a'.repeat(1001) })).toBe(
      'value for operator "matches" is longer than 1000 characters',
    );
    expect(validateFilter({ jsonPath: '$.data.env', operator: 'matches', value: 'a'.repeat(1000) })).toBeNull();
  });

  it('rejects something that is not a filter object', () => {
    expect(validateFilter(null as unknown as EventFilter)).toMatch(/filter must be an object/);
  });
});

describe('compileFilter', () => {
  it('throws a FilterError carrying the validation message', () => {
    expect(() => compileFilter({ jsonPath: '$.x', operator: 'nope', value: 'a' })).toThrow(FilterError);
    expect(() => compileFilter({ jsonPath: '$.x', operator: 'nope', value: 'a' })).toThrow(/operator "nope" is not supported/);
  });

  it('can be tested against many events', () => {
    const compiled = compileFilter({ jsonPath: '$.data.env', operator: 'equals', value: 'prod' });
    expect(compiled.test({ data: { env: 'prod' } })).toBe(true);
    expect(compiled.test({ data: { env: 'dev' } })).toBe(false);
    expect(compiled.test({})).toBe(false);
    expect(compiled.filter).toEqual({ jsonPath: '$.data.env', operator: 'equals', value: 'prod' });
  });
});

describe('explainFilterFailure', () => {
  it('says what was found when the comparison was false', () => {
    expect(explainFilterFailure({ jsonPath: '$.data.env', operator: 'equals', value: 'staging' }, event)).toBe(
      '$.data.env equals "staging" was false (found "prod")',
    );
  });

  it('says the path found nothing', () => {
    expect(explainFilterFailure({ jsonPath: '$.data.missing', operator: 'equals', value: 'prod' }, event)).toBe(
      '$.data.missing found nothing',
    );
  });

  it('says the payload is under $.data when the same path there finds something', () => {
    expect(explainFilterFailure({ jsonPath: '$.env', operator: 'equals', value: 'prod' }, event)).toBe(
      "$.env found nothing; the event's payload is under $.data: did you mean $.data.env?",
    );
    expect(explainFilterFailure({ jsonPath: "$['count']", operator: 'exists' }, event)).toBe(
      "$['count'] found nothing; the event's payload is under $.data: did you mean $.data['count']?",
    );
  });

  it('gives no $.data hint when the path finds nothing there either, or already searches everywhere', () => {
    expect(explainFilterFailure({ jsonPath: '$.nowhere', operator: 'equals', value: 'x' }, event)).toBe('$.nowhere found nothing');
    expect(explainFilterFailure({ jsonPath: '$..nowhere', operator: 'exists' }, event)).toBe('$..nowhere found nothing');
  });

  it('shows non-string nodes as JSON, so 42 and "42" can be told apart', () => {
    expect(explainFilterFailure({ jsonPath: '$.data.count', operator: 'equals', value: '7' }, event)).toBe(
      '$.data.count equals "7" was false (found 42)',
    );
    expect(explainFilterFailure({ jsonPath: '$.data.countText', operator: 'equals', value: '7' }, event)).toBe(
      '$.data.countText equals "7" was false (found "42")',
    );
  });

  it('lists up to three nodes and counts the rest', () => {
    const e = { data: { xs: ['a', 'b', 'c', 'd', 'e'] } };
    expect(explainFilterFailure({ jsonPath: '$.data.xs[*]', operator: 'equals', value: 'z' }, e)).toBe(
      '$.data.xs[*] equals "z" was false (found "a", "b", "c", … (5 nodes))',
    );
  });

  it('explains the negative operators', () => {
    expect(explainFilterFailure({ jsonPath: '$.data.env', operator: 'not_equals', value: 'prod' }, event)).toBe(
      '$.data.env not_equals "prod" was false (found "prod")',
    );
    expect(explainFilterFailure({ jsonPath: '$.data.env', operator: 'not_exists' }, event)).toBe(
      '$.data.env not_exists was false (found "prod")',
    );
  });

  it('notes a node that is not a number for numeric operators', () => {
    expect(explainFilterFailure({ jsonPath: '$.data.env', operator: 'gt', value: '1' }, event)).toBe(
      '$.data.env gt "1" was false (found "prod", not a number)',
    );
  });

  it('truncates long values', () => {
    const e = { data: { text: 'x'.repeat(500) } };
    const reason = explainFilterFailure({ jsonPath: '$.data.text', operator: 'equals', value: 'y' }, e);
    expect(reason.length).toBeLessThan(160);
    expect(reason).toMatch(/^\$\.data\.text equals "y" was false \(found "x+…\)$/);
  });

  it('says when the filter actually passed', () => {
    expect(explainFilterFailure({ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }, event)).toBe(
      '$.data.env equals "prod" was true',
    );
  });

  it('says when the filter is invalid', () => {
    expect(explainFilterFailure({ jsonPath: '$.data.env', operator: 'like', value: 'x' }, event)).toMatch(
      /^filter is invalid: operator "like" is not supported/,
    );
  });
});

describe('FilterEvaluator and evaluateFilters', () => {
  const filters: EventFilter[] = [
    { jsonPath: '$.data.env', operator: 'equals', value: 'prod' },
    { jsonPath: '$.metadata.branch', operator: 'in', value: 'main, release' },
    { jsonPath: '$.data.count', operator: 'gte', value: '40' },
  ];

  it('passes when every filter passes', () => {
    expect(evaluateFilters(filters, event)).toEqual({ passed: true });
    expect(evaluateFilters([], event)).toEqual({ passed: true });
  });

  it('reports the first failing filter and why', () => {
    const failing = [...filters, { jsonPath: '$.data.region', operator: 'starts_with', value: 'us-' }];
    expect(evaluateFilters(failing, event)).toEqual({
      passed: false,
      index: 3,
      reason: '$.data.region starts_with "us-" was false (found "eu-west-1")',
    });
  });

  it('an invalid filter fails evaluation instead of throwing', () => {
    const evaluator = new FilterEvaluator();
    const bad = { jsonPath: '$[', operator: 'equals', value: 'x' };
    expect(evaluator.test(bad, event)).toBe(false);
    expect(evaluator.evaluate([bad], event)).toMatchObject({ passed: false, index: 0, reason: expect.stringMatching(/^filter is invalid: jsonPath/) });
    expect(() => evaluator.compile(bad)).toThrow(FilterError);
  });

  it('returns the same compiled filter for an equal filter while it is cached', () => {
    const evaluator = new FilterEvaluator({ cacheSize: 2 });
    const a = evaluator.compile({ jsonPath: '$.a', operator: 'exists' });
    expect(evaluator.compile({ jsonPath: '$.a', operator: 'exists' })).toBe(a);
  });

  it('keeps at most cacheSize filters, dropping the least recently used', () => {
    const evaluator = new FilterEvaluator({ cacheSize: 2 });
    const a = evaluator.compile({ jsonPath: '$.a', operator: 'exists' });
    const b = evaluator.compile({ jsonPath: '$.b', operator: 'exists' });
    evaluator.compile({ jsonPath: '$.a', operator: 'exists' });
    evaluator.compile({ jsonPath: '$.c', operator: 'exists' });
    expect(evaluator.compile({ jsonPath: '$.a', operator: 'exists' })).toBe(a);
    expect(evaluator.compile({ jsonPath: '$.b', operator: 'exists' })).not.toBe(b);
  });

  it('tells filters apart by value', () => {
    const evaluator = new FilterEvaluator();
    expect(evaluator.test({ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }, event)).toBe(true);
    expect(evaluator.test({ jsonPath: '$.data.env', operator: 'equals', value: 'dev' }, event)).toBe(false);
  });
});

describe('member-name paths (walked directly) agree with the general RFC 9535 query', () => {
  const events: unknown[] = [
    { data: { env: 'prod', 'a b': { c: 1 }, list: ['prod'] } },
    { data: { env: null } },
    { data: { env: 42 } },
    { data: ['prod'] },
    { data: 'prod' },
    { data: null },
    {},
    { data: { env: { nested: 'prod' } } },
    { data: Object.create(null) },
  ];
  const paths = ['$.data.env', "$.data['a b'].c", '$.data.list', '$.data', '$', '$.data.toString', '$.data.__proto__'];
  const textOf = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

  it.each(paths)('%s: exists and equals give what the general query gives', (path) => {
    const exists = compileFilter({ jsonPath: path, operator: 'exists' });
    const equals = compileFilter({ jsonPath: path, operator: 'equals', value: 'prod' });
    for (const event of events) {
      const nodes = jsonPathQuery(path, event as JSONValue).values();
      expect(exists.test(event), `${path} exists on ${JSON.stringify(event)}`).toBe(nodes.length > 0);
      expect(equals.test(event), `${path} equals on ${JSON.stringify(event)}`).toBe(nodes.some((n) => textOf(n) === 'prod'));
    }
  });
});
