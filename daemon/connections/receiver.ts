// A provider delivery, from verified bytes to a dispatched event and a line in the connection's
// deliveries log (CONTRACT §12). The hook route finds the connection and hands the request here.
import type { EventResultDto, SendEventInput } from '../../shared/schemas/index.js';
import type { Clock } from '../clock.js';
import type { EventService } from '../dispatch/service.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DeliveryMetrics } from '../metrics/reporters.js';
import type { DeliveryOutcome } from '../providers/delivery.js';
import { receiveDelivery } from '../providers/receive.js';
import { newId } from '../store/new-id.js';
import type { ConnectionService, DeliveryRecord, DeliveryTarget } from './service.js';

export interface DeliveryBytes {
  /** the body as received, byte for byte */
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
}

/** What the route answers: the event result in the envelope, or a body of the provider's own (Slack's challenge). */
export type DeliveryAnswer = { data: EventResultDto } | { challenge: string };

export class DeliveryReceiver {
  constructor(
    private readonly deps: {
      connections: ConnectionService;
      events: EventService;
      clock: Clock;
      log: Logger;
      metrics?: DeliveryMetrics;
    },
  ) {}

  /**
   * Verifies the delivery with the connection's secrets, dispatches the event it normalises to as
   * `POST .../webhooks/events` would, and logs the delivery: a rejected one too, with its reason,
   * since that log is where a person finds out why their provider's deliveries do nothing.
   */
  async receive(target: DeliveryTarget, request: DeliveryBytes): Promise<DeliveryAnswer> {
    const outcome = await receiveDelivery(target.connection.provider, { ...request, secrets: target.secrets, now: this.deps.clock() });
    return this.settle(target, outcome);
  }

  /** What `outcome`, a delivery verified (or refused) for the connection of `target`, comes to. */
  async settle(target: DeliveryTarget, outcome: DeliveryOutcome): Promise<DeliveryAnswer> {
    const { connections, events } = this.deps;
    const { connection, team } = target;
    if (outcome.kind === 'rejected') {
      await this.record(target, { delivery_id: outcome.deliveryId, event_type: outcome.eventType, status: 'rejected', reason: outcome.reason, event_id: null });
      throw new ApiError(outcome.status === 401 ? 'UNAUTHORIZED' : 'VALIDATION_ERROR', outcome.reason);
    }
    if (outcome.kind === 'reply') {
      await this.record(target, { delivery_id: null, event_type: null, status: 'accepted', reason: replyReason(outcome), event_id: null });
      return outcome.body;
    }

    const { event } = outcome;
    // A delivery without an id of its own gets one, so its log line and its event name the same id.
    const eventId = event.id ?? newId();
    const duplicate = event.id !== null && (await connections.seenDelivery(connection.id, event.id));
    const input: SendEventInput = {
      id: eventId,
      provider: connection.provider,
      event_type: event.event_type,
      connection_id: connection.id,
      source: connection.provider,
      subject: event.subject,
      metadata: event.metadata,
      data: event.data,
    };
    const logged = { delivery_id: event.id, event_type: event.event_type, event_id: eventId };
    let result: EventResultDto;
    try {
      result = await events.send(team, input);
    } catch (err) {
      // A refusal the API defines (a team not admitted: 402) is logged; a store failure is not a
      // verdict on the delivery, and the provider's retry will be.
      if (err instanceof ApiError) await this.record(target, { ...logged, status: 'rejected', reason: err.message });
      throw err;
    }
    const reason = duplicate ? `a redelivery of ${event.id}: nothing new started. ${result.reason}` : result.reason;
    await this.record(target, { ...logged, status: duplicate ? 'duplicate' : 'accepted', reason });
    return { data: result };
  }

  private async record(target: DeliveryTarget, delivery: DeliveryRecord): Promise<void> {
    await this.deps.connections.recordDelivery(target.connection, delivery);
    this.deps.metrics?.deliveryLogged(target.connection.provider, delivery.status);
    if (delivery.status === 'rejected') this.deps.log.info({ connection: target.connection.id, reason: delivery.reason }, 'provider delivery rejected');
  }
}

const replyReason = (outcome: Extract<DeliveryOutcome, { kind: 'reply' }>) =>
  'challenge' in outcome.body ? 'URL verification answered with its challenge; nothing dispatched' : 'answered; nothing dispatched';
