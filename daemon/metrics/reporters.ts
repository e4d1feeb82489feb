// What each part of the daemon tells /metrics, as narrow interfaces: the parts depend on these,
// not on prom-client, and run without any (the tests and benchmarks that build services alone).
import type { HandOverResult } from '../sessions/hand-over.js';
import type { SessionRow } from '../store/tables.js';

/**
 * What a received event came to: it started (or found) a session for at least one automation, or
 * why not: no active automation matched, the runner refused every session (502), the team is
 * not admitted (402), or anything else that failed (a store that went away: 503).
 */
export type EventOutcome = 'dispatched' | 'unmatched' | 'refused' | 'not_admitted' | 'error';

export interface EventMetrics {
  /** an event was sent for real (a dry run is not) and passed validation */
  eventReceived(): void;
  /** what it came to, once answered */
  eventSettled(outcome: EventOutcome): void;
}

/** What the delivery log says of a provider delivery (CONTRACT §12). */
export type DeliveryOutcome = 'accepted' | 'duplicate' | 'rejected';

export interface DeliveryMetrics {
  /** a delivery to a connection of `provider` was verified and logged as `outcome` */
  deliveryLogged(provider: string, outcome: DeliveryOutcome): void;
}

/** The final statuses a session reaches. */
export type FinalStatus = 'completed' | 'failed' | 'cancelled';

export interface SessionMetrics {
  /**
   * the sessions a start batch stored new (a key seen before starts none), as stored: one a
   * runner answered at once is stored completed, and has finished too
   */
  sessionsStarted(rows: readonly SessionRow[]): void;
  /** a session reached a final status (again, after a follow-up resumed it) */
  sessionFinished(outcome: FinalStatus): void;
  /** what a batch of first hand-overs came to: answered at once (completed) or refused (failed) */
  handOversSettled(results: Iterable<HandOverResult>): void;
}

/** What the scheduler reports (its optional `metrics` option). */
export interface SchedulerMetrics {
  /** a slot's session started this many seconds after the slot's time */
  scheduleLateness(seconds: number): void;
  /** this many slot leases held by another daemon (expired, or left by one that died) were taken over */
  leaseTakenOver(count: number): void;
}
