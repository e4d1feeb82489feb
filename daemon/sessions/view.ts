// Sessions and messages as the API shows them (CONTRACT §3).
import type { MessageDto, SessionDto } from '../../shared/schemas/index.js';
import type { MessageRow, SessionRow } from '../store/tables.js';

export const sessionView = (s: SessionRow): SessionDto => ({
  session_id: s.session_id,
  team_id: s.team_id,
  kind: s.kind,
  persona: s.persona,
  status: s.status,
  prompt: s.prompt,
  parent_session_id: s.parent_session_id,
  automation_id: s.automation_id,
  trigger_id: s.trigger_id,
  idempotency_key: s.idempotency_key,
  environment_id: s.environment_id,
  event: s.event,
  created_at: s.created_at,
  updated_at: s.updated_at,
  started_at: s.started_at,
  completed_at: s.completed_at,
  last_error: s.last_error,
});

export const messageView = (m: MessageRow): MessageDto => ({
  id: m.id,
  role: m.role,
  content: m.content,
  created_at: m.created_at,
});
