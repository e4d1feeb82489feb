// Checks on text from outside that JSON Schema cannot say.
import { invalid } from './errors.js';

// Half a UTF-16 surrogate pair is not Unicode text: JSON.parse and YAML both let `\ud800` escapes
// through, and strict JSON readers (jq) refuse the answer that carries one back.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const hasLoneSurrogate = (text: string): boolean => LONE_SURROGATE.test(text);

/** Whitespace and zero-width characters: text of only these shows nothing. */
const BLANK = /^[\s\u200B-\u200D\u2060\uFEFF]*$/;

export const isBlank = (text: string): boolean => BLANK.test(text);

/** C0 and C1 controls (newline and tab among them): none belongs in a one-line name. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);

/**
 * A name people read in lists (an automation's, a team's, a key's, a project's, an
 * environment's): something visible, on one line. `field` is how the error names it.
 */
export function requireOneLineName(name: string | undefined, field = 'body.name'): void {
  if (name === undefined) return;
  if (isBlank(name)) throw invalid(`${field} must not be blank`);
  if (hasControlCharacter(name)) throw invalid(`${field} must be one line of text, without control characters (newline, tab, NUL, ESC)`);
}

/** A prompt is what a session is asked to do: blanks ask nothing. */
export function requirePromptText(prompt: string): void {
  if (isBlank(prompt)) throw invalid('body.prompt must not be blank: it is what the session is asked to do');
}
