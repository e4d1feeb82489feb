// I-Regexp (RFC 9485): what the grammar takes, how it reads in RE2, and what it refuses.
import { RE2JS } from 're2js';
import { describe, expect, it } from 'vitest';
import { iRegexpToRe2 } from '../../shared/i-regexp.js';
import { IRegexpFunctions } from '../../shared/filter-regex.js';

describe('iRegexpToRe2', () => {
  it('takes the grammar and writes it in RE2 syntax', () => {
    const cases: [string, string][] = [
      ['', ''],
      ['abc', 'abc'],
      ['a|b|', 'a|b|'],
      ['(ab)+c?d*', '(?:ab)+c?d*'],
      ['a{2}b{2,}c{2,5}', 'a{2}b{2,}c{2,5}'],
      ['.', '[^\\n\\r]'],
      ['^a$', '\\^a\\$'],
      ['[a-z0-9_]', '[a-z0-9_]'],
      ['[^-a]', '[^\\-a]'],
      ['[a-]', '[a\\-]'],
      ['[a^]', '[a\\^]'],
      ['[.$]', '[.$]'],
      ['\\p{L}\\p{Lu}\\P{Nd}[\\p{Zs}x]', '\\p{L}\\p{Lu}\\P{Nd}[\\p{Zs}x]'],
      ['\\.\\*\\\\\\n\\t\\{\\}\\|\\^\\-', '\\.\\*\\\\\\n\\t\\{\\}\\|\\^\\-'],
      ['[\\n-\\r]', '[\\n-\\r]'],
      ['🚀+é', '🚀+é'],
      ['a,b-c/d:e=f<g>h!i#j&k~l', 'a,b-c/d:e=f<g>h!i#j&k~l'],
    ];
    for (const [pattern, re2] of cases) expect(iRegexpToRe2(pattern), pattern).toBe(re2);
  });

  it('refuses what is not I-Regexp: other dialects\' escapes, groups, flags, lazy and stacked quantifiers', () => {
    for (const pattern of [
      '\\d', '\\w', '\\s', '\\b', '\\1', '\\k<n>', '\\u0041', '\\x41', '\\p{Greek}', '\\p{Lx}', '\\p{L',
      '(?:a)', '(?i)a', '(?=a)', '(?<n>a)', 'a*?', 'a+?', 'a**', '*a', 'a{', 'a{,2}', 'a{x}', '{2}',
      '(a', 'a)', '[a', '[]', '[]a]', '[a-b-c]', '[z-a]', '[[:alpha:]]', 'a]', 'a}', '\\', '[\\d]',
    ]) {
      expect(iRegexpToRe2(pattern), pattern).toBeNull();
    }
  });

  it('writes patterns RE2 compiles', () => {
    for (const pattern of ['(a|b)*c', '[^\\]]+', '\\p{N}{1,3}', '^$', 'x{0}']) expect(() => RE2JS.compile(iRegexpToRe2(pattern)!), pattern).not.toThrow();
  });
});

describe('match() and search() over I-Regexp', () => {
  const fns = new IRegexpFunctions();
  it('reads ^ and $ as characters, and . as anything but a line break', () => {
    expect(fns.search('price: $5', '$5')).toBe(true);
    expect(fns.search('price: $5', '\\$5')).toBe(false); // $ is no metacharacter, so \$ is no escape
    expect(fns.match('a^b', 'a^b')).toBe(true);
    expect(fns.match('abc', '^abc')).toBe(false);
    expect(fns.match('a\rb', 'a.b')).toBe(false);
    expect(fns.match('a\nb', 'a.b')).toBe(false);
    expect(fns.match('a🚀b', 'a.b')).toBe(true);
  });

  it('is false for a pattern that is not I-Regexp, whatever another dialect would make of it', () => {
    expect(fns.search('a1', '\\d')).toBe(false);
    expect(fns.match('ABC', '(?i)abc')).toBe(false);
    expect(fns.search('a1', '[0-9]')).toBe(true);
    expect(fns.match('Ünïcode', '\\p{Lu}\\p{Ll}+')).toBe(true);
  });
});
