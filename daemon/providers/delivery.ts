// What a provider delivery is to the hook route (CONTRACT §12): the request as received, and what
// verifying and normalising it came to. Each provider's scheme lives in a module of its own.
import type { ConnectionProvider } from '../../shared/schemas/connections.js';

export interface DeliveryRequest {
  /** the body exactly as received: signatures are checked over these bytes, never a re-serialised parse */
  rawBody: Buffer;
  /** header names in lower case, as node:http gives them */
  headers: Record<string, string | string[] | undefined>;
  /** the secrets that verify now: the current one first, then a rotated-out one within its grace */
  secrets: readonly string[];
  now: Date;
}

/** A verified delivery as an event: the route adds `provider`, `connection_id` and `source`. */
export interface ProviderEvent {
  /** the provider's delivery id (the event id), or null when it sent none */
  id: string | null;
  event_type: string;
  subject: string | null;
  /** the provider's delivery headers: never a secret, a token or a signature */
  metadata: Record<string, string>;
  data: Record<string, unknown>;
}

export type DeliveryOutcome =
  /** verified and normalised: dispatch it */
  | { kind: 'event'; event: ProviderEvent }
  /** verified, answered with this body and dispatched nowhere (Slack's `url_verification`) */
  | { kind: 'reply'; body: { challenge: string } }
  /**
   * refused: 401 for a missing or wrong signature or a stale timestamp, 400 for a body that is not
   * a JSON object or lacks what the scheme needs. `reason` is what a person fixes in the provider's
   * settings, and names no secret. What could be read of the delivery is kept for the log.
   */
  | { kind: 'rejected'; status: 400 | 401; reason: string; deliveryId: string | null; eventType: string | null };

export type ReceiveDelivery = (provider: ConnectionProvider, req: DeliveryRequest) => Promise<DeliveryOutcome>;
