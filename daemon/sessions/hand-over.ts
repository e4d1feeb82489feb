// A session's turns with the runner: handing them over, the turns in flight, and what the
// runner says they came to (accepted and running, answered, refused, failed), recorded on the
// session and counted on its automation. The turns in flight are counted on the session's row
// (`turns_in_flight`), not in this process: with daemons sharing a database, a session's turns
// may run on several, and it completes with the last of them, whichever daemon records it.
import { newId } from '../store/new-id.js';
import type { SessionDto } from '../../shared/schemas/index.js';
import type { Clock } from '../clock.js';
import type { SessionMetrics } from '../metrics/reporters.js';
import { ApiError, notFound } from '../errors.js';
import { RunnerRefused, type HandOver, type Runner, type Turn } from '../runner/runner.js';
import type { Store, WriteTx } from '../store/store.js';
import type { MessageRow, SessionRow } from '../store/tables.js';
import { slotOfScheduleKey } from '../scheduler/keys.js';
import { applyRunOutcome, type AutomationHealth, type RunOutcome } from './automation-health.js';
import type { StartHooks } from './start-batch.js';
import { TurnOutcomes, type TurnOutcome } from './turn-outcomes.js';
import { readSessionView, sessionView, type SessionEvent } from './view.js';

/** What a handed-over session came to: its row after the hand-over, or why it could not start. */
export type HandOverResult = SessionRow | { error: ApiError };

/** Tells those waiting on sessions' hand-over what it came to (undefined: nothing is known). */
export type SettleHandOver = (results: ReadonlyMap<string, HandOverResult> | undefined) => void;

type Plan = { id: string } & (
  | { kind: 'refused'; error: string }
  | { kind: 'completed'; message: string }
  | { kind: 'running' }
);

export interface SessionLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface HandOverDeps {
  store: Store;
  /** this daemon's instance id: a turn it hands over claims the session (SessionRow.claimed_by) */
  instanceId: string;
  clock: Clock;
  runner: Runner;
  health: AutomationHealth;
  log?: SessionLog;
  metrics?: SessionMetrics;
}

export class HandOvers {
  readonly runner: Runner;
  readonly instanceId: string;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly health: AutomationHealth;
  private readonly log: SessionLog | undefined;
  private readonly metrics: SessionMetrics | undefined;
  /**
   * turns this process has with its runner, per session: only so recovery leaves them alone (the
   * row's `turns_in_flight` decides when a session completes)
   */
  private readonly inFlight = new Map<string, number>();
  /**
   * per session, the `session_turns` rows of this process's turns of a session another daemon
   * claims (oldest first): the write that ends such a turn deletes one (see follow-up.ts)
   */
  private readonly unclaimed = new Map<string, string[]>();
  /** what a session's other turns come to while a follow-up is being handed over (see unpublish) */
  readonly turnOutcomes = new TurnOutcomes();
  /** sessions whose first hand-over is under way, each with what its batch's hand-overs come to */
  private readonly handingOver = new Map<string, Promise<ReadonlyMap<string, HandOverResult> | undefined>>();

  constructor(deps: HandOverDeps) {
    this.store = deps.store;
    this.instanceId = deps.instanceId;
    this.clock = deps.clock;
    this.runner = deps.runner;
    this.health = deps.health;
    this.log = deps.log;
    this.metrics = deps.metrics;
  }

  /** Whether a turn of the session is with the runner now. */
  isInFlight(sessionId: string): boolean {
    return this.inFlight.has(sessionId);
  }

  /**
   * Hands the first turn of each stored session to the runner (all at once), then records what
   * came of them in one write: running, completed, or failed when the runner refused.
   */
  async handOver(starts: readonly { row: SessionRow; event: SessionEvent }[], settledHook?: StartHooks['settled']): Promise<Map<string, HandOverResult>> {
    let done!: (results: ReadonlyMap<string, HandOverResult> | undefined) => void;
    const outcome = new Promise<ReadonlyMap<string, HandOverResult> | undefined>((resolve) => (done = resolve));
    for (const { row } of starts) this.handingOver.set(row.session_id, outcome);
    let results: Map<string, HandOverResult> | undefined;
    try {
      results = await this.handOverNow(starts, settledHook);
      return results;
    } finally {
      for (const { row } of starts) this.handingOver.delete(row.session_id);
      done(results);
    }
  }

  /**
   * What the first hand-over of a session comes to, while one is under way (undefined when none
   * is, or when it failed unexpectedly): a delivery that found the session may answer with it.
   */
  handOverOf(sessionId: string): Promise<HandOverResult | undefined> | undefined {
    return this.handingOver.get(sessionId)?.then((results) => results?.get(sessionId));
  }

