import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../daemon/runner/redact.js';

describe('Redactor (env var values in runner output)', () => {
  it('masks each value whole, longest first, and values without their surrounding whitespace', () => {
    const r = new Redactor(['abcd', 'abcdefgh', '  spaced-secret\n', 'on']);
    expect(r.mask('x abcdefgh y abcd z')).toBe(`x ${REDACTED} y ${REDACTED} z`);
    expect(r.mask('got spaced-secret.')).toBe(`got ${REDACTED}.`);
    // too short to mask usefully
    expect(r.mask('turn it on')).toBe('turn it on');
  });

  it('masks each line of a multi-line value on its own, whatever the line endings it is printed with', () => {
    const r = new Redactor(['first-line-secret\nsecond-line-secret\nok']);
    expect(r.mask('V=first-line-secret')).toBe(`V=${REDACTED}`);
    expect(r.mask('tail: second-line-secret!')).toBe(`tail: ${REDACTED}!`);
    expect(r.mask('first-line-secret\r\nsecond-line-secret\r\nok')).toBe(`${REDACTED}\r\n${REDACTED}\r\nok`);
    expect(r.mask('first-line-secret\nsecond-line-secret\nok')).toBe(REDACTED);
  });

  it('cuts a head where no value crosses the cut, and says a value was there', () => {
    const r = new Redactor(['SECRET-VALUE']);
    const text = 'a'.repeat(10) + 'SECRET-VALUE' + 'b'.repeat(10);
    for (let max = 0; max <= text.length; max++) {
      const head = r.head(text, max);
      expect(head).not.toMatch(/SECRET|ECRET-|-VALUE|VALUE|SECR/);
      if (max > 10 && max < 22) expect(head).toBe('a'.repeat(10) + REDACTED);
    }
    expect(r.head(text, 100)).toBe(`${'a'.repeat(10)}${REDACTED}${'b'.repeat(10)}`);
  });

  it('cuts a tail where no value crosses the cut, keeping a crossing value whole (and masked)', () => {
    const r = new Redactor(['SECRET-VALUE']);
    const text = 'a'.repeat(10) + 'SECRET-VALUE' + 'b'.repeat(10);
    for (let max = 0; max <= text.length; max++) {
      const tail = r.tail(text, max);
      expect(tail).not.toMatch(/SECRET|ECRET-|-VALUE|VALUE|SECR/);
      if (max > 10 && max < 22) expect(tail).toBe(REDACTED + 'b'.repeat(10));
    }
  });

  it('counts the cut in UTF-8 bytes and never leaves half a character', () => {
    const r = new Redactor([]);
    expect(r.head('ééé', 3)).toBe('é');
    expect(r.tail('ééé', 3)).toBe('é');
    expect(r.margin).toBe(0);
    expect(new Redactor(['ü-secret']).margin).toBe(9);
  });
});
