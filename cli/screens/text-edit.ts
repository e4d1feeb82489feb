// Editing a text field: pure functions over (value, cursor), so keys behave the same in every
// form and can be tested without a terminal.
import { charactersOf } from '../terminal-text.js';
import { type Key } from 'ink';

export interface EditState {
  value: string;
  /** index into value, 0..value.length */
  cursor: number;
}

/** What a key asks of the form around the field, beyond changing its text. */
export type EditAction = 'enter' | 'up' | 'down' | null;

export interface EditResult {
  state: EditState;
  action: EditAction;
  /** the key was used by the field (the form should not act on it too) */
  handled: boolean;
}

export const editState = (value = ''): EditState => ({ value, cursor: value.length });

function lineStart(value: string, cursor: number): number {
  return value.lastIndexOf('\n', cursor - 1) + 1;
}

function lineEnd(value: string, cursor: number): number {
  const i = value.indexOf('\n', cursor);
  return i === -1 ? value.length : i;
}

/**
 * Where the character before or after `cursor` starts: a character may be several UTF-16 units
 * (an emoji, a flag, a letter with a combining accent), and is never split by a key.
 */
function boundary(value: string, cursor: number, dir: -1 | 1): number {
  if (dir === -1 && cursor <= 0) return 0;
  if (dir === 1 && cursor >= value.length) return value.length;
  // Only the line around the cursor is segmented: a long prompt stays cheap to edit.
  const from = lineStart(value, cursor);
  const to = lineEnd(value, cursor);
  // the line break itself
  if (dir === -1 && cursor === from) return cursor - 1;
  if (dir === 1 && cursor === to) return cursor + 1;
  for (const { index, segment } of charactersOf(value.slice(from, to))) {
    const start = from + index;
    const end = start + segment.length;
    if (dir === 1 && end > cursor) return end;
    if (dir === -1 && end >= cursor) return start;
  }
  return cursor;
}

export function insertText(s: EditState, text: string): EditState {
  return { value: s.value.slice(0, s.cursor) + text + s.value.slice(s.cursor), cursor: s.cursor + text.length };
}

/** Moves the cursor one line up or down, keeping its column; null at the first or last line. */
export function moveLine(s: EditState, dir: -1 | 1): EditState | null {
  const start = lineStart(s.value, s.cursor);
  const column = s.cursor - start;
  if (dir === -1) {
    if (start === 0) return null;
    const prevStart = lineStart(s.value, start - 1);
    return { value: s.value, cursor: Math.min(prevStart + column, start - 1) };
  }
  const end = lineEnd(s.value, s.cursor);
  if (end === s.value.length) return null;
  const nextEnd = lineEnd(s.value, end + 1);
  return { value: s.value, cursor: Math.min(end + 1 + column, nextEnd) };
}

// Text only: control characters arrive as keys of their own (see keys.ts).
// eslint-disable-next-line no-control-regex
const PRINTABLE = /^[^\u0000-\u001f\u007f]*$/;

/** Applies one key to a field. `multiline` fields take Enter as a new line. */
export function applyKey(s: EditState, input: string, key: Key, options: { multiline?: boolean } = {}): EditResult {
  const multiline = options.multiline ?? false;
  const done = (state: EditState, action: EditAction = null): EditResult => ({ state, action, handled: true });
  const pass = (action: EditAction = null): EditResult => ({ state: s, action, handled: false });

  if (key.return) return multiline ? done(insertText(s, '\n')) : pass('enter');
  if (key.upArrow) {
    const moved = multiline ? moveLine(s, -1) : null;
    return moved ? done(moved) : pass('up');
  }
  if (key.downArrow) {
    const moved = multiline ? moveLine(s, 1) : null;
    return moved ? done(moved) : pass('down');
  }
  if (key.leftArrow) return done({ value: s.value, cursor: boundary(s.value, s.cursor, -1) });
  if (key.rightArrow) return done({ value: s.value, cursor: boundary(s.value, s.cursor, 1) });
  if (key.home || (key.ctrl && input === 'a')) return done({ value: s.value, cursor: lineStart(s.value, s.cursor) });
  if (key.end || (key.ctrl && input === 'e')) return done({ value: s.value, cursor: lineEnd(s.value, s.cursor) });
  // Most terminals send DEL (0x7f) for the Backspace key, which Ink reports as `delete`.
  if (key.backspace || key.delete) {
    if (s.cursor === 0) return done(s);
    const start = boundary(s.value, s.cursor, -1);
    return done({ value: s.value.slice(0, start) + s.value.slice(s.cursor), cursor: start });
  }
  if (key.ctrl && input === 'u') {
    const start = lineStart(s.value, s.cursor);
    return done({ value: s.value.slice(0, start) + s.value.slice(s.cursor), cursor: start });
  }
  if (key.ctrl || key.meta || key.tab || key.escape || input === '') return pass();
  if (!PRINTABLE.test(input)) return pass();
  return done(insertText(s, input));
}