  private async handOverNow(starts: readonly { row: SessionRow; event: SessionEvent }[], settledHook?: StartHooks['settled']): Promise<Map<string, HandOverResult>> {
    const rows = starts.map((s) => s.row);
    for (const row of rows) this.track(row.session_id);
    const handedAt = this.now();
    const taken = await Promise.all(
      starts.map(({ row, event }) =>
        this.runner.take(this.turn(row, row.prompt, event, handedAt)).then(
          (handOver): { handOver: HandOver } => ({ handOver }),
          (err: unknown) => ({ err }),
        ),
      ),
    );
    // In-flight bookkeeping happens before the write, as a runner's own reports may interleave.
    const plans = rows.map((row, i): Plan => {
      const id = row.session_id;
      const t = taken[i];
      if ('err' in t) {
        this.logUnexpected(t.err);
        this.untrack(id);
        return { id, kind: 'refused', error: `the runner could not start the session: ${reasonOf(t.err)}` };
      }
      if (t.handOver.state === 'completed') {
        this.untrack(id);
        return { id, kind: 'completed', message: t.handOver.message };
      }
      // A runner that never reports outcomes will not mention this turn again: it is not in flight here.
      if (!this.runner.reportsOutcomes) this.untrack(id);
      return { id, kind: 'running' };
    });
    const { out: results, disabled, answered: answeredIds } = await this.store.write(async (tx) => {
      const now = this.now();
      const out = new Map<string, HandOverResult>();
      let disabled = false;
      const answered: string[] = [];
      for (const plan of plans) {
        if (plan.kind === 'refused') {
          disabled = (await this.failIn(tx, plan.id, plan.error, now)) || disabled;
          out.set(plan.id, { error: new ApiError('SESSION_START_FAILED', plan.error) });
          continue;
        }
        const s = await tx.get('sessions', plan.id);
        if (!s) {
          out.set(plan.id, { error: notFound('session') });
          continue;
        }
        if (plan.kind === 'completed') {
          out.set(plan.id, await this.finishTurnIn(tx, s, plan.message, now));
          answered.push(plan.id);
        } else {
          const applied = await this.runningIn(tx, s, now);
          disabled = applied.disabled || disabled;
          out.set(plan.id, applied.row);
        }
      }
      await settledHook?.(tx, out);
      return { out, disabled, answered };
      // The sessions are durably queued already: were this write lost in a crash, the next start
      // hands them over again (see recover()), so the caller need not wait for its fsync. Unless
      // the runner refused one: the caller answers that failure, and a restart must not undo it.
    }, { wait: plans.some((p) => p.kind === 'refused') ? 'durable' : 'applied' });
    this.metrics?.handOversSettled(results.values());
    for (const id of answeredIds) {
      const row = results.get(id);
      if (row && !('error' in row)) this.turnOutcomes.note(id, answered(row));
    }
    this.health.disabled(disabled);
    return results;
  }

  /**
   * A session whose start failed: `failed` with the error, counted against its automation, whose
   * note names the slot when a schedule started it (as the scheduler's own notes do).
   */
  private async failIn(tx: WriteTx, sessionId: string, error: string, now: string): Promise<boolean> {
    const s = await tx.get('sessions', sessionId);
    if (!s) return false;
    tx.put('sessions', { ...s, status: 'failed', last_error: error, completed_at: now, updated_at: now, turns_in_flight: 0 });
    if (!s.automation_id) return false;
    const slot = s.idempotency_key === null ? undefined : slotOfScheduleKey(s.idempotency_key);
    return applyRunOutcome(tx, s.automation_id, { ok: false, error: slot ? `scheduled run for ${slot} failed: ${error}` : error }, now);
  }

  /** An accepted hand-over of a turn the runner still works on. Returns whether it disabled an automation. */
  private async runningIn(tx: WriteTx, s: SessionRow, now: string): Promise<{ row: SessionRow; disabled: boolean }> {
    const started: Partial<SessionRow> = s.status === 'queued' ? { status: 'running', started_at: s.started_at ?? now } : {};
    const fields = { runner: this.runner.kind, updated_at: now, ...started };
    // A runner that never reports outcomes holds the turn remotely: none of ours is in flight any more.
    const next = this.runner.reportsOutcomes ? await tx.update('sessions', s.session_id, fields) : await withTurns(tx, s, -1, fields);
    // A runner that never reports outcomes: the accepted hand-over is the run's success.
    const disabled = !this.runner.reportsOutcomes && s.automation_id ? await applyRunOutcome(tx, s.automation_id, { ok: true }, now) : false;
    return { row: next, disabled };
  }

