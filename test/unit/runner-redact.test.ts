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
