// Sessions (CONTRACT §3): stored first (`queued`), then handed to the runner; follow-up turns;
// the outcomes runners report. Event dispatch, the scheduler and the routes all start sessions
// through here, so admission, idempotency and automation health are decided in one place. The
// jobs themselves live beside it: start-batch.ts stores a batch's sessions, hand-over.ts hands
// turns to the runner and records what they come to, follow-up.ts publishes follow-ups,
// recovery.ts deals with what a daemon start finds left behind, reads.ts answers reads.
import type { SessionDto } from '../../shared/schemas/index.js';
import { requireAutomation } from '../automations/service.js';
import type { Clock } from '../clock.js';
import { conflict, type ApiError } from '../errors.js';
import type { PageResult } from '../http/pagination.js';
import type { SessionMetrics } from '../metrics/reporters.js';
import type { Runner, TurnReporter } from '../runner/runner.js';
import { UniqueViolation, type Store, type WriteTx } from '../store/store.js';
import type { SessionRow } from '../store/tables.js';
import { requireAdmitted } from './admission.js';
import type { AutomationHealth } from './automation-health.js';
import { followUp } from './follow-up.js';
import { InstanceClaims } from './claims.js';
import { HandOvers, type HandOverResult, type SessionLog } from './hand-over.js';
import { defaultEnvironmentId, getSession, listRuns, listSessions, type ListSessionsFilter } from './reads.js';
import { SessionRecovery, type RefusedAtRecovery } from './recovery.js';
import { storeStarts, type Inactive, type StartBatchOptions, type StartHooks, type StartRequests, type StartSessionRequest, type StoredStart } from './start-batch.js';
import { sessionView, type SessionEvent } from './view.js';

export type { HandOverResult, SessionLog } from './hand-over.js';
export type { ListSessionsFilter } from './reads.js';
export { RESTART_ERROR, type RefusedAtRecovery } from './recovery.js';
export type { Inactive, StartHooks, StartRequests, StartSessionRequest, StoredStart } from './start-batch.js';
export { MAX_FOLLOW_UP_CHARS } from './follow-up.js';

/**
 * One request of a batch start: the session's row and event (created=false when its key was seen
 * before), or why not. Rows rather than views: event dispatch and the scheduler only need to know
 * what happened, so the views are built by the callers that answer with them (see start()).
 */
export type StartResult = { row: SessionRow; event: SessionEvent; created: boolean } | { error: ApiError } | { inactive: Inactive };

export interface SessionServiceDeps {
  store: Store;
  clock: Clock;
  /**
   * this daemon's claims on the sessions it holds (see claims.ts); without them (tests of one
   * process) a fresh id whose row nobody writes, as in a data folder
   */
  claims?: InstanceClaims;
  /** builds the runner; it reports turns it finishes later to the reporter it is given */
  runner: (reporter: TurnReporter) => Runner;
  health: AutomationHealth;
  log?: SessionLog;
  /**
   * Runs in the write that records a recovery hand-over the runner refused: whoever answered for
   * the start when it stored the session (event dispatch, in its receipts) corrects that there.
   */
  refusedAtRecovery?: (tx: WriteTx, refused: readonly RefusedAtRecovery[]) => Promise<void> | void;
  /** counts sessions started and finished (/metrics) */
  metrics?: SessionMetrics;
}

export class SessionService implements TurnReporter {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly runner: Runner;
  private readonly turns: HandOvers;
  private readonly recovery: SessionRecovery;
  private readonly claims: InstanceClaims;
  private readonly metrics: SessionMetrics | undefined;

  constructor(deps: SessionServiceDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.metrics = deps.metrics;
    this.runner = deps.runner(this);
    this.claims = deps.claims ?? new InstanceClaims({ store: deps.store, clock: deps.clock, exclusive: true });
    this.turns = new HandOvers({ store: deps.store, instanceId: this.claims.instanceId, clock: deps.clock, runner: this.runner, health: deps.health, log: deps.log, metrics: deps.metrics });
    this.recovery = new SessionRecovery({
      store: deps.store,
      clock: deps.clock,
      turns: this.turns,
      claims: this.claims,
      health: deps.health,
      log: deps.log,
      refusedAtRecovery: deps.refusedAtRecovery,
      metrics: deps.metrics,
    });
  }

  get runnerKind() {
    return this.runner.kind;
  }

  /**
   * Stores the session (queued) durably, hands it to the runner, returns it running/completed.
   * A runner that answers at once (record) has it stored completed in one write instead.
   * Idempotent by its key (see keys.ts): a key seen before returns the existing session,
   * created=false, and starts nothing (the key is checked and taken in the write transaction that
   * stores the session, so concurrent duplicates cannot both start).
   * Throws EXECUTION_DENIED (402) when the team is not admitted (nothing stored), and
   * SESSION_START_FAILED (502) when the runner refuses (the session is stored `failed`).
   */
  async start(req: StartSessionRequest): Promise<{ session: SessionDto; created: boolean }> {
    const [result] = await this.startMany([req]);
    if ('error' in result) throw result.error;
    if ('inactive' in result) throw conflict('the automation is no longer active');
    return { session: sessionView(result.row, result.event), created: result.created };
  }

