// Ids for new rows: random version-4 UUIDs. Rows a write transaction's newKey groups (an event's
// sessions) take theirs from an IdRun, whose ids share a prefix so the store can keep the rows as one run.
import { randomUUID } from 'node:crypto';

/** A fresh random version-4 UUID (RFC 9562), lower case. */
export function newId(): string {
  return randomUUID();
}

/** Ids of one run share all but their last RUN_SUFFIX_DIGITS hex digits, which count 0, 1, 2, ... */
export const RUN_SUFFIX_DIGITS = 3;
export const RUN_PREFIX_LENGTH = 36 - RUN_SUFFIX_DIGITS;
/** members a run of ids can hold before the next id starts a new run */
export const MAX_RUN_MEMBERS = 16 ** RUN_SUFFIX_DIGITS;

/**
 * Fresh ids for rows stored together (an event's sessions): random version-4 UUIDs that share
 * their first 33 characters and count up in the last 3, the random part of the last group. The
 * store keeps such rows as one run (see row-runs.ts), found through the shared prefix, rather
 * than a row object and map entry each. Still 110 random bits an id, as unguessable as any.
 */
export class IdRun {
  private prefix = '';
  private n = MAX_RUN_MEMBERS;

  next(): string {
    if (this.n === MAX_RUN_MEMBERS) {
      this.prefix = newId().slice(0, RUN_PREFIX_LENGTH);
      this.n = 0;
    }
    return runMemberId(this.prefix, this.n++);
  }
}

/** The last RUN_SUFFIX_DIGITS hex digits of member `n`, for every `n` a run can hold. */
const MEMBER_SUFFIXES: readonly string[] = Array.from({ length: MAX_RUN_MEMBERS }, (_, n) => n.toString(16).padStart(RUN_SUFFIX_DIGITS, '0'));

/** The key of member `n` of the run whose keys start with `prefix`. */
export function runMemberId(prefix: string, n: number): string {
  return prefix + MEMBER_SUFFIXES[n];
}
