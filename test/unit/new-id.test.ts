import { describe, expect, it } from 'vitest';
import { newId } from '../../daemon/store/new-id.js';

describe('newId', () => {
  it('makes version-4 UUIDs (RFC 9562 variant), lower case, all different', () => {
    const ids = Array.from({ length: 2000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('spreads its bits: every hex digit appears in every free position over many ids', () => {
    const seen = Array.from({ length: 36 }, () => new Set<string>());
    for (let n = 0; n < 3000; n++) [...newId()].forEach((c, i) => seen[i].add(c));
    const fixed = new Map([[8, 1], [13, 1], [14, 1], [18, 1], [19, 4], [23, 1]]); // hyphens, version, variant
    seen.forEach((digits, i) => expect(digits.size, `position ${i}`).toBe(fixed.get(i) ?? 16));
  });
});