  /**
   * `start` for several sessions at once, in two write transactions whatever their number: one
   * stores every queued session (its prompt and key on its row) before any is
   * handed over, the other stores what the hand-overs came to. `hooks` add the caller's rows to
   * each of those transactions, so they become durable together with the sessions.
   * A team that is not admitted fails the whole batch with EXECUTION_DENIED and stores nothing;
   * any other refusal (an environment of another team, a key of another team, the runner
   * refusing) is that request's `error`, and the others go ahead.
   */
  async startMany(reqs: StartRequests, hooks: StartHooks = {}): Promise<StartResult[]> {
    const answer = this.runner.answerAtOnce?.();
    let stored: StoredStart[];
    try {
      stored = await this.store.write((tx) => storeStarts(tx, reqs, hooks, this.batchOptions(answer, false)));
    } catch (err) {
      // A key the batch's shortcut took for new had started a session after all (see BatchKeys):
      // the store refused it, and the batch is made again with every key looked up.
      if (!(err instanceof UniqueViolation) || err.table !== 'sessions') throw err;
      stored = await this.store.write((tx) => storeStarts(tx, reqs, hooks, this.batchOptions(answer, true)));
    }
    if (this.metrics) this.metrics.sessionsStarted(stored.flatMap((s) => ('row' in s && s.created ? [s.row] : [])));
    // Sessions a runner answered at once are complete as stored: there is nothing to hand over.
    if (answer !== undefined) return stored;
    const fresh = stored.flatMap((s) => ('row' in s && s.created ? [s] : []));
    const handedOver = fresh.length > 0 ? await this.turns.handOver(fresh, hooks.settled) : new Map<string, HandOverResult>();
    return stored.map((s): StartResult => {
      if (!('row' in s)) return s;
      const settled = handedOver.get(s.row.session_id);
      if (settled && 'error' in settled) return s.created ? settled : { row: s.row, event: s.event, created: false };
      return { row: settled ?? s.row, event: s.event, created: s.created };
    });
  }

  private batchOptions(answer: string | undefined, exactKeys: boolean): StartBatchOptions {
    return { now: this.clock().toISOString(), runnerKind: this.runner.kind, answer, exactKeys, instanceId: this.claims.instanceId };
  }

  /**
   * Runs an automation now, as a schedule would but without a trigger or idempotency key. Its
   * status does not matter: a paused or disabled automation can still be run by hand.
   */
  async runNow(teamId: string, automationId: string): Promise<SessionDto> {
    const a = await this.store.read((tx) => requireAutomation(tx, teamId, automationId));
    const { session } = await this.start({ teamId, prompt: a.prompt, environmentId: a.environment_id, automationId: a.id });
    return session;
  }

  /** The sessions an automation started, newest first. */
  listRuns(teamId: string, automationId: string, page: Omit<ListSessionsFilter, 'automation_id'>): Promise<PageResult<SessionDto>> {
    return listRuns(this.store, teamId, automationId, page);
  }

  /** The environment a session runs in when none is named: the team's `default`. */
  defaultEnvironmentId(teamId: string): Promise<string | null> {
    return defaultEnvironmentId(this.store, teamId);
  }

  /** 402 EXECUTION_DENIED unless the team may start or resume work. */
  async assertAdmitted(teamId: string): Promise<void> {
    await this.store.read((tx) => requireAdmitted(tx, teamId));
  }

  list(teamId: string, filter: ListSessionsFilter): Promise<PageResult<SessionDto>> {
    return listSessions(this.store, teamId, filter);
  }

  get(teamId: string, sessionId: string) {
    return getSession(this.store, teamId, sessionId);
  }

  /** Spec 4.2: publishes a follow-up turn to a running or completed root session. */
  followUp(teamId: string, sessionId: string, rawMessage: string): Promise<{ accepted: true; session_id: string }> {
    return followUp({ store: this.store, turns: this.turns, clock: this.clock }, teamId, sessionId, rawMessage);
  }

  /**
   * What the first hand-over of a session comes to, while one is under way (undefined when none
   * is, or when it failed unexpectedly): a delivery that found the session may answer with it.
   */
  handOverOf(sessionId: string): Promise<HandOverResult | undefined> | undefined {
    return this.turns.handOverOf(sessionId);
  }

  // ---- what runners report ----

  turnCompleted(sessionId: string, message: string): Promise<void> {
    return this.turns.turnCompleted(sessionId, message);
  }

  async turnFailed(sessionId: string, turnError: string, output?: string, interrupted = false): Promise<void> {
    await this.turns.turnFailed(sessionId, turnError, output, interrupted);
    // A failed turn fails its session: a runner takes a session's turns one at a time, and drops
    // those queued behind a failed one, so it reports no second failure of the same session.
    this.metrics?.sessionFinished('failed');
  }

  // ---- daemon start and stop ----

  /**
   * At daemon start: hands over the sessions left queued, fails those a dead process left running,
   * then, on a shared database, does so for the sessions of each daemon whose claim expires (see
   * recovery.ts).
   */
  recover(): Promise<void> {
    return this.recovery.recover();
  }

  /** Resolves once recovery at start knows which sessions it will hand over (see Recovery.listed). */
  recoveryListed(): Promise<void> {
    return this.recovery.listed();
  }

  /**
   * Ends the runner's turns (they fail: the daemon is going away) once recovery has finished the
   * hand-overs under way; it starts no more (what is left stays queued). Then this daemon's claim
   * ends: other daemons sharing the database take up what it left without waiting for it to expire.
   */
  async stop(): Promise<void> {
    this.recovery.stopHandingOverLeftQueued();
    await this.recovery.settled();
    await this.runner.stop();
    await this.claims.stop();
  }

  /** The daemon is stopping: recovery starts no more hand-overs (see stop()). */
  stopHandingOverLeftQueued(): void {
    this.recovery.stopHandingOverLeftQueued();
  }
}
