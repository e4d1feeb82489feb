// hasNumberOutOfRange: a quick look at the text decides whether the parsed value is walked; it
// must never let an overflowing number through, wherever JSON puts one.
import { describe, expect, it } from 'vitest';
import { hasNumberOutOfRange } from '../../shared/json-numbers.js';

const check = (text: string) => hasNumberOutOfRange(text, JSON.parse(text));

describe('hasNumberOutOfRange', () => {
  it('finds an overflowing number in every place JSON allows one', () => {
    for (const text of ['1e400', ' -1E+0400', '[1e400]', '[1, 2.5e999]', '[ 1,\n\t-1e400 ]', '{"a":1e400}', '{"a" : -1.0E+400}', '{"a":{"b":[0,1e309]}}', `{"n":${'9'.repeat(400)}}`, `[${'9'.repeat(309)}]`]) {
      expect(check(text), text).toBe(true);
    }
  });

  it('passes numbers a double holds, and exponent-like text inside strings', () => {
    for (const text of ['1.7e308', '{"a":1e-400}', '{"a":1e100}', '{"sha":"3f786850e387550fdab836ed7e6dc881de23001b"}', '{"t":"1e999 is text"}', '{"1e400":"key"}']) {
      expect(check(text), text).toBe(false);
    }
  });
});
