// Agent sessions and their messages (spec §2, §4.2; CONTRACT §3).
import Type from 'typebox';
import { Nullable, QueryLimit, StringEnum, TeamSlug, Timestamp, Uuid } from './common.js';
import { NormalisedEvent } from './events.js';

import { SESSION_STATUSES } from '../api-values.js';

export { SESSION_STATUSES };
export const SessionStatus = StringEnum(SESSION_STATUSES);

export const Message = Type.Object({
  id: Uuid,
  role: StringEnum(['user', 'assistant', 'system']),
  content: Type.String(),
  created_at: Timestamp,
}, { title: 'Message' });

const sessionFields = {
  session_id: Uuid,
  team_id: Uuid,
  kind: Type.String(),
  persona: Type.String(),
  status: SessionStatus,
  prompt: Type.String(),
  parent_session_id: Nullable(Uuid),
  automation_id: Nullable(Uuid),
  trigger_id: Nullable(Uuid),
  idempotency_key: Nullable(Type.String()),
  environment_id: Nullable(Uuid),
  /** the event that started the session (CONTRACT §6's normalised event), or null */
  event: Nullable(NormalisedEvent),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  last_error: Nullable(Type.String()),
};

export const Session = Type.Object(sessionFields, { title: 'Session' });
export const SessionWithMessages = Type.Object({ ...sessionFields, messages: Type.Array(Message) }, { title: 'SessionWithMessages' });

export const SessionParams = Type.Object({ teamSlug: TeamSlug, sessionId: Uuid });

export const StartSessionBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: 100000 }),
    environment_id: Type.Optional(Nullable(Uuid)),
  },
  { additionalProperties: false },
);

/** Length is checked after trimming by the daemon; the schema only bounds the raw size. */
export const FollowUpBody = Type.Object(
  { message: Type.String({ maxLength: 200000, description: '1-10000 characters (Unicode code points) once leading and trailing whitespace is removed' }) },
  { additionalProperties: false },
);

export const FollowUpAccepted = Type.Object({ accepted: Type.Literal(true), session_id: Uuid });

export const ListSessionsQuery = Type.Object(
  {
    status: Type.Optional(SessionStatus),
    automation_id: Type.Optional(Uuid),
    limit: Type.Optional(QueryLimit),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

/** The runs of one automation: its sessions, newest first. */
export const ListRunsQuery = Type.Object(
  {
    status: Type.Optional(SessionStatus),
    limit: Type.Optional(QueryLimit),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export type SessionDto = Type.Static<typeof Session>;
export type MessageDto = Type.Static<typeof Message>;
