// Request bodies: JSON, with a bound on nesting. A body nested thousands of levels deep parses,
// but overflows the stack of every recursive walk after it (serialising it into the journal
// did), so it is refused up front.
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../shared/json-depth.js';
import { anywhere, hasNumberOutOfRange, OUT_OF_RANGE_MESSAGE } from '../../shared/json-numbers.js';
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../errors.js';
import { hasLoneSurrogate } from '../text-checks.js';

export const NOT_JSON_MESSAGE = 'request body must be JSON (Content-Type: application/json)';

/**
 * A body of any other content type: a blank one is no body (`curl -X POST -d ''` labels its empty
 * body form-encoded, fetch's `body: ''` labels it text), anything else is refused.
 */
export function parseNonJsonBody(text: string): undefined {
  if (/\S/.test(text)) throw new ApiError('VALIDATION_ERROR', NOT_JSON_MESSAGE);
  return undefined;
}

/**
 * Bodies are read as sent: a compressed one would be parsed as its compressed bytes, and fail as
 * "not JSON" when the cause is its Content-Encoding.
 */
export function refuseContentCoding(encoding: string | undefined): void {
  if (encoding === undefined || /^\s*(identity)?\s*$/i.test(encoding)) return;
  throw new ApiError('VALIDATION_ERROR', `request bodies are read as sent, not decompressed: send the body without Content-Encoding (got "${encoding.slice(0, 40)}")`);
}

/** The parsed body, or undefined for a blank one (`curl -X POST` with a JSON content type). */
export function parseJsonBody(text: string): unknown {
  // Searching for a non-blank character copies nothing, unlike trim().
  if (!/\S/.test(text)) return undefined;
  const value: unknown = JSON.parse(text);
  const unfit = unfitBody(text, value);
  if (unfit !== null) throw new ApiError('VALIDATION_ERROR', `request body ${unfit}`);
  return value;
}

/**
 * Why a parsed body (`value`, parsed from `text`) cannot be taken, or null: what every JSON body
 * is held to, however it came in (a provider's delivery too).
 */
export function unfitBody(text: string, value: unknown): string | null {
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) return `nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`;
  if (hasNumberOutOfRange(text, value)) return OUT_OF_RANGE_MESSAGE;
  // An unpaired \ud800-\udfff escape leaves half a character in a string: stored, it comes back
  // as JSON strict parsers (jq) refuse, and as U+FFFD in a process environment. Only a body with
  // such an escape can hold one, so most bodies are not walked.
  if (MAYBE_SURROGATE_ESCAPE.test(text) && anywhere(value, isLoneSurrogateText)) {
    return 'has a string with an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape), which is not Unicode text';
  }
  return null;
}

const MAYBE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

const isLoneSurrogateText = (v: unknown) => typeof v === 'string' && hasLoneSurrogate(v);

/**
 * Whether a route's body schema requires nothing, so that sending no body at all means `{}`
 * (CONTRACT §2: a key's `name` is optional, so `curl -X POST .../keys` creates one).
 */
export function bodyMayBeAbsent(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  const { type, required } = schema as { type?: unknown; required?: unknown };
  return type === 'object' && (!Array.isArray(required) || required.length === 0);
}

/** Whether a request announces a body: a Content-Length above 0, or chunked transfer. */
export function carriesBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length'];
  if (length !== undefined && !/^\s*0+\s*$/.test(length)) return true;
  return headers['transfer-encoding'] !== undefined;
}
