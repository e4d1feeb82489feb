// Retention on PostgreSQL: the same rule as the JSON-file store (finished sessions and their
// messages, events no kept session refers to, and connections' deliveries, older than the cutoff), deleted in small
// batches, each its own short transaction, so no lock is held for long.
import type { Queryable } from './transactions.js';

const BATCH = 1000;

const SESSIONS = `
WITH gone AS (
  DELETE FROM sessions WHERE session_id IN (
    SELECT session_id FROM sessions
    WHERE status IN ('completed', 'failed', 'cancelled') AND coalesce(completed_at, updated_at) < $1
    LIMIT ${BATCH}
  ) RETURNING session_id
), messages_gone AS (
  DELETE FROM messages WHERE session_id IN (SELECT session_id FROM gone) RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int AS sessions, (SELECT count(*) FROM messages_gone)::int AS messages`;

const EVENTS = `
WITH gone AS (
  DELETE FROM events WHERE id IN (
    SELECT e.id FROM events e
    WHERE e.received_at < $1 AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.event_row_id = e.id)
    LIMIT ${BATCH}
  ) RETURNING 1
)
SELECT count(*)::int AS events FROM gone`;

const DELIVERIES = `
WITH gone AS (
  DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE received_at < $1 LIMIT ${BATCH}) RETURNING 1
)
SELECT count(*)::int AS deliveries FROM gone`;

export interface PgRetentionResult {
  events: number;
  deliveries: number;
  sessions: number;
  messages: number;
}

export async function applyPgRetention(db: Queryable, cutoff: Date): Promise<PgRetentionResult> {
  const result = { events: 0, deliveries: 0, sessions: 0, messages: 0 };
  const at = cutoff.toISOString();
  for (;;) {
    const { rows } = await db.query({ name: 'svc_retention_sessions', text: SESSIONS, values: [at] });
    result.sessions += rows[0].sessions;
    result.messages += rows[0].messages;
    if (rows[0].sessions < BATCH) break;
  }
  for (;;) {
    const { rows } = await db.query({ name: 'svc_retention_events', text: EVENTS, values: [at] });
    result.events += rows[0].events;
    if (rows[0].events < BATCH) break;
  }
  for (;;) {
    const { rows } = await db.query({ name: 'svc_retention_deliveries', text: DELIVERIES, values: [at] });
    result.deliveries += rows[0].deliveries;
    if (rows[0].deliveries < BATCH) break;
  }
  return result;
}
