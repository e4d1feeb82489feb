// Whether a schedule trigger still stands where a slot of it was planned: its `next_run_at` the
// same instant. The session's write checks it before starting the slot, and the run record after
// a slot that did not start: a schedule changed in between moved it on.

/** True while `nextRunAt` is the instant `dueAt` (both ISO times, in whatever form the store gave). */
export function stillDueAt(nextRunAt: string | null, dueAt: string): boolean {
  return nextRunAt !== null && Date.parse(nextRunAt) === Date.parse(dueAt);
}
