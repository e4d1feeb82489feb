// Terminals hand over keys typed faster than they are read (and tmux send-keys, and pastes) as
// one chunk: "ab\t\tcd\r". Ink splits escape sequences but not control characters, so such a
// chunk arrives as one "input". This splits it back into the keys a person pressed: each
// control character on its own, each run of text as one input. A pasted block's line breaks
// (\n, \r or \r\n) thus reach a multi-line field as Enter, which there starts a new line.
import { type Key } from 'ink';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function controlKey(c: string): [string, Key] {
  const code = c.charCodeAt(0);
  if (c === '\t') return ['', { ...NO_KEY, tab: true }];
  if (c === '\r' || c === '\n') return ['', { ...NO_KEY, return: true }];
  if (c === '\u007f') return ['', { ...NO_KEY, delete: true }];
  if (c === '\b') return ['', { ...NO_KEY, backspace: true }];
  if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }];
  return ['', { ...NO_KEY }];
}

/** The keys in one input event, in order; most events are one key and come back as they are. */
export function splitKeys(input: string, key: Key): [string, Key][] {
  if (input.length <= 1 || !CONTROL.test(input)) return [[input, key]];
  const out: [string, Key][] = [];
  let text = '';
  let previous = '';
  for (const c of input) {
    const crlf = previous === '\r' && c === '\n';
    previous = c;
    if (!CONTROL.test(c)) {
      text += c;
      continue;
    }
    // A pasted Windows line break is one line break (Enter sends \r alone, so no key is lost).
    if (crlf) continue;
    if (text) out.push([text, { ...NO_KEY }]);
    text = '';
    out.push(controlKey(c));
  }
  if (text) out.push([text, { ...NO_KEY }]);
  return out;
}
