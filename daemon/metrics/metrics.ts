// One daemon's series, in a registry of its own: tests and benchmarks run several daemons in one
// process, and prom-client's global registry would mix their counts (and refuse a second
// registration of a name). Every series carries `svc_instance`, the daemon's id as `/health`
// shows it: Prometheus overwrites a series' own `instance` label with the scrape target's address
// (unless honor_labels), so the daemon's id needs a name of its own.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HandOverResult } from '../sessions/hand-over.js';
import type { SessionRow, SessionStatus } from '../store/tables.js';
import type { StoreKind } from '../store/store.js';
import type { DeliveryMetrics, DeliveryOutcome, EventMetrics, EventOutcome, FinalStatus, SchedulerMetrics, SessionMetrics } from './reporters.js';

/** The route label of a request no route took (404s): one value, whatever the URL. */
export const UNMATCHED_ROUTE = '(unmatched)';

const EVENT_REJECTIONS: readonly Exclude<EventOutcome, 'dispatched'>[] = ['unmatched', 'refused', 'not_admitted', 'error'];
const FINAL: readonly FinalStatus[] = ['completed', 'failed', 'cancelled'];
const ORIGINS = ['event', 'schedule', 'run', 'api'] as const;
type Origin = (typeof ORIGINS)[number];

export interface DaemonMetricsOptions {
  /** this daemon's id, as `/health` shows it and it writes as `lease_owner` */
  instanceId: string;
  store: StoreKind;
  version: string;
}

/** What a PostgreSQL store's connection pool holds now. */
export interface PoolCounts {
  total: number;
  idle: number;
  waiting: number;
}

