// Text measured in terminal columns, not string length: CJK and most emoji take two columns, a
// flag or an accented letter is several code units, and none may be cut in half. Used by the
// command output's tables and by the screens, which Ink lays out with the same string-width.
import { createRequire } from 'node:module';

// Made when first needed: a grapheme segmenter takes about 10 ms to set up (ICU data), which a
// command that cuts no text has no use for.
let graphemeSegmenter: Intl.Segmenter | undefined;
const graphemes = () => (graphemeSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));

type StringWidth = (text: string) => number;
let loadedStringWidth: StringWidth | undefined;

/**
 * string-width, loaded the first time text that is not plain ASCII is measured: building its
 * Unicode property patterns takes about 25 ms, a sixth of a whole `svc events send`, whose
 * tables are ids and ASCII words. (require() of an ES module: Node 20.19 and later.)
 */
function stringWidth(text: string): number {
  loadedStringWidth ??= (createRequire(import.meta.url)('string-width') as { default: StringWidth }).default;
  return loadedStringWidth(text);
}

/** Printable ASCII only: one column a character, as string-width counts it too. */
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** Columns `text` takes on a terminal. */
export const textWidth = (text: string): number => (PLAIN_ASCII.test(text) ? text.length : stringWidth(text));

/** `text` cut to at most `width` columns, ending in … when cut, never inside a character. */
export function truncateToWidth(text: string, width: number): string {
  if (width <= 0) return '';
  if (textWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes().segment(text)) {
    const w = textWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}

/** `text` padded with spaces to `width` columns (never cut). */
export function padEndToWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - textWidth(text)));
}

export function padStartToWidth(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - textWidth(text))) + text;
}

/** The characters (grapheme clusters) of `text`, with their widths. */
export function* charactersOf(text: string): Generator<{ segment: string; index: number; width: number }> {
  for (const { segment, index } of graphemes().segment(text)) yield { segment, index, width: textWidth(segment) };
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

