// Exact comparison of decimal numbers written as text. Filters compare "9007199254740993" and
// "0.30000000000000001" as written: read as doubles, both would round to a neighbour and compare
// equal to it (docs/api.md asks senders to send 64-bit ids as strings for this reason).

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** sign × 0.digits × 10^exponent, digits without leading or trailing zeros ('' for zero) */
export interface Decimal {
  negative: boolean;
  digits: string;
  exponent: number;
}

/** The decimal `text` spells (`42`, `-1.5`, `1e3`, `.5`), or null when it is not one. */
export function parseDecimal(text: string): Decimal | null {
  const m = DECIMAL.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const [, sign, whole, fraction = '', exp = '0'] = m;
  const exponent = Number(exp);
  if (!Number.isSafeInteger(exponent)) return null;
  const all = whole + fraction;
  const lead = all.length - all.replace(/^0+/, '').length;
  const digits = all.slice(lead).replace(/0+$/, '');
  // 0.digits × 10^(whole digits left of the point, less the leading zeros dropped)
  return { negative: sign === '-' && digits !== '', digits, exponent: digits === '' ? 0 : whole.length - lead + exponent };
}

/** Negative, zero or positive as a is less than, equal to or greater than b. */
export function compareDecimals(a: Decimal, b: Decimal): number {
  if (a.negative !== b.negative) return a.negative ? -1 : 1;
  const sign = a.negative ? -1 : 1;
  return sign * compareMagnitudes(a, b);
}

function compareMagnitudes(a: Decimal, b: Decimal): number {
  if (a.digits === '' || b.digits === '') return (a.digits === '' ? 0 : 1) - (b.digits === '' ? 0 : 1);
  if (a.exponent !== b.exponent) return a.exponent < b.exponent ? -1 : 1;
  const width = Math.max(a.digits.length, b.digits.length);
  const x = a.digits.padEnd(width, '0');
  const y = b.digits.padEnd(width, '0');
  return x < y ? -1 : x > y ? 1 : 0;
}
