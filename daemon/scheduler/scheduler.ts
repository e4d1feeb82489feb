// The scheduler (CONTRACT §5). It sleeps on one timer until shortly before the earliest due
// trigger, then fires each slot in three steps: lease the trigger (a durable write, up to `leadMs`
// before the slot, so that a burst's leases are taken before its time comes), start the session
// with the slot's idempotency key at the slot's time, and record the run while clearing the
// lease. A crash between any two steps leaves either a lease (picked up again once it expires, or
// at once by the next daemon on this data folder) or a started session that the same key finds
// again: one slot, one session.
//
// This file is the loop: the timer, taking due slots off the due-time index (due-index.ts),
// leasing them (lease-slots.ts) and recording them (record-slots.ts) in batches, with up to
// `concurrency` session starts in flight at once.
import { scheduleKey } from './keys.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { DEFAULT_LEASE_TTL_MS } from '../config.js';
import type { ApiError } from '../errors.js';
import type { SchedulerMetrics } from '../metrics/reporters.js';
import type { DueState, ReadTx, Store } from '../store/store.js';
import type { TriggerRow } from '../store/tables.js';
import { DueIndex } from './due-index.js';
import { faultFromEnv, type FaultHook } from './fault.js';
import { planLeasedSlot, releaseLeases, releaseOthersLeases, type Firing, type LeasePolicy } from './lease-slots.js';
import { recordSlot, slotResult, type SlotResult } from './record-slots.js';
import { ScheduleCache, LATE_GRACE_MS } from './slots.js';
import { MAX_TIMER_MS, realTimers, type Timers } from './timers.js';

export const DEFAULT_CATCH_UP_WINDOW_MS = 60 * 60_000;
export const DEFAULT_CONCURRENCY = 1_000;
export const DEFAULT_RECHECK_MS = 30_000;
/**
 * How long before its time a slot is leased and planned. Its session still starts at its time;
 * the lease's cost (a write, and on a shared database the race with other daemons for it) is
 * paid before then, not after.
 */
export const DEFAULT_LEAD_MS = 2_000;
/** how soon a slot another daemon was leasing is looked at again */
const UNCLAIMED_RETRY_MS = 1_000;
/** slots leased (and later recorded) per write transaction */
const BATCH = 512;
/** finished slots that may wait for their run record while other sessions are still starting */
const RECORD_BACKLOG = 10_000;
const RECORD_DELAY_MS = 1_000;
/** how long stop() waits for session starts in flight before leaving their leases behind */
const STOP_GRACE_MS = 10_000;

/** One slot's session, as the scheduler asks the session service for it. */
export interface ScheduledStart {
  teamId: string;
  prompt: string;
  environmentId: string | null;
  automationId: string;
  triggerId: string;
  idempotencyKey: string;
  /**
   * start it only while the automation is active, the trigger enabled and still due at `dueAt`
   * (its schedule not changed since the slot was planned), as the write that stores it finds them
   */
  whileActive: { triggerIds: readonly string[]; dueAt: string };
}
/**
 * What one start came to: the session (created=false when its key had started one), nothing
 * because the automation or trigger was no longer active when it was to be stored, or why not.
 */
export type ScheduledOutcome = { created: boolean } | { inactive: unknown } | { error: ApiError };
/**
 * Starts one team's due sessions together, an outcome per request in order
 * (SessionService.startMany fits). Rejects the whole batch when the team may not start work.
 */
export type StartSessions = (reqs: ScheduledStart[]) => Promise<ScheduledOutcome[]>;

export interface SchedulerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  startSessions: StartSessions;
  timers?: Timers;
  /** this daemon instance, written to `lease_owner` (default: a random UUID per instance) */
  instanceId?: string;
  /** how long a lease lasts (default DEFAULT_LEASE_TTL_MS) */
  leaseMs?: number;
  /** how long before its time a slot is leased (default DEFAULT_LEAD_MS; at most a quarter of the lease) */
  leadMs?: number;
  /** the newest missed slot runs once when it is at most this old (default 1 h) */
  catchUpWindowMs?: number;
  /**
   * True when nothing else can hold leases on this store while the scheduler runs (the daemon
   * holds the data-folder lock): leases found at start were left by a daemon that died and are
   * taken over at once instead of after they expire.
   */
  exclusive?: boolean;
  /** slots whose session start may be in flight at once */
  concurrency?: number;
  /**
   * How often the schedules are read again although no change was heard of (default: every
   * DEFAULT_RECHECK_MS when other daemons share the store, never (null) when `exclusive`): changes
   * come as Store messages, and this catches any a lost connection or a failed message let slip.
   */
  recheckMs?: number | null;
  /** default: the crash points named by SVC_FAULT (see fault.ts), none when it is unset */
  fault?: FaultHook;
  log?: SchedulerLog;
  /** lateness and leases taken over, for /metrics */
  metrics?: SchedulerMetrics;
}

