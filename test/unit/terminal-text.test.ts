// Terminal columns: plain ASCII is measured without string-width (which is loaded only for other
// text), so the two must agree on it; CJK, emoji, marks and escapes go through string-width.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { charactersOf, padEndToWidth, padStartToWidth, textWidth, truncateToWidth } from '../../cli/terminal-text.js';

describe('textWidth', () => {
  it('counts printable ASCII one column a character, as string-width does', () => {
    const ascii = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    expect(textWidth(ascii)).toBe(ascii.length);
    expect(textWidth(ascii)).toBe(stringWidth(ascii));
    expect(textWidth('')).toBe(0);
  });

  it('measures other text with string-width', () => {
    for (const text of ['日本語', 'e\u0301t\u00e9', '👍🏽 ok', '🇫🇷', 'tab\there', '\u001b[31mred\u001b[0m', 'a\u200bb']) {
      expect(textWidth(text)).toBe(stringWidth(text));
    }
    expect(textWidth('日本語')).toBe(6);
  });
});

describe('cutting and padding to columns', () => {
  it('cuts wide text between characters and pads by columns', () => {
    expect(truncateToWidth('日本語テキスト', 5)).toBe('日本…');
    expect(truncateToWidth('plain', 10)).toBe('plain');
    expect(truncateToWidth('plain text', 6)).toBe('plain…');
    expect(padEndToWidth('日本', 6)).toBe('日本  ');
    expect(padStartToWidth('ab', 4)).toBe('  ab');
    expect([...charactersOf('a日')]).toEqual([
      { segment: 'a', index: 0, width: 1 },
      { segment: '日', index: 1, width: 2 },
    ]);
  });
});
