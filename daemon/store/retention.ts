// Retention, applied at compaction: old events, and finished sessions with what hangs off them;
// connections' deliveries by the same cutoff as the events (receipts) they became.
import type { MemoryTables } from './memory-tables.js';
import type { SessionStatus } from './tables.js';

const FINAL: ReadonlySet<SessionStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface RetentionResult {
  events: number;
  deliveries: number;
  sessions: number;
  messages: number;
}

/**
 * Compaction runs this over every event and session while writes wait, so timestamps in the form
 * toISOString() writes are compared as strings (same order, no parsing); others are parsed.
 */
function olderThan(iso: string | null | undefined, cutoff: { ms: number; iso: string }): boolean {
  if (!iso) return false;
  if (iso.length === 24 && iso[10] === 'T' && iso[23] === 'Z' && iso[4] === '-') return iso < cutoff.iso;
  const t = Date.parse(iso);
  // A date that does not parse is kept: dropping data needs a reason.
  return Number.isFinite(t) && t < cutoff.ms;
}

/**
 * Drops from `mem` what is older than `cutoff`; running or queued sessions are never dropped, nor
 * the event a kept session was started by (sessions hold a reference to it, not a copy).
 */
export function applyRetention(mem: MemoryTables, cutoff: Date): RetentionResult {
  const cutoffMs = { ms: cutoff.getTime(), iso: cutoff.toISOString() };
  const sessions = mem.prune(
    'sessions',
    (s) => FINAL.has(s.status) && olderThan(s.completed_at ?? s.updated_at, cutoffMs),
    ['status', 'completed_at', 'updated_at'],
  );
  // The events sessions still refer to, from the index rather than a pass over every session.
  const referenced = new Set(mem.table('sessions').indexedValues('event_row_id'));
  const events = mem.prune('events', (e) => olderThan(e.received_at, cutoffMs) && !referenced.has(e.id)).length;
  const gone = new Set(sessions);
  const messages = gone.size > 0 ? mem.prune('messages', (m) => gone.has(m.session_id)).length : 0;
  const deliveries = mem.prune('deliveries', (d) => olderThan(d.received_at, cutoffMs)).length;
  return { events, deliveries, sessions: sessions.length, messages };
}