export { scheduleKey };

export class Scheduler {
  readonly instanceId: string;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly startSessions: StartSessions;
  private readonly leaseMs: number;
  private readonly leadMs: number;
  private readonly catchUpWindowMs: number;
  private readonly exclusive: boolean;
  private readonly concurrency: number;
  private readonly recheckMs: number | null;
  private recheckTimer: unknown = null;
  private unsubscribe: (() => void) | undefined;
  private readonly log: SchedulerLog | undefined;
  private readonly metrics: SchedulerMetrics | undefined;
  private readonly fault: FaultHook | undefined;
  private readonly schedules = new ScheduleCache();

  private readonly due: DueIndex;
  /** triggers being fired now: leased or about to be, session start or run record pending */
  private readonly inFlight = new Set<string>();
  /**
   * slots between leaving the heap and their session start settling, but for those leased ahead
   * while they wait for their time: what `concurrency` bounds
   */
  private starting = 0;
  /** lease batches under way */
  private leasing = 0;
  /** slots taken off the heap that wait for the leases under way to end, to share the next (see pump) */
  private held: string[] = [];
  /**
   * Slots leased ahead of their time, by team and time: the slots of one team due at one time,
   * leased in any number of batches, start together then (BATCH to a write).
   */
  private readonly ahead = new Map<string, { timer: unknown; firings: Firing[] }>();
  private readonly finished: SlotResult[] = [];
  private timer: unknown = null;
  private state: 'idle' | 'running' | 'stopped' = 'idle';
  private stopping: Promise<void> | undefined;
  private recordQueued = false;
  private recordTimer: unknown = null;
  private rebuilding: Promise<void> | null = null;
  private rebuildAgain = false;
  private readonly work = new Set<Promise<unknown>>();

  constructor(opts: SchedulerOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.timers = opts.timers ?? realTimers;
    this.startSessions = opts.startSessions;
    this.instanceId = opts.instanceId ?? randomUUID();
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_TTL_MS;
    // A lease taken ahead must outlast the wait for its slot by far, or another daemon could take
    // it over before the start: with a short --lease-ttl the lead shrinks with it.
    this.leadMs = Math.min(Math.max(0, opts.leadMs ?? DEFAULT_LEAD_MS), this.leaseMs / 4);
    this.catchUpWindowMs = opts.catchUpWindowMs ?? DEFAULT_CATCH_UP_WINDOW_MS;
    this.exclusive = opts.exclusive ?? false;
    this.concurrency = Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
    this.recheckMs = opts.recheckMs !== undefined ? opts.recheckMs : this.exclusive ? null : DEFAULT_RECHECK_MS;
    this.log = opts.log;
    this.metrics = opts.metrics;
    this.fault = opts.fault ?? faultFromEnv();
    this.due = new DueIndex(this.instanceId);
  }

  /** Loads the schedules and arms the timer; missed slots are dealt with as soon as it fires. */
  async start(): Promise<void> {
    if (this.state !== 'idle') return;
    this.state = 'running';
    // A change made through any daemon on this store (this one's included) reaches us as a message.
    this.unsubscribe = this.store.subscribe('schedules', () => this.schedulesChanged());
    if (this.exclusive) await this.releaseDeadLeases();
    await this.rebuild();
    this.armRecheck();
  }

  private armRecheck(): void {
    if (this.recheckMs === null || this.state !== 'running') return;
    this.recheckTimer = this.timers.set(() => {
      this.schedulesChanged();
      this.armRecheck();
    }, this.recheckMs);
  }

  /** Re-reads the schedules (coalescing bursts of calls) and re-arms the timer. */
  schedulesChanged(): void {
    if (this.state !== 'running') return;
    void this.rebuild();
  }

  /**
   * Stops firing. Waits (a bounded time) for slots in flight to finish and be recorded; a second
   * call waits for the same.
   */
  stop(): Promise<void> {
    return (this.stopping ??= this.stopFiring());
  }

