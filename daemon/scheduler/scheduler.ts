// The scheduler (CONTRACT §5). It sleeps on one timer until the earliest due trigger, then fires
// each due slot in three steps: lease the trigger (a durable write), start the session with the
// slot's idempotency key, and record the run while clearing the lease. A crash between any two
// steps leaves either a lease (picked up again once it expires, or at once by the next daemon on
// this data folder) or a started session that the same key finds again: one slot, one session.
//
// Due times live in a min-heap rebuilt from the triggers table whenever schedules change, so a
// burst of thousands of due slots costs O(log n) each to take; leases and run records are
// written in batches, and up to `concurrency` session starts are in flight at once.
import { scheduleKey } from './keys.js';
import { randomUUID } from 'node:crypto';
import { formatInZone } from '../../shared/cron.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { applyRunOutcome } from '../sessions/automation-health.js';
import type { Store, WriteTx } from '../store/store.js';
import type { AutomationRow, TriggerRow } from '../store/tables.js';
import { faultFromEnv, type FaultHook } from './fault.js';
import { DueHeap } from './heap.js';
import { isCron, planSlot, ScheduleCache, LATE_GRACE_MS, MAX_COUNTED_MISSES } from './slots.js';
import { MAX_TIMER_MS, realTimers, type Timers } from './timers.js';

export const DEFAULT_LEASE_MS = 5 * 60_000;
export const DEFAULT_CATCH_UP_WINDOW_MS = 60 * 60_000;
export const DEFAULT_CONCURRENCY = 1_000;
/** slots leased (and later recorded) per write transaction */
const BATCH = 512;
/** finished slots that may wait for their run record while other sessions are still starting */
const RECORD_BACKLOG = 10_000;
const RECORD_DELAY_MS = 1_000;
/** how long stop() waits for session starts in flight before leaving their leases behind */
const STOP_GRACE_MS = 10_000;
const MAX_ERROR_CHARS = 2000;

/** One slot's session, as the scheduler asks the session service for it. */
export interface ScheduledStart {
  teamId: string;
  prompt: string;
  environmentId: string | null;
  automationId: string;
  triggerId: string;
  idempotencyKey: string;
  /** start it only while the automation is active and the trigger enabled, as the write that stores it finds them */
  whileActive: { triggerIds: readonly string[] };
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
  leaseMs?: number;
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
  /** default: the crash points named by SVC_FAULT (see fault.ts), none when it is unset */
  fault?: FaultHook;
  log?: SchedulerLog;
}

export { scheduleKey };

/** A slot leased by this scheduler, on its way to a session. */
interface Firing {
  triggerId: string;
  automation: AutomationRow;
  slot: Date;
  leasedAt: Date;
}

/**
 * How a slot's start went. `denied`: the team was not admitted (402), so no run happened: the
 * error is noted on the automation but is no failed run, and does not count towards disabling it.
 */
type StartResult = { firing: Firing; started: boolean; error: string | null; errorRecorded: boolean; denied: boolean };

/** A trigger the heap knows about: the row it was computed from, and when it is next actionable. */
interface Known {
  row: TriggerRow;
  at: number;
}

export class Scheduler {
  readonly instanceId: string;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly timers: Timers;
  private readonly startSessions: StartSessions;
  private readonly leaseMs: number;
  private readonly catchUpWindowMs: number;
  private readonly exclusive: boolean;
  private readonly concurrency: number;
  private readonly log: SchedulerLog | undefined;
  private readonly fault: FaultHook | undefined;
  private readonly schedules = new ScheduleCache();

