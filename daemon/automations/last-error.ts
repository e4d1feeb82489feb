// An automation's note (`last_error`, CONTRACT §4): failed runs (sessions/automation-health.ts),
// what the scheduler skipped (scheduler/automation-note.ts) and one-offs passed while paused
// (automations/service.ts) all write it through here, so it has one bound and always its time.
import type { AutomationRow } from '../store/tables.js';

/** The longest note stored: an error can be a whole stack or a runner's output. */
export const MAX_ERROR_CHARS = 2000;

export const truncateError = (s: string) => (s.length > MAX_ERROR_CHARS ? s.slice(0, MAX_ERROR_CHARS - 1) + '…' : s);

/** The fields that set the note, for an update, an increment or a row being written. */
export const lastErrorFields = (text: string, at: string): Pick<AutomationRow, 'last_error' | 'last_error_at'> => ({
  last_error: truncateError(text),
  last_error_at: at,
});