  /** Records an accepted follow-up hand-over. A runner may already have reported the turn finished. */
  async applyHandOver(sessionId: string, handOver: HandOver): Promise<SessionDto> {
    if (handOver.state === 'completed') {
      this.untrack(sessionId);
      return this.finishTurn(sessionId, handOver.message);
    }
    let turnRow: string | undefined;
    if (!this.runner.reportsOutcomes) {
      this.untrack(sessionId);
      // (the turn leaves this process: nothing of it dies with this daemon any more)
      turnRow = this.takeUnclaimedTurn(sessionId);
      // The remote runtime holds this turn now, whatever becomes of another being handed over.
      this.turnOutcomes.note(sessionId, { status: 'running' });
    }
    const { view, disabled } = await this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      if (!s) throw notFound('session');
      if (turnRow) tx.delete('session_turns', turnRow);
      const applied = await this.runningIn(tx, s, this.now());
      return { view: await readSessionView(tx, applied.row), disabled: applied.disabled };
    });
    this.health.disabled(disabled);
    return view;
  }

  /** A turn finished: its answer is stored, and the session completes when no turn is left. */
  private async finishTurn(sessionId: string, message: string): Promise<SessionDto> {
    // (taken before the write: its callback may run again, and must take the same row)
    const turnRow = this.takeUnclaimedTurn(sessionId);
    const write = this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      if (!s) throw notFound('session');
      if (turnRow) tx.delete('session_turns', turnRow);
      const row = await this.finishTurnIn(tx, s, message, this.now());
      return { row, view: await readSessionView(tx, row), completed: s.status !== 'completed' && row.status === 'completed' };
    });
    // A follow-up being handed over meanwhile learns of the answer once it is stored (see unpublish).
    this.turnOutcomes.noteWhenStored(sessionId, write.then(({ row }) => answered(row)));
    const { view, completed } = await write;
    if (completed) this.metrics?.sessionFinished('completed');
    return view;
  }

  /** One turn answered: the session completes when it was the last in flight, on any daemon. */
  private async finishTurnIn(tx: WriteTx, s: SessionRow, message: string, now: string): Promise<SessionRow> {
    if (message) tx.insert('messages', messageRow(s.session_id, 'assistant', message, now));
    const done = (s.status === 'queued' || s.status === 'running') && turnsOf(s) <= 1;
    if (done && s.automation_id) await applyRunOutcome(tx, s.automation_id, { ok: true } satisfies RunOutcome, now);
    const completed: Partial<SessionRow> = done ? { status: 'completed', started_at: s.started_at ?? now, completed_at: now } : {};
    return withTurns(tx, s, -1, { runner: this.runner.kind, updated_at: now, ...completed });
  }

  /**
   * A refused follow-up leaves no trace: its message goes, and the session is as it would be had
   * the follow-up never come: as the last of its other turns left it while this one was being
   * handed over (`since`), else as it was. Turns still in flight (on any daemon) keep it running.
   */
  async unpublish(before: SessionRow, message: MessageRow, since: TurnOutcome | undefined): Promise<void> {
    const turnRow = this.takeUnclaimedTurn(before.session_id);
    const disabled = await this.store.write(async (tx) => {
      tx.delete('messages', message.id);
      if (turnRow) tx.delete('session_turns', turnRow);
      const found = await tx.get('sessions', before.session_id);
      if (!found) return false;
      const s = await withTurns(tx, found, -1, {});
      if (s.status !== 'running' || turnsOf(s) > 0) return false;
      const now = this.now();
      // Turns that were in flight when the follow-up came have all ended since; on another daemon,
      // unseen here: one that failed would have failed the session, so they were answered (unless
      // a webhook runtime holds them, which keeps it running).
      const answeredElsewhere = !since && turnsOf(before) > 0 && s.runner !== 'webhook' ? { status: 'completed' as const, at: s.updated_at } : undefined;
      const outcome = since ?? answeredElsewhere;
      if (outcome?.status === 'completed') {
        // That turn was the session's last, but counted this one as still to come.
        tx.put('sessions', { ...s, status: 'completed', completed_at: outcome.at, updated_at: now });
        return s.automation_id ? applyRunOutcome(tx, s.automation_id, { ok: true } satisfies RunOutcome, now) : false;
      }
      if (!outcome && before.status === 'completed') {
        tx.put('sessions', { ...s, status: 'completed', completed_at: before.completed_at, updated_at: now });
      }
      return false;
    });
    this.health.disabled(disabled);
  }

  /**
   * Registers sessions as being handed over (see handOverOf) until the returned function is
   * called with what their hand-over came to (undefined: nothing is known).
   */
  expectHandOver(ids: readonly string[]): SettleHandOver {
    let settle!: SettleHandOver;
    const outcome = new Promise<ReadonlyMap<string, HandOverResult> | undefined>((resolve) => (settle = resolve));
    for (const id of ids) if (!this.handingOver.has(id)) this.handingOver.set(id, outcome);
    return (results) => {
      for (const id of ids) if (this.handingOver.get(id) === outcome) this.handingOver.delete(id);
      settle(results);
    };
  }

  // ---- what runners report ----

  async turnCompleted(sessionId: string, message: string): Promise<void> {
    this.untrack(sessionId);
    await this.finishTurn(sessionId, message);
  }

  async turnFailed(sessionId: string, turnError: string, output?: string, interrupted = false): Promise<void> {
    this.inFlight.delete(sessionId);
    // A failed session takes no more turns: follow-ups queued behind this one never run, and say so.
    const dropped = this.runner.discard(sessionId);
    const error = dropped === 0 ? turnError : `${turnError} (${dropped} follow-up turn${dropped === 1 ? '' : 's'} queued behind it did not run)`;
    // None of this process's turns of the session runs on: their rows go with the session's count.
    const turnRows = this.unclaimed.get(sessionId) ?? [];
    this.unclaimed.delete(sessionId);
    const disabled = await this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      for (const id of turnRows) tx.delete('session_turns', id);
      if (!s) return false;
      const now = this.now();
      if (output) tx.insert('messages', messageRow(sessionId, 'assistant', output, now));
      if (s.status === 'failed' || s.status === 'cancelled') return false;
      tx.put('sessions', { ...s, status: 'failed', last_error: error, completed_at: now, updated_at: now, turns_in_flight: 0 });
      return s.automation_id ? applyRunOutcome(tx, s.automation_id, { ok: false, error, interrupted }, now) : false;
    });
    this.health.disabled(disabled);
  }

  /**
   * The session as the runner sees it: running, since the runner holds the turn. The view is built
   * when a runner first reads it (exec and webhook do; record never does), and kept.
   */
  turn(s: SessionRow, message: string, event: SessionEvent, now: string): Turn {
    let session: SessionDto | undefined;
    return {
      get session() {
        return (session ??= { ...sessionView(s, event), status: 'running', started_at: s.started_at ?? now });
      },
      prompt: s.prompt,
      message,
      event,
    };
  }

  /** A turn this process runs of a session another daemon claims, recorded as `rowId` in `session_turns`. */
  noteUnclaimedTurn(sessionId: string, rowId: string): void {
    this.unclaimed.set(sessionId, [...(this.unclaimed.get(sessionId) ?? []), rowId]);
  }

  /** The `session_turns` row of one of this process's unclaimed turns of the session, now ending (none: the hot path). */
  private takeUnclaimedTurn(sessionId: string): string | undefined {
    const rows = this.unclaimed.get(sessionId);
    if (!rows) return undefined;
    const row = rows.shift();
    if (rows.length === 0) this.unclaimed.delete(sessionId);
    return row;
  }

  track(sessionId: string): void {
    this.inFlight.set(sessionId, (this.inFlight.get(sessionId) ?? 0) + 1);
  }

  /** One turn fewer in flight; returns how many are left. */
  untrack(sessionId: string): number {
    const left = Math.max(0, (this.inFlight.get(sessionId) ?? 0) - 1);
    if (left === 0) this.inFlight.delete(sessionId);
    else this.inFlight.set(sessionId, left);
    return left;
  }

  logUnexpected(err: unknown): void {
    if (!(err instanceof RunnerRefused)) this.log?.error({ err }, 'the runner failed while taking a turn');
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

/** Turns of the session in flight (none on rows written before they were counted). */
export const turnsOf = (s: SessionRow): number => s.turns_in_flight ?? 0;

/**
 * The session with `delta` more turns in flight (never fewer than none) and the fields of `set`:
 * by an atomic increment, so two daemons ending two turns of one session count both.
 */
export function withTurns(tx: WriteTx, s: SessionRow, delta: number, set: Partial<SessionRow>): Promise<SessionRow> {
  const turns = turnsOf(s) + delta;
  if (s.turns_in_flight === undefined || turns < 0) return tx.update('sessions', s.session_id, { ...set, turns_in_flight: Math.max(0, turns) });
  return tx.increment('sessions', s.session_id, { turns_in_flight: delta }, set);
}

/** A message of the session, stored when it is published or answered. */
export function messageRow(sessionId: string, role: MessageRow['role'], content: string, at: string): MessageRow {
  return { id: newId(), session_id: sessionId, role, content, created_at: at };
}

/** What a turn the row records as answered comes to (see TurnOutcomes). */
const answered = (row: SessionRow): TurnOutcome => ({ status: 'completed', at: row.updated_at });

/** What a client may read about a refusal: a runner's own words, never an internal error's. */
export const reasonOf = (err: unknown) => (err instanceof RunnerRefused ? err.message : 'the runner failed unexpectedly');
