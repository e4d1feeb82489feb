// What a screen over a polled list says of it before and after it loads: in its frame's corner and
// where an empty table's rows would be. One wording for every list screen.
import { formatClock } from './format.js';
import type { Polled } from './hooks.js';

/** The frame's corner: the load's state until the first data, then `loaded` and when it was read. */
export function pollSummary(poll: Pick<Polled<unknown>, 'data' | 'error' | 'updatedAt'>, loaded: string, opts: { updatedWord?: boolean } = {}): string {
  if (!poll.data) return poll.error ? 'not loaded' : 'loading…';
  if (!poll.updatedAt) return loaded;
  return `${loaded} · ${opts.updatedWord ? 'updated ' : ''}${formatClock(poll.updatedAt)}`;
}

/** An empty table's text: the load's state until the first data, then `none`. */
export function pollEmpty(poll: Pick<Polled<unknown>, 'data' | 'error'>, none: string): string {
  if (!poll.data) return poll.error ? 'not loaded: see below' : 'loading…';
  return none;
}
