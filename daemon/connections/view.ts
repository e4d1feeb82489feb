// A connection and a delivery as the API shows them: never a secret, sealed or not.
import type { ConnectionDto, ConnectionProvider, DeliveryDto } from '../../shared/schemas/connections.js';
import type { ConnectionRow, DeliveryRow } from '../store/tables.js';

/** `{apiBase}/hooks/{id}`: where the provider sends the connection's deliveries. */
export const webhookUrl = (apiBase: string, id: string) => `${apiBase}/hooks/${id}`;

export const connectionView = (c: ConnectionRow, apiBase: string): ConnectionDto => ({
  id: c.id,
  team_id: c.team_id,
  provider: c.provider as ConnectionProvider,
  name: c.name,
  external_id: c.external_id,
  webhook_url: webhookUrl(apiBase, c.id),
  secret_prefix: c.secret_prefix,
  created_at: c.created_at,
  last_delivery_at: c.last_delivery_at,
});

export const deliveryView = (d: DeliveryRow): DeliveryDto => ({
  id: d.id,
  connection_id: d.connection_id,
  received_at: d.received_at,
  delivery_id: d.delivery_id,
  event_type: d.event_type,
  status: d.status,
  reason: d.reason,
  event_id: d.event_id,
});
