// Connections and provider deliveries (spec §6, CONTRACT §12): a team's link to one account of a
// provider, whose signed deliveries become events.
import Type from 'typebox';
import { Nullable, QueryLimit, StringEnum, TeamSlug, Timestamp, Uuid } from './common.js';

import { CONNECTION_PROVIDERS, DELIVERY_STATUSES, MAX_EVENT_ID_LENGTH, type ConnectionProvider } from '../api-values.js';

export { CONNECTION_PROVIDERS, DELIVERY_STATUSES, MAX_DELIVERY_BYTES, PREVIOUS_SECRET_GRACE_MS, PROVIDER_TITLES } from '../api-values.js';
export type { ConnectionProvider, DeliveryStatus } from '../api-values.js';

/**
 * A secret the provider made itself (Vercel, Linear, Sentry and Slack show one; GitHub and GitLab
 * take one typed in): svc verifies with it instead of a random one of its own. Printable ASCII.
 */
export const ProvidedSecret = Type.String({ minLength: 16, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' });

export const Connection = Type.Object({
  id: Uuid,
  team_id: Uuid,
  provider: StringEnum(CONNECTION_PROVIDERS),
  name: Type.String(),
  external_id: Nullable(Type.String()),
  /** where the provider sends deliveries: `{base_url}/hooks/{id}` */
  webhook_url: Type.String(),
  /** the first characters of the current secret, to tell secrets apart; never the secret */
  secret_prefix: Type.String(),
  created_at: Timestamp,
  last_delivery_at: Nullable(Timestamp),
}, { title: 'Connection' });

/** A connection as create and rotate answer it: the only time its secret is shown. */
export const ConnectionWithSecret = Type.Object({
  ...Connection.properties,
  secret: Type.String(),
}, { title: 'ConnectionWithSecret' });

export const CreateConnectionBody = Type.Object(
  {
    provider: StringEnum(CONNECTION_PROVIDERS),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    external_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    secret: Type.Optional(ProvidedSecret),
  },
  { additionalProperties: false },
);

export const RotateSecretBody = Type.Object(
  {
    previous: Type.Optional(StringEnum(['keep', 'revoke'])),
    secret: Type.Optional(ProvidedSecret),
  },
  { additionalProperties: false },
);

export const ConnectionParams = Type.Object({ teamSlug: TeamSlug, id: Type.String({ minLength: 1, maxLength: 200 }) });

export const Delivery = Type.Object({
  id: Uuid,
  connection_id: Uuid,
  received_at: Timestamp,
  /** the provider's id of the delivery (the event id it becomes), when it sent one */
  delivery_id: Nullable(Type.String()),
  event_type: Nullable(Type.String()),
  status: StringEnum(DELIVERY_STATUSES),
  /** why: the dispatch reason of an accepted one, what to fix in the provider's settings for a rejected one */
  reason: Type.String(),
  event_id: Nullable(Type.String()),
}, { title: 'Delivery' });

export const ListDeliveriesQuery = Type.Object(
  { limit: Type.Optional(QueryLimit), cursor: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: false },
);

export const HookParams = Type.Object({ connectionId: Type.String({ minLength: 1, maxLength: 200 }) });

/** Slack's answer to a `url_verification` delivery. */
export const SlackChallenge = Type.Object({ challenge: Type.String() });

export const ReplayParams = Type.Object({ teamSlug: TeamSlug, eventId: Type.String({ minLength: 1, maxLength: MAX_EVENT_ID_LENGTH }) });

export type ConnectionDto = Type.Static<typeof Connection>;
export type ConnectionWithSecretDto = Type.Static<typeof ConnectionWithSecret>;
export type CreateConnectionInput = Type.Static<typeof CreateConnectionBody>;
export type RotateSecretInput = Type.Static<typeof RotateSecretBody>;
export type DeliveryDto = Type.Static<typeof Delivery>;
