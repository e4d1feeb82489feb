// Regular expressions in event filters: user patterns run against sender-controlled text, so they
// are matched by RE2 (re2js), whose time is linear in the text whatever the pattern. That is the
// guard against catastrophic backtracking CONTRACT §6 asks for: JavaScript's backtracking engine
// is never given a filter pattern, so (a+)+$ costs no more than a+ does. A check at save time
// could not be one: it cannot see every pattern that backtracks (\s*\s*\s*x and .*a.*b pass any
// static check and still take seconds on a few KiB), and it refuses valid patterns it cannot
// parse, such as RE2's inline flags (?i). Only a pattern RE2 cannot compile is refused.
import { RE2JS } from 're2js';
import { iRegexpToRe2 } from './i-regexp.js';

export const MAX_REGEX_LENGTH = 1000;

/** A compiled filter pattern: an unanchored search (use ^ and $ to anchor). */
export interface FilterRegex {
  test(text: string): boolean;
}

/**
 * Compiles a `matches` value, or returns why it cannot be used. JavaScript syntax is taken
 * (named groups, \u{...}, escaped punctuation); lookaround and backreferences are not, as no
 * linear-time engine has them.
 */
export function compileFilterRegex(pattern: string): FilterRegex | string {
  if (pattern.length > MAX_REGEX_LENGTH) return `is longer than ${MAX_REGEX_LENGTH} characters`;
  // translateRegExp turns a named backreference into literal text (`\k<n>` into `k<n>`): a pattern
  // that would match something else than it says is refused, as `\1` is.
  if (escapes(pattern).includes('k')) return 'is not a valid regular expression: backreferences (\\k<name>) are not supported';
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    return `is not a valid regular expression: ${err instanceof Error ? err.message : String(err)} (lookahead, lookbehind and backreferences are not supported)`;
  }
  return { test: (text) => re.test(text) };
}

/**
 * RFC 9535's match() and search() over I-Regexp (RFC 9485) patterns, on RE2. A pattern may come
 * from the event itself, so it is compiled here on each new value (a few are cached); one that is
 * not an I-Regexp (or that RE2 cannot compile, such as a repeat over 1000) makes the function
 * false, as the RFC says.
 */
export class IRegexpFunctions {
  readonly #cache = new Map<string, RE2JS | null>();

  /** Whether the whole text matches. */
  match(text: unknown, pattern: unknown): boolean {
    const re = typeof text === 'string' ? this.#compile(pattern) : null;
    return re !== null && re.matches(text as string);
  }

  /** Whether some part of the text matches. */
  search(text: unknown, pattern: unknown): boolean {
    const re = typeof text === 'string' ? this.#compile(pattern) : null;
    return re !== null && re.test(text as string);
  }

  #compile(pattern: unknown): RE2JS | null {
    if (typeof pattern !== 'string' || pattern.length > MAX_REGEX_LENGTH) return null;
    let re = this.#cache.get(pattern);
    if (re === undefined) {
      const translated = iRegexpToRe2(pattern);
      try {
        re = translated === null ? null : RE2JS.compile(translated);
      } catch {
        re = null;
      }
      if (this.#cache.size >= 64) this.#cache.clear();
      this.#cache.set(pattern, re);
    }
    return re;
  }
}

/** The characters escaped by a backslash in `pattern`, in order (`\\` escapes a backslash). */
function escapes(pattern: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] !== '\\') continue;
    out.push(pattern[i + 1] ?? '');
    i++;
  }
  return out;
}
