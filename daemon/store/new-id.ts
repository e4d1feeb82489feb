// Ids for new rows: random version-4 UUIDs. Rows a write transaction's newKey groups (an event's
// sessions) take theirs from an IdSeries, whose ids share a prefix so the store can keep the rows as one pack.
import { randomUUID } from 'node:crypto';

/** A fresh random version-4 UUID (RFC 9562), lower case. */
export function newId(): string {
  return randomUUID();
}

/** Ids of one series share all but their last SERIES_SUFFIX_DIGITS hex digits, which count 0, 1, 2, ... */
export const SERIES_SUFFIX_DIGITS = 3;
export const SERIES_PREFIX_LENGTH = 36 - SERIES_SUFFIX_DIGITS;
/** members a series of ids can hold before the next id starts a new series */
export const MAX_SERIES_MEMBERS = 16 ** SERIES_SUFFIX_DIGITS;

/**
 * Fresh ids for rows stored together (an event's sessions): random version-4 UUIDs that share
 * their first 33 characters and count up in the last 3, the random part of the last group. The
 * store keeps such rows as one pack (see packed-rows.ts), found through the shared prefix, rather
 * than a row object and map entry each. Still 110 random bits an id, as unguessable as any.
 */
export class IdSeries {
  private prefix = '';
  private n = MAX_SERIES_MEMBERS;

  next(): string {
    if (this.n === MAX_SERIES_MEMBERS) {
      this.prefix = newId().slice(0, SERIES_PREFIX_LENGTH);
      this.n = 0;
    }
    return seriesMemberId(this.prefix, this.n++);
  }
}

/** The last SERIES_SUFFIX_DIGITS hex digits of member `n`, for every `n` a series can hold. */
const MEMBER_SUFFIXES: readonly string[] = Array.from({ length: MAX_SERIES_MEMBERS }, (_, n) => n.toString(16).padStart(SERIES_SUFFIX_DIGITS, '0'));

/** The key of member `n` of the series whose keys start with `prefix`. */
export function seriesMemberId(prefix: string, n: number): string {
  return prefix + MEMBER_SUFFIXES[n];
}