  private async stopFiring(): Promise<void> {
    this.state = 'stopped';
    this.disarm();
    this.unsubscribe?.();
    if (this.recheckTimer !== null) this.timers.clear(this.recheckTimer);
    this.giveBackAhead();
    let graceTimer: unknown;
    const grace = new Promise<void>((resolve) => (graceTimer = this.timers.set(resolve, STOP_GRACE_MS)));
    const settled = (async () => {
      while (this.work.size > 0) await Promise.allSettled([...this.work]);
      // Starts that finished last may still wait for their run record.
      this.recordNow();
      while (this.work.size > 0) await Promise.allSettled([...this.work]);
    })();
    await Promise.race([settled, grace]);
    this.timers.clear(graceTimer);
    if (this.work.size > 0) this.log?.warn({ inFlight: this.inFlight.size }, 'scheduler stopped with slots in flight; their leases are taken over at the next start');
  }

  /** Resolves once nothing is being fired or recorded (for tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.work.size > 0 || this.rebuilding) {
      await Promise.allSettled([...this.work, this.rebuilding]);
    }
  }

  /** When the next slot the timer wakes for is due (epoch ms), or null when it sleeps with nothing due. */
  get nextWakeAt(): number | null {
    const top = this.due.validTop(this.inFlight);
    return this.timer === null || !top ? null : top.at;
  }

  // ---- the due-time index ----

  private rebuild(): Promise<void> {
    if (this.rebuilding) {
      this.rebuildAgain = true;
      return this.rebuilding;
    }
    const run = (async () => {
      try {
        do {
          this.rebuildAgain = false;
          await this.due.load(this.store, this.inFlight);
        } while (this.rebuildAgain);
      } catch (err) {
        this.log?.error({ err }, 'scheduler could not read the schedules');
      }
    })();
    this.rebuilding = this.track(run.finally(() => (this.rebuilding = null)));
    return this.rebuilding.then(() => this.pump());
  }

  // ---- the timer ----

  private disarm(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }

