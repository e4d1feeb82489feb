// Inbound events (spec §4.8, §6; CONTRACT §6).
import Type from 'typebox';
import { JsonObject, Nullable, QueryLimit, StringEnum, Timestamp, Uuid } from './common.js';

import { MAX_EVENT_ID_LENGTH } from '../api-values.js';

export { DEFAULT_PROVIDER } from '../api-values.js';

export const SendEventBody = Type.Object(
  {
    event_type: Type.String({ minLength: 1, maxLength: 200 }),
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    connection_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_EVENT_ID_LENGTH })),
    source: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    subject: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    time: Type.Optional(Timestamp),
    metadata: Type.Optional(JsonObject),
    data: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

export const SendEventQuery = Type.Object(
  { dry_run: Type.Optional(StringEnum(['true', 'false', '1', '0'])) },
  { additionalProperties: false },
);

export const Dispatched = Type.Object({
  automationId: Uuid,
  idempotencyKey: Type.String(),
  triggerIds: Type.Array(Uuid),
});

export const MatchReport = Type.Object({
  /** the automation's id, as CONTRACT §3 names it */
  id: Uuid,
  /** the same id, under the name the dispatched items use */
  automationId: Uuid,
  name: Type.String(),
  matched: Type.Boolean(),
  /** the first condition that failed, null when matched */
  failed: Nullable(Type.String()),
});

export const EventResult = Type.Object({
  accepted: Type.Boolean(),
  dispatched: Type.Array(Dispatched),
  reason: Type.String(),
  matches: Type.Optional(Type.Array(MatchReport)),
}, { title: 'EventResult' });

export const NormalisedEvent = Type.Object({
  id: Type.String(),
  provider: Type.String(),
  event_type: Type.String(),
  connection_id: Nullable(Type.String()),
  source: Nullable(Type.String()),
  subject: Nullable(Type.String()),
  time: Timestamp,
  metadata: JsonObject,
  data: JsonObject,
  received_at: Timestamp,
}, { title: 'NormalisedEvent' });

export const ReceivedEvent = Type.Object({
  ...NormalisedEvent.properties,
  accepted: Type.Boolean(),
  dispatched: Type.Array(Dispatched),
  reason: Type.String(),
}, { title: 'ReceivedEvent' });

export const ListEventsQuery = Type.Object(
  {
    limit: Type.Optional(QueryLimit),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
    event_type: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export type SendEventInput = Type.Static<typeof SendEventBody>;
export type NormalisedEventDto = Type.Static<typeof NormalisedEvent>;
export type EventResultDto = Type.Static<typeof EventResult>;
