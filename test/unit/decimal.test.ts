import { describe, expect, it } from 'vitest';
import { compareDecimals, parseDecimal } from '../../shared/decimal.js';

const cmp = (a: string, b: string) => Math.sign(compareDecimals(parseDecimal(a)!, parseDecimal(b)!));

describe('decimal text compared exactly', () => {
  it.each([
    ['9007199254740993', '9007199254740992', 1],
    ['1234567890123456790', '1234567890123456789', 1],
    ['0.3', '0.30000000000000001', -1],
    ['42', '42.000', 0],
    ['-0', '0', 0],
    ['0.0', '-0e5', 0],
    ['1e3', '999.999', 1],
    ['1E3', '1000', 0],
    ['.5', '0.50', 0],
    ['5.', '5', 0],
    ['-2', '-10', 1],
    ['-1.5', '1.5', -1],
    ['007', '7', 0],
    ['1e-400', '0', 1],
    ['-1e400', '-1e399', -1],
    ['+3', '3', 0],
  ])('%s against %s: %i', (a, b, order) => {
    expect(cmp(a, b)).toBe(order);
    expect(cmp(b, a)).toBe(-order || 0);
  });

  it.each(['', '.', 'e5', '1e', '0x10', 'true', '1 2', '--1', '1.2.3', 'NaN', 'Infinity', '1e99999999999999999999'])('%j is no decimal', (text) => {
    expect(parseDecimal(text)).toBeNull();
  });
});
