// Ids for new rows: random version-4 UUIDs, as crypto.randomUUID makes them, built as one flat
// string. randomUUID joins some twenty pieces, and V8 keeps such a result as a tree of pieces
// that is flattened (copied) the first time it is hashed as a Map key or serialised. A matched
// event stores ten sessions under fresh ids: inserting ids made here into a table of rows costs
// about half what randomUUID's do (measured: 0.7 against 1.0-1.45 µs each), with less garbage.
import { randomFillSync } from 'node:crypto';

/** ids' worth of entropy fetched at once (randomUUID caches 128) */
const BATCH = 256;
const entropy = Buffer.alloc(16 * BATCH);
let next = BATCH;
const text = Buffer.alloc(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

export function newId(): string {
  if (next === BATCH) {
    randomFillSync(entropy);
    next = 0;
  }
  const at = 16 * next++;
  let j = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[j++] = 0x2d; // '-'
    let byte = entropy[at + i];
    if (i === 6) byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 9562 variant
    text[j++] = HEX[byte >> 4];
    text[j++] = HEX[byte & 0x0f];
  }
  return text.toString('latin1', 0, 36);
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

/**
 * One IdRun per team: the rows a batch stores for several teams (a scheduler batch, the unmatched
 * events of one turn) form one run per team, and no team's ids look like another's.
 */
export class TeamIdRuns {
  private readonly runs = new Map<string, IdRun>();

  next(teamId: string): string {
    let run = this.runs.get(teamId);
    if (run === undefined) this.runs.set(teamId, (run = new IdRun()));
    return run.next();
  }
}

/** The last RUN_SUFFIX_DIGITS hex digits of member `n`, for every `n` a run can hold. */
const MEMBER_SUFFIXES: readonly string[] = Array.from({ length: MAX_RUN_MEMBERS }, (_, n) => n.toString(16).padStart(RUN_SUFFIX_DIGITS, '0'));

/**
 * The key of member `n` of the run whose keys start with `prefix`. Joined, not built in the id
 * buffer: V8 flattens the two pieces when the key is first hashed, which costs less than a round
 * trip through a Buffer (measured: 0.19-0.25 against 0.31-0.40 µs a key put in a Map).
 */
export function runMemberId(prefix: string, n: number): string {
  return prefix + MEMBER_SUFFIXES[n];
}
