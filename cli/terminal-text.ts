// Text measured in terminal columns, not string length: CJK and most emoji take two columns, a
// flag or an accented letter is several code units, and none may be cut in half. Used by the
// command output's tables and by the screens, which Ink lays out with the same string-width.
import stringWidth from 'string-width';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Columns `text` takes on a terminal. */
export const textWidth = (text: string): number => stringWidth(text);

/** `text` cut to at most `width` columns, ending in … when cut, never inside a character. */
export function truncateToWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (stringWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const w = stringWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` columns (never cut). */
export function padEndToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}

export function padStartToWidth(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - stringWidth(text))) + text;
}

/** The characters (grapheme clusters) of `text`, with their widths. */
export function* charactersOf(text: string): Generator<{ segment: string; index: number; width: number }> {
  for (const { segment, index } of graphemes.segment(text)) yield { segment, index, width: stringWidth(segment) };
}

/**
 * Control characters (but newline and tab) and bidi overrides, which text from outside — a
 * repository's SKILL.md, an event's fields, a runner's answer — could use to move the cursor,
 * retitle the window, clear the screen, overwrite a line (\r) or reorder what a reader sees.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every unsafe character shown as an escape (`\x1b`, `\u202e`), so it prints inert. */
export function inert(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