export class DaemonMetrics implements EventMetrics, SessionMetrics, SchedulerMetrics, DeliveryMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly deliveries: Counter<'provider' | 'outcome'>;
  private readonly requestSeconds: Histogram<'method' | 'route' | 'status'>;
  private readonly rateLimited: Counter;
  private readonly eventsReceived: Counter;
  private readonly eventsDispatched: Counter;
  private readonly eventsRejected: Counter<'reason'>;
  private readonly started: Counter<'origin'>;
  private readonly finished: Counter<'outcome'>;
  private readonly lateness: Histogram;
  private readonly leasesTaken: Counter;
  private readonly storeWrites: Histogram<'store' | 'wait'>;
  private readonly store: StoreKind;

  constructor(opts: DaemonMetricsOptions) {
    const registers = [this.registry];
    this.store = opts.store;
    this.registry.setDefaultLabels({ svc_instance: opts.instanceId });
    // Process CPU, memory, handles, event loop lag and GC, under their usual names.
    collectDefaultMetrics({ register: this.registry });

    new Gauge({ name: 'svc_info', help: "The daemon's version and store backend (always 1).", labelNames: ['version', 'store'], registers }).set({ version: opts.version, store: opts.store }, 1);

    // The route is the pattern a route was declared with, never the URL: one series per route.
    this.requests = new Counter({ name: 'svc_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.', labelNames: ['method', 'route', 'status'], registers });
    this.requestSeconds = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time from receiving a request to the end of its answer, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.rateLimited = new Counter({ name: 'svc_http_rate_limited_total', help: 'Requests answered 429 (a key over its rate limit, or an address over its failed-authentication limit).', registers });

    this.eventsReceived = new Counter({ name: 'svc_events_received_total', help: 'Events received (dry runs excluded).', registers });
    this.eventsDispatched = new Counter({ name: 'svc_events_dispatched_total', help: 'Received events that started a session, or found the one an earlier delivery started, for at least one automation.', registers });
    this.eventsRejected = new Counter({ name: 'svc_events_rejected_total', help: 'Received events that started nothing, by reason: unmatched, refused, not_admitted, error.', labelNames: ['reason'], registers });

    this.started = new Counter({ name: 'svc_sessions_started_total', help: 'Sessions started, by origin: event, schedule, run (an automation run by hand), api (POST /sessions).', labelNames: ['origin'], registers });
    this.finished = new Counter({ name: 'svc_sessions_finished_total', help: 'Sessions that reached a final status, by outcome: completed, failed, cancelled.', labelNames: ['outcome'], registers });

    this.lateness = new Histogram({
      name: 'svc_scheduler_lateness_seconds',
      help: "Time from a schedule slot's time to the start of its session.",
      // up to the default catch-up window (1 h), the oldest slot that still runs
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
      registers,
    });
    this.leasesTaken = new Counter({ name: 'svc_scheduler_leases_taken_over_total', help: 'Schedule slot leases taken over from another daemon (expired, or left by one that died).', registers });

    this.storeWrites = new Histogram({
      name: 'svc_store_write_duration_seconds',
      help: 'Time a store write transaction takes until acknowledged, by store backend and what it waits for (durable: on disk or committed; applied: visible to reads).',
      labelNames: ['store', 'wait'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });

    this.deliveries = new Counter({
      name: 'svc_deliveries_total',
      help: "Provider deliveries to connections as their log records them, by provider and outcome (accepted, duplicate, rejected).",
      labelNames: ['provider', 'outcome'],
      registers,
    });

    // Every value of a small fixed label set exists from the start, at 0: a rate over a series
    // that appears only with its first increment misses that increment.
    for (const reason of EVENT_REJECTIONS) this.eventsRejected.inc({ reason }, 0);
    for (const origin of ORIGINS) this.started.inc({ origin }, 0);
    for (const outcome of FINAL) this.finished.inc({ outcome }, 0);
  }

  /** Prometheus text format of every series (Registry.contentType says which). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  // ---- HTTP ----

  requestAnswered(method: string, route: string, status: number, seconds: number): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
    if (status === 429) this.rateLimited.inc();
  }

  // ---- events ----

  deliveryLogged(provider: string, outcome: DeliveryOutcome): void {
    this.deliveries.inc({ provider, outcome });
  }

  eventReceived(): void {
    this.eventsReceived.inc();
  }

  eventSettled(outcome: EventOutcome): void {
    if (outcome === 'dispatched') this.eventsDispatched.inc();
    else this.eventsRejected.inc({ reason: outcome });
  }

  // ---- sessions ----

  sessionsStarted(rows: readonly SessionRow[]): void {
    // Counted per label first: an event's ten sessions are one increment, not ten.
    const started = new Map<Origin, number>();
    const finished = new Map<FinalStatus, number>();
    for (const row of rows) {
      const origin = originOf(row);
      started.set(origin, (started.get(origin) ?? 0) + 1);
      const outcome = finalStatus(row.status);
      if (outcome) finished.set(outcome, (finished.get(outcome) ?? 0) + 1);
    }
    for (const [origin, n] of started) this.started.inc({ origin }, n);
    for (const [outcome, n] of finished) this.finished.inc({ outcome }, n);
  }

  sessionFinished(outcome: FinalStatus): void {
    this.finished.inc({ outcome });
  }

  handOversSettled(results: Iterable<HandOverResult>): void {
    for (const result of results) {
      const outcome = 'error' in result ? (result.error.code === 'SESSION_START_FAILED' ? 'failed' : undefined) : finalStatus(result.status);
      if (outcome) this.finished.inc({ outcome });
    }
  }

  // ---- scheduler ----

  scheduleLateness(seconds: number): void {
    this.lateness.observe(Math.max(0, seconds));
  }

  leaseTakenOver(count: number): void {
    if (count > 0) this.leasesTaken.inc(count);
  }

  // ---- store ----

  storeWrite(wait: 'durable' | 'applied', seconds: number): void {
    this.storeWrites.observe({ store: this.store, wait }, seconds);
  }

  /** Gauges of a PostgreSQL store's connection pool, read at each scrape. */
  watchPool(read: () => PoolCounts): void {
    const registers = [this.registry];
    new Gauge({ name: 'svc_postgres_pool_connections', help: 'Connections the PostgreSQL pool holds, in use or idle.', registers, collect() { this.set(read().total); } });
    new Gauge({ name: 'svc_postgres_pool_idle_connections', help: 'Connections of the PostgreSQL pool that are idle.', registers, collect() { this.set(read().idle); } });
    new Gauge({ name: 'svc_postgres_pool_waiting_requests', help: 'Queries and transactions waiting for a connection of the PostgreSQL pool (it is at its size).', registers, collect() { this.set(read().waiting); } });
  }
}

/** Where a session came from, by what its row refers to. */
function originOf(row: SessionRow): Origin {
  if (row.event_row_id !== null) return 'event';
  if (row.trigger_id !== null) return 'schedule';
  return row.automation_id !== null ? 'run' : 'api';
}

const finalStatus = (status: SessionStatus): FinalStatus | undefined => (status === 'completed' || status === 'failed' || status === 'cancelled' ? status : undefined);