  /** Sleeps until the earliest entry is due within the lead (in steps of at most ~24.8 days). */
  private arm(): void {
    this.disarm();
    if (this.state !== 'running') return;
    const top = this.due.validTop(this.inFlight);
    if (!top) return;
    const delay = Math.min(Math.max(0, top.at - this.leadMs - this.clock().getTime()), MAX_TIMER_MS);
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.pump();
    }, delay);
  }

  /**
   * Takes the slots due within the lead off the heap, as many as there is room for, and leases
   * them, BATCH to a write. The writes run concurrently so their fsyncs are shared (group
   * commit). A part batch taken while a lease is under way waits for it to end (`held`): slots
   * due a millisecond apart would otherwise go one or two to a lease, a write and a session start
   * each, and the writes queue up behind one another; held, the slots that come due meanwhile
   * share one lease.
   */
  private pump(): void {
    if (this.state !== 'running') return;
    const busy = this.leasing > 0;
    const horizon = this.clock().getTime() + this.leadMs;
    while (this.starting < this.concurrency) {
      const top = this.due.validTop(this.inFlight);
      if (!top || top.at > horizon) break;
      this.due.pop();
      this.inFlight.add(top.id);
      this.starting++;
      this.held.push(top.id);
      if (this.held.length === BATCH) this.leaseHeld();
    }
    if (this.held.length > 0 && !busy) this.leaseHeld();
    // Without room, the slots in flight call pump() again as they finish.
    if (this.starting < this.concurrency) this.arm();
    else this.disarm();
  }

  private leaseHeld(): void {
    const ids = this.held;
    this.held = [];
    this.lease(ids);
  }

  private lease(ids: string[]): void {
    // (the slots not yet fired or put back when a step fails)
    const pending = new Set(ids);
    this.leasing++;
    this.track(
      this.leaseAndStart(pending)
        .finally(() => this.leasing--)
        .catch((err) => {
          this.log?.error({ err }, 'scheduler could not lease due slots; retrying after the lease time');
          const retryAt = this.clock().getTime() + this.leaseMs;
          for (const id of pending) {
            const k = this.due.get(id);
            this.unfired(id, k && { ...k.row, next_run_at: new Date(Math.max(retryAt, k.at)).toISOString() });
          }
          this.recordSoon();
        })
        .finally(() => this.pump()),
    );
  }

  // ---- firing ----

  /**
   * Leases the slots that no other daemon has (Store.claimDue), checks and plans them in one write,
   * and starts their sessions, each at its slot's time. Takes each slot out of `pending` once it is
   * fired or put back.
   */
  private async leaseAndStart(pending: Set<string>): Promise<void> {
    const now = this.clock();
    const ids = [...pending];
    const { claimed, takenOver, passed } = await this.store.claimDue(ids, {
      owner: this.instanceId,
      until: new Date(now.getTime() + this.leaseMs).toISOString(),
      now: now.toISOString(),
      dueBy: new Date(now.getTime() + this.leadMs).toISOString(),
    });
    if (takenOver > 0) {
      this.log?.info({ takenOver }, 'scheduler took over slots whose lease had expired');
      this.metrics?.leaseTakenOver(takenOver);
    }
    // Slots another daemon leased first, or fired already: back in the index as they now stand.
    // One that still looks due was being leased by another daemon that very moment: looked at
    // again a little later, when that lease shows, not at once and again and again.
    const notBefore = now.getTime() + UNCLAIMED_RETRY_MS;
    const taken = new Set(claimed);
    for (const id of ids) {
      if (taken.has(id)) continue;
      pending.delete(id);
      this.unfired(id, passed.get(id), notBefore);
    }
    if (claimed.length === 0) return;
    const policy: LeasePolicy = { instanceId: this.instanceId, window: this.window(), schedules: this.schedules };
    const { firings, settled } = await this.store.write(async (tx) => {
      await readTogether(tx, claimed);
      const firings: Firing[] = [];
      const settled: { id: string; row: TriggerRow | undefined; skipped?: number }[] = [];
      for (const id of claimed) {
        const firing = await planLeasedSlot(tx, id, now, policy);
        if ('slot' in firing) firings.push(firing);
        else settled.push({ id, ...firing });
      }
      return { firings, settled };
    });
    for (const { id, skipped } of settled) if (skipped !== undefined) this.log?.info({ triggerId: id, skipped }, 'scheduler skipped missed slots');
    for (const { id, row } of settled) {
      pending.delete(id);
      this.unfired(id, row);
    }
    for (const f of firings) pending.delete(f.triggerId);
    this.recordSoon();
    if (firings.length === 0) return;
    this.fault?.('after-lease');
    // One batch of starts per team: a team that may not start work fails only its own slots.
    const due: Firing[] = [];
    const planned = this.clock().getTime();
    for (const f of firings) {
      if (f.slot.getTime() > planned) this.waitFor(f);
      else due.push(f);
    }
    for (const group of groupByTeam(due)) this.track(this.fire(group));
    // (stopped while these were being leased)
    if (this.state !== 'running') this.giveBackAhead();
  }

  /** Holds a slot leased ahead until its time, with the team's other slots due then. */
  private waitFor(f: Firing): void {
    this.starting--;
    const at = f.slot.getTime();
    const key = `${f.automation.team_id} ${at}`;
    const waiting = this.ahead.get(key);
    if (waiting) {
      waiting.firings.push(f);
      return;
    }
    const timer = this.timers.set(() => {
      const { firings } = this.ahead.get(key)!;
      this.ahead.delete(key);
      this.starting += firings.length;
      for (let i = 0; i < firings.length; i += BATCH) this.track(this.fire(firings.slice(i, i + BATCH)));
    }, at - this.clock().getTime());
    this.ahead.set(key, { timer, firings: [f] });
  }

  /** A slot taken off the heap that fires nothing here: back in the index as its row stands. */
  private unfired(id: string, row: DueState | undefined, notBefore?: number): void {
    this.inFlight.delete(id);
    this.starting--;
    this.due.remember(row, id, notBefore);
  }

  /** Starts the sessions of one team's leased slots (one batch, so their writes are shared). */
  private async fire(firings: Firing[]): Promise<void> {
    const firedAt = this.clock();
    let outcomes: (ScheduledOutcome | { thrown: unknown })[];
    try {
      outcomes = await this.startSessions(
        firings.map((f) => ({
          teamId: f.automation.team_id,
          prompt: f.automation.prompt,
          environmentId: f.automation.environment_id,
          automationId: f.automation.id,
          triggerId: f.triggerId,
          idempotencyKey: scheduleKey(f.triggerId, f.slot),
          whileActive: { triggerIds: [f.triggerId], dueAt: f.dueAt },
        })),
      );
    } catch (err) {
      outcomes = firings.map(() => ({ thrown: err }));
    }
    this.fault?.('after-start');
    const startedAt = this.clock().getTime();
    firings.forEach((firing, i) => {
      const outcome = outcomes[i];
      if ('created' in outcome && outcome.created) this.metrics?.scheduleLateness((startedAt - firing.slot.getTime()) / 1000);
      this.finished.push(slotResult(firing, outcome, firedAt, this.log));
    });
    this.starting -= firings.length;
    this.recordSoon();
    this.pump();
  }

  /**
   * Records finished slots in batches. Starting sessions comes first: while other starts are
   * pending, records wait (at most RECORD_DELAY_MS, or until RECORD_BACKLOG piled up) instead
   * of taking the CPU from them; then everything that piled up is written BATCH to a transaction.
   */
  private recordSoon(): void {
    if (this.recordQueued || this.finished.length === 0) return;
    if (this.starting > 0 && this.finished.length < RECORD_BACKLOG) {
      this.recordTimer ??= this.timers.set(() => {
        this.recordTimer = null;
        this.recordNow();
      }, RECORD_DELAY_MS);
      return;
    }
    this.recordNow();
  }

  private recordNow(): void {
    if (this.recordTimer !== null) this.timers.clear(this.recordTimer);
    this.recordTimer = null;
    if (this.recordQueued || this.finished.length === 0) return;
    this.recordQueued = true;
    // After this turn of the event loop: one group commit resolves many starts at once.
    this.track(
      new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        this.recordQueued = false;
        const batches: SlotResult[][] = [];
        while (this.finished.length > 0) batches.push(this.finished.splice(0, BATCH));
        await Promise.all(batches.map((b) => this.recordBatch(b)));
      }),
    );
  }

  private async recordBatch(batch: SlotResult[]): Promise<void> {
    const now = this.clock();
    let rows: (DueState | undefined)[];
    let disabled = false;
    try {
      ({ rows, disabled } = await this.store.write(async (tx) => {
        await readTogether(tx, batch.map((r) => r.firing.triggerId));
        const rows: (TriggerRow | undefined)[] = [];
        let disabled = false;
        for (const r of batch) {
          const out = await recordSlot(tx, r, now, { instanceId: this.instanceId, schedules: this.schedules });
          rows.push(out.row);
          disabled ||= out.disabled;
        }
        return { rows, disabled };
      }));
    } catch (err) {
      // The leases stay; the slots are tried again (same idempotency keys) once they expire.
      this.log?.error({ err }, 'scheduler could not record finished runs');
      const retryAt = new Date(now.getTime() + this.leaseMs).toISOString();
      rows = batch.map((r) => {
        const k = this.due.get(r.firing.triggerId);
        return k ? { ...k.row, next_run_at: retryAt } : undefined;
      });
    }
    batch.forEach((r, i) => {
      this.inFlight.delete(r.firing.triggerId);
      this.due.remember(rows[i], r.firing.triggerId);
    });
    // The automation's other schedule triggers stopped too.
    if (disabled) this.schedulesChanged();
    this.pump();
  }

  /**
   * Gives back the leases of the slots leased ahead of their time (when stopping): another daemon,
   * or this one started again, fires them on time instead of after the leases expire.
   */
  private giveBackAhead(): void {
    const firings = [...this.ahead.values()].flatMap((w) => w.firings);
    for (const { timer } of this.ahead.values()) this.timers.clear(timer);
    this.ahead.clear();
    if (firings.length === 0) return;
    const ids = firings.map((f) => f.triggerId);
    this.track(
      this.store
        .write((tx) => releaseLeases(tx, ids, this.instanceId))
        // The other daemons skipped these slots for our leases: told, they fire them on time.
        .then(() => this.store.publish('schedules'))
        .catch((err) => this.log?.warn({ err, slots: ids.length }, 'scheduler could not give back the leases of slots not yet due; they are taken over when the leases expire'))
        .finally(() => {
          for (const id of ids) this.inFlight.delete(id);
        }),
    );
  }

  /** Leases held by other owners when an exclusive scheduler starts belong to dead daemons. */
  private async releaseDeadLeases(): Promise<void> {
    const released = await this.store.write((tx) => releaseOthersLeases(tx, this.instanceId));
    if (released > 0) {
      this.log?.info({ released }, 'scheduler took over leases left by a stopped daemon');
      this.metrics?.leaseTakenOver(released);
    }
  }

  private window(): number {
    return Math.max(this.catchUpWindowMs, LATE_GRACE_MS);
  }

  private track<T>(p: Promise<T>): Promise<T> {
    this.work.add(p);
    void p.finally(() => this.work.delete(p)).catch(() => undefined);
    return p;
  }
}

/** The firings by team, in the order their teams first come. */
function groupByTeam(firings: Firing[]): Firing[][] {
  const byTeam = new Map<string, Firing[]>();
  for (const f of firings) {
    const group = byTeam.get(f.automation.team_id);
    if (group) group.push(f);
    else byTeam.set(f.automation.team_id, [f]);
  }
  return [...byTeam.values()];
}

/**
 * Reads a batch's triggers and their automations together, before its slots are gone through one
 * by one: one wait for the batch rather than one per slot, as the transaction has them at hand after.
 */
async function readTogether(tx: ReadTx, triggerIds: readonly string[]): Promise<void> {
  const triggers = await tx.getMany('triggers', triggerIds);
  await tx.getMany('automations', [...new Set(triggers.flatMap((t) => (t ? [t.automation_id] : [])))]);
}
