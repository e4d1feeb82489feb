// Row builders the store tests share.
import type { EventRow, MessageRow, SessionRow, TeamRow } from '../../../daemon/store/tables.js';

export function team(id: string, extra: Partial<TeamRow> = {}): TeamRow {
  return { id, slug: id, name: `Team ${id}`, execution_admitted: true, created_at: '2024-01-01T00:00:00.000Z', updated_at: '2024-01-01T00:00:00.000Z', ...extra };
}

export function session(id: string, extra: Partial<SessionRow> = {}): SessionRow {
  const at = '2024-01-01T00:00:00.000Z';
  return {
    session_id: id,
    team_id: 'team-1',
    kind: 'task',
    persona: 'default',
    status: 'queued',
    prompt: `prompt for ${id}`,
    parent_session_id: null,
    automation_id: null,
    trigger_id: null,
    idempotency_key: null,
    environment_id: null,
    event_row_id: null,
    created_at: at,
    updated_at: at,
    started_at: null,
    completed_at: null,
    last_error: null,
    ...extra,
  };
}

export function message(id: string, sessionId: string, extra: Partial<MessageRow> = {}): MessageRow {
  return { id, session_id: sessionId, role: 'user', content: `message ${id}`, created_at: '2024-01-01T00:00:00.000Z', ...extra };
}

export function event(id: string, receivedAt: string): EventRow {
  return {
    id,
    event_id: id,
    team_id: 'team-1',
    provider: 'github',
    event_type: 'push',
    connection_id: null,
    source: null,
    subject: null,
    time: receivedAt,
    metadata: {},
    data: { n: 1 },
    received_at: receivedAt,
    accepted: true,
    dispatched: [],
    reason: '',
  };
}
