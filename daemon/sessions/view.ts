// Sessions and messages as the API shows them (CONTRACT §3).
import { createHash } from 'node:crypto';
import type { MessageDto, SessionDto } from '../../shared/schemas/index.js';
import { eventOfCopy, eventOfRow } from '../dispatch/normalise.js';
import type { ReadTx } from '../store/store.js';
import type { MessageRow, SessionRow } from '../store/tables.js';
import { keyOfSession } from './keys.js';

/** A session's event, as the API shows it (null for a session no event started). */
export type SessionEvent = SessionDto['event'];

/** `event` is the session's event as `sessionEvent` reads it (or as its starter holds it). */
export const sessionView = (s: SessionRow, event: SessionEvent): SessionDto => ({
  session_id: s.session_id,
  team_id: s.team_id,
  kind: s.kind,
  persona: s.persona,
  status: s.status,
  prompt: s.prompt,
  parent_session_id: s.parent_session_id,
  automation_id: s.automation_id,
  trigger_id: s.trigger_id,
  idempotency_key: keyOfSession(s),
  environment_id: s.environment_id,
  event,
  created_at: s.created_at,
  updated_at: s.updated_at,
  started_at: s.started_at,
  completed_at: s.completed_at,
  last_error: s.last_error,
});

/** The event that started a session: its receipt row, or the copy an older schema kept on it. */
export async function sessionEvent(tx: ReadTx, s: SessionRow): Promise<SessionEvent> {
  if (s.event_row_id) {
    const row = await tx.get('events', s.event_row_id);
    return row ? eventOfRow(row) : null;
  }
  return s.event ? eventOfCopy(s.event, s.created_at) : null;
}

export async function readSessionView(tx: ReadTx, s: SessionRow): Promise<SessionDto> {
  return sessionView(s, await sessionEvent(tx, s));
}

export const messageView = (m: MessageRow): MessageDto => ({
  id: m.id,
  role: m.role,
  content: m.content,
  created_at: m.created_at,
});

/**
 * The messages a session row holds itself, ahead of its message rows: the prompt, and the answer
 * of a runner that answered at once. Neither is stored again as a message row; their ids are
 * derived from the session id (name-based UUIDs, version 5 layout), so they are stable across reads.
 */
export function storedOnSession(s: SessionRow): MessageDto[] {
  const prompt = promptMessage(s);
  if (!s.answer) return [prompt];
  return [prompt, { id: derivedMessageId('answer', s.session_id), role: 'assistant', content: s.answer, created_at: s.started_at ?? s.created_at }];
}

function promptMessage(s: SessionRow): MessageDto {
  return { id: derivedMessageId('prompt', s.session_id), role: 'user', content: s.prompt, created_at: s.created_at };
}

function derivedMessageId(which: 'prompt' | 'answer', sessionId: string): string {
  const h = createHash('sha1').update(`svc ${which} message ${sessionId}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
