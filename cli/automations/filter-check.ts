// Checking a filter compiles its JSONPath (json-p3) and its regular expression (re2js): libraries
// that take longer to load than all the rest of `svc automations create`. A command loads them
// only when the input it reads can hold a filter (a --filter flag or a file), not for every cron.
import type { EventFilter } from '../../shared/filters.js';

let check: ((filter: EventFilter) => string | null) | undefined;

/** Loads the filter checks: awaited before reading input that can hold a filter. */
export async function loadFilterCheck(): Promise<void> {
  check ??= (await import('../../shared/filters.js')).validateFilter;
}

/** Why the daemon would refuse `filter`, or null when it is valid. */
export function checkFilter(filter: EventFilter): string | null {
  if (!check) throw new Error('a filter was read before loadFilterCheck() was awaited');
  return check(filter);
}