  private readonly heap = new DueHeap();
  private known = new Map<string, Known>();
  /** triggers being fired now: leased or about to be, session start or run record pending */
  private readonly inFlight = new Set<string>();
  /** slots between leaving the heap and their session start settling: what `concurrency` bounds */
  private starting = 0;
  private readonly finished: StartResult[] = [];
  private timer: unknown = null;
  private state: 'idle' | 'running' | 'stopped' = 'idle';
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
    this.leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
    this.catchUpWindowMs = opts.catchUpWindowMs ?? DEFAULT_CATCH_UP_WINDOW_MS;
    this.exclusive = opts.exclusive ?? false;
    this.concurrency = Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
    this.log = opts.log;
    this.fault = opts.fault ?? faultFromEnv();
  }

  /** Loads the schedules and arms the timer; missed slots are dealt with as soon as it fires. */
  async start(): Promise<void> {
    if (this.state !== 'idle') return;
    this.state = 'running';
    if (this.exclusive) await this.releaseDeadLeases();
    await this.rebuild();
  }

  /** Re-reads the schedules (coalescing bursts of calls) and re-arms the timer. */
  schedulesChanged(): void {
    if (this.state !== 'running') return;
    void this.rebuild();
  }

  /** Stops firing. Waits (a bounded time) for slots in flight to finish and be recorded. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.disarm();
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

  /** When the timer is set to wake next (epoch ms), or null when it sleeps with nothing due. */
  get nextWakeAt(): number | null {
    const top = this.validTop();
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
          await this.loadSchedules();
        } while (this.rebuildAgain);
      } catch (err) {
        this.log?.error({ err }, 'scheduler could not read the schedules');
      }
    })();
    this.rebuilding = this.track(run.finally(() => (this.rebuilding = null)));
    return this.rebuilding.then(() => this.pump());
  }

  private async loadSchedules(): Promise<void> {
    const rows = await this.store.read((tx) => tx.list('triggers', { kind: 'schedule' }));
    const previous = this.known;
    const known = new Map<string, Known>();
    for (const row of rows) {
      // Rows are immutable snapshots, so an unchanged object needs no new date parsing.
      const old = previous.get(row.id);
      if (old && old.row === row) {
        known.set(row.id, old);
        continue;
      }
      const at = this.actionableAt(row);
      if (at !== null) known.set(row.id, { row, at });
    }
    this.known = known;
    const entries: { id: string; at: number }[] = [];
    for (const [id, k] of known) if (!this.inFlight.has(id)) entries.push({ id, at: k.at });
    this.heap.reset(entries);
  }

  /** When the scheduler should next look at a trigger: its next run, or when a foreign lease ends. */
  private actionableAt(row: TriggerRow): number | null {
    if (row.next_run_at === null) return null;
    const due = Date.parse(row.next_run_at);
    if (Number.isNaN(due)) return null;
    if (row.lease_owner !== null && row.lease_owner !== this.instanceId && row.lease_until !== null) {
      const until = Date.parse(row.lease_until);
      if (!Number.isNaN(until)) return Math.max(due, until);
    }
    return due;
  }

  private remember(row: TriggerRow | undefined, id: string): void {
    const at = row ? this.actionableAt(row) : null;
    if (!row || at === null) {
      this.known.delete(id);
      return;
    }
    this.known.set(id, { row, at });
    this.heap.push({ id, at });
  }

  private validTop() {
    for (let top = this.heap.peek(); top; top = this.heap.peek()) {
      const k = this.known.get(top.id);
      if (k && k.at === top.at && !this.inFlight.has(top.id)) return top;
      this.heap.pop();
    }
    return undefined;
  }

  // ---- the timer ----

  private disarm(): void {
    if (this.timer !== null) this.timers.clear(this.timer);
    this.timer = null;
  }

  /** Sleeps until the earliest entry is due (in steps of at most ~24.8 days). */
  private arm(): void {
    this.disarm();
    if (this.state !== 'running') return;
    const top = this.validTop();
    if (!top) return;
    const delay = Math.min(Math.max(0, top.at - this.clock().getTime()), MAX_TIMER_MS);
    this.timer = this.timers.set(() => {
      this.timer = null;
      this.pump();
    }, delay);
  }

  /**
   * Takes the due slots off the heap, as many as there is room for, and leases them, BATCH to a
   * write. The writes run concurrently so their fsyncs are shared (group commit).
   */
  private pump(): void {
    if (this.state !== 'running') return;
    const now = this.clock().getTime();
    let ids: string[] = [];
    while (this.starting < this.concurrency) {
      const top = this.validTop();
      if (!top || top.at > now) break;
      this.heap.pop();
      this.inFlight.add(top.id);
      this.starting++;
      ids.push(top.id);
      if (ids.length === BATCH) {
        this.lease(ids);
        ids = [];
      }
    }
    if (ids.length > 0) this.lease(ids);
    // Without room, the slots in flight call pump() again as they finish.
    if (this.starting < this.concurrency) this.arm();
    else this.disarm();
  }

  private lease(ids: string[]): void {
    this.track(
      this.leaseAndStart(ids)
        .catch((err) => {
          this.log?.error({ err }, 'scheduler could not lease due slots; retrying after the lease time');
          const retryAt = this.clock().getTime() + this.leaseMs;
          for (const id of ids) {
            this.inFlight.delete(id);
            this.starting--;
            const k = this.known.get(id);
            if (k) this.remember({ ...k.row, next_run_at: new Date(Math.max(retryAt, k.at)).toISOString() }, id);
          }
          this.recordSoon();
        })
        .finally(() => this.pump()),
    );
  }

  // ---- firing ----

  private async leaseAndStart(ids: string[]): Promise<void> {
    const now = this.clock();
    const { firings, settled } = await this.store.write(async (tx) => {
      const firings: Firing[] = [];
      const settled: { id: string; row: TriggerRow | undefined; skipped?: number }[] = [];
      for (const id of ids) {
        const firing = await this.leaseOne(tx, id, now);
        if ('slot' in firing) firings.push(firing);
        else settled.push({ id, ...firing });
      }
      return { firings, settled };
    });
    for (const { id, skipped } of settled) if (skipped !== undefined) this.log?.info({ triggerId: id, skipped }, 'scheduler skipped missed slots');
    for (const { id, row } of settled) {
      this.inFlight.delete(id);
      this.starting--;
      this.remember(row, id);
    }
    this.recordSoon();
    if (firings.length === 0) return;
    this.fault?.('after-lease');
    // One batch of starts per team: a team that may not start work fails only its own slots.
    const byTeam = new Map<string, Firing[]>();
    for (const f of firings) {
      const group = byTeam.get(f.automation.team_id);
      if (group) group.push(f);
      else byTeam.set(f.automation.team_id, [f]);
    }
    for (const group of byTeam.values()) this.track(this.fire(group));
  }

  /**
   * In the lease transaction: re-checks that the slot is still due and may run, then leases it.
   * Returns the firing, or the trigger as it now stands when there is nothing to run.
   */
  private async leaseOne(tx: WriteTx, id: string, now: Date): Promise<Firing | { row: TriggerRow | undefined; skipped?: number }> {
    const t = await tx.get('triggers', id);
    if (!t || t.kind !== 'schedule') return { row: undefined };
    const a = await tx.get('automations', t.automation_id);
    if (!a) return { row: undefined };
    if (a.status !== 'active' || !t.enabled || t.status !== 'active') {
      // Paused, disabled or completed between the heap and now: no next run until resumed.
      if (t.next_run_at === null) return { row: t };
      const row = { ...t, next_run_at: null };
      tx.put('triggers', row);
      return { row };
    }
    if (this.leasedByOther(t, now)) return { row: t };
    const plan = planSlot(t, now, this.window(), this.schedules);
    if (!plan) return { row: t };
    const tz = t.timezone ?? 'UTC';
    if (!plan.run) {
      const row: TriggerRow = {
        ...t,
        next_run_at: plan.next?.toISOString() ?? null,
        status: plan.next === null ? 'completed' : t.status,
        lease_owner: null,
        lease_until: null,
      };
      tx.put('triggers', row);
      const what = `${plural(plan.skipped)} (${describeRange(plan.firstSkipped, plan.lastSkipped, tz)})`;
      await this.note(tx, a.id, `skipped ${what}: the newest was more than ${duration(this.window())} old when the daemon got to it, beyond the catch-up window; ${plan.next ? `next run ${formatInZone(plan.next, tz)}` : 'the one-off will not run'}`, now);
      return { row, skipped: plan.skipped };
    }
    if (plan.skipped > 0 && plan.firstSkipped && plan.lastSkipped) {
      const what = `${plural(plan.skipped)} (${describeRange(plan.firstSkipped, plan.lastSkipped, tz)})`;
      await this.note(tx, a.id, `skipped ${what} while the daemon was not running; caught up with one run for ${formatInZone(plan.slot, tz)}`, now);
    }
    await tx.update('triggers', id, { lease_owner: this.instanceId, lease_until: new Date(now.getTime() + this.leaseMs).toISOString() });
    return { triggerId: id, automation: a, slot: plan.slot, leasedAt: now };
  }

  private leasedByOther(t: TriggerRow, now: Date): boolean {
    if (t.lease_owner === null || t.lease_owner === this.instanceId || t.lease_until === null) return false;
    return Date.parse(t.lease_until) > now.getTime();
  }

  /** Starts the sessions of one team's leased slots (one batch, so their writes are shared). */
  private async fire(firings: Firing[]): Promise<void> {
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
          whileActive: { triggerIds: [f.triggerId] },
        })),
      );
    } catch (err) {
      outcomes = firings.map(() => ({ thrown: err }));
    }
    this.fault?.('after-start');
    firings.forEach((firing, i) => this.finished.push(this.startResult(firing, outcomes[i])));
    this.starting -= firings.length;
    this.recordSoon();
    this.pump();
  }

  private startResult(firing: Firing, outcome: ScheduledOutcome | { thrown: unknown }): StartResult {
    if ('created' in outcome) return { firing, started: true, error: null, errorRecorded: true, denied: false };
    // Paused (or the trigger disabled) since the lease: no run, and the record finds no next one.
    if ('inactive' in outcome) return { firing, started: false, error: null, errorRecorded: true, denied: false };
    const err = 'error' in outcome ? outcome.error : outcome.thrown;
    // The session service stores a session the runner refused as failed and records that outcome
    // itself; anything else (402, an environment gone) stored nothing, so it is ours to record.
    const refused = err instanceof ApiError && err.code === 'SESSION_START_FAILED';
    if (!(err instanceof ApiError)) this.log?.error({ err, triggerId: firing.triggerId }, 'scheduled session start failed');
    const error = `scheduled run for ${firing.slot.toISOString()} failed: ${err instanceof ApiError ? err.message : 'internal error'}`;
    const denied = err instanceof ApiError && err.code === 'EXECUTION_DENIED';
    return { firing, started: refused, error, errorRecorded: refused, denied };
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
        const batches: StartResult[][] = [];
        while (this.finished.length > 0) batches.push(this.finished.splice(0, BATCH));
        await Promise.all(batches.map((b) => this.recordBatch(b)));
      }),
    );
  }

  private async recordBatch(batch: StartResult[]): Promise<void> {
    const now = this.clock();
    let rows: (TriggerRow | undefined)[];
    let disabled = false;
    try {
      ({ rows, disabled } = await this.store.write(async (tx) => {
        const rows: (TriggerRow | undefined)[] = [];
        let disabled = false;
        for (const r of batch) {
          const out = await this.recordOne(tx, r, now);
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
        const k = this.known.get(r.firing.triggerId);
        return k ? { ...k.row, next_run_at: retryAt } : undefined;
      });
    }
    batch.forEach((r, i) => {
      this.inFlight.delete(r.firing.triggerId);
      this.remember(rows[i], r.firing.triggerId);
    });
    // The automation's other schedule triggers stopped too.
    if (disabled) this.schedulesChanged();
    this.pump();
  }

  private async recordOne(tx: WriteTx, r: StartResult, now: Date): Promise<{ row: TriggerRow | undefined; disabled: boolean }> {
    const { firing } = r;
    const at = now.toISOString();
    let disabled = false;
    if (r.error !== null && !r.errorRecorded) {
      if (r.denied) await this.note(tx, firing.automation.id, r.error, now);
      else disabled = await applyRunOutcome(tx, firing.automation.id, { ok: false, error: truncate(r.error) }, at);
    }
    const t = await tx.get('triggers', firing.triggerId);
    // Deleted meanwhile, or our lease ran out and another scheduler took the slot over.
    if (!t || t.lease_owner !== this.instanceId) return { row: t, disabled };
    const a = await tx.get('automations', t.automation_id);
    const active = !!a && a.status === 'active' && t.enabled && t.status === 'active';
    // The next slot from now, not from the slot: a run that started late causes no burst.
    const after = new Date(Math.max(now.getTime(), firing.slot.getTime()));
    const upcoming = this.schedules.next(t, after);
    const fields: Partial<TriggerRow> = {
      lease_owner: null,
      lease_until: null,
      last_run_at: r.started ? firing.leasedAt.toISOString() : t.last_run_at,
      next_run_at: active && upcoming ? upcoming.toISOString() : null,
      // A one-off whose time has passed is done, whether its run started or failed.
      status: !isCron(t) && upcoming === null ? 'completed' : t.status,
    };
    // The run is counted by an atomic add, not from the count read above.
    const row = r.started ? await tx.increment('triggers', t.id, { total_runs: 1 }, fields) : await tx.update('triggers', t.id, fields);
    return { row, disabled };
  }

  /**
   * Notes what the scheduler did on the automation (not a failed run: the count stays). Notes of
   * one moment (several schedule triggers of an automation caught up, or refused, together) add
   * up rather than replace each other.
   */
  private async note(tx: WriteTx, automationId: string, message: string, now: Date): Promise<void> {
    const a = await tx.get('automations', automationId);
    if (!a) return;
    const at = now.toISOString();
    const sameMoment = a.last_error !== null && a.last_error_at === at;
    if (sameMoment && a.last_error!.split('; also ').includes(message)) return;
    const text = sameMoment ? `${a.last_error}; also ${message}` : message;
    await tx.update('automations', automationId, { last_error: truncate(text), last_error_at: at });
  }

  /** Leases held by other owners when an exclusive scheduler starts belong to dead daemons. */
  private async releaseDeadLeases(): Promise<void> {
    const released = await this.store.write(async (tx) => {
      let released = 0;
      for (const t of await tx.list('triggers')) {
        if (t.lease_owner === null || t.lease_owner === this.instanceId) continue;
        await tx.update('triggers', t.id, { lease_owner: null, lease_until: null });
        released++;
      }
      return released;
    });
    if (released > 0) this.log?.info({ released }, 'scheduler took over leases left by a stopped daemon');
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

const plural = (n: number) => `${n >= MAX_COUNTED_MISSES ? `${n}+` : n} missed run${n === 1 ? '' : 's'}`;

function describeRange(first: Date, last: Date, tz: string): string {
  if (first.getTime() === last.getTime()) return formatInZone(first, tz);
  return `${formatInZone(first, tz)} to ${formatInZone(last, tz)}`;
}

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}

const truncate = (s: string) => (s.length > MAX_ERROR_CHARS ? s.slice(0, MAX_ERROR_CHARS - 1) + '…' : s);
