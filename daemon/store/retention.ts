// Retention, applied at compaction: old events, and finished sessions with what hangs off them.
import type { MemoryTables } from './memory-tables.js';
import type { SessionStatus } from './tables.js';

const FINAL: ReadonlySet<SessionStatus> = new Set(['completed', 'failed', 'cancelled']);

export interface RetentionResult {
  events: number;
  sessions: number;
  messages: number;
  dispatches: number;
}

const olderThan = (iso: string | null | undefined, cutoffMs: number) => {
  if (!iso) return false;
  const t = Date.parse(iso);
  // A date that does not parse is kept: dropping data needs a reason.
  return Number.isFinite(t) && t < cutoffMs;
};

/** Drops from `mem` what is older than `cutoff`; running or queued sessions are never dropped. */
export function applyRetention(mem: MemoryTables, cutoff: Date): RetentionResult {
  const cutoffMs = cutoff.getTime();
  const events = mem.prune('events', (e) => olderThan(e.received_at, cutoffMs));
  const gone = new Set<string>();
  const sessions = mem.prune('sessions', (s) => {
    const drop = FINAL.has(s.status) && olderThan(s.completed_at ?? s.updated_at, cutoffMs);
    if (drop) gone.add(s.session_id);
    return drop;
  });
  let messages = 0;
  let dispatches = 0;
  if (gone.size > 0) {
    messages = mem.prune('messages', (m) => gone.has(m.session_id));
    dispatches = mem.prune('dispatches', (d) => gone.has(d.session_id));
  }
  return { events, sessions, messages, dispatches };
}
