// Sessions (CONTRACT §3): stored first (`queued`), then handed to the runner; follow-up turns;
// the outcomes runners report. Event dispatch, the scheduler and the routes all start sessions
// through here, so admission, idempotency and automation health are decided in one place.
import { newId, TeamIdRuns } from '../store/new-id.js';
import type { SessionDto } from '../../shared/schemas/index.js';
import { requireAutomation } from '../automations/service.js';
import type { Clock } from '../clock.js';
import { ApiError, conflict, invalid, notFound } from '../errors.js';
import { keysetPage, type PageRequest, type PageResult } from '../http/pagination.js';
import { RunnerRefused, type HandOver, type Runner, type Turn, type TurnReporter } from '../runner/runner.js';
import { UniqueViolation, type ReadTx, type Store, type WriteTx } from '../store/store.js';
import type { AutomationRow, MessageRow, SessionRow, SessionStatus } from '../store/tables.js';
import { DEFAULT_ENV_SLUG, findEnvironmentBySlug } from '../teams/service.js';
import { slotOfScheduleKey } from '../scheduler/keys.js';
import { applyRunOutcome, type AutomationHealth, type RunOutcome } from './automation-health.js';
import { BatchKeys, startingEventId, type StartKey } from './keys.js';
import { TurnOutcomes, type TurnOutcome } from './turn-outcomes.js';
import { messageView, readSessionView, sessionEvent, sessionView, storedOnSession } from './view.js';

export interface StartSessionRequest {
  teamId: string;
  prompt: string;
  environmentId: string | null;
  automationId?: string;
  triggerId?: string;
  /**
   * Stored on the session, for a session no event starts (a schedule slot's). A session an event
   * starts for an automation is keyed `event:{automationId}:{eventId}`, kept as the session's
   * `automation_id` and `event_id`.
   */
  idempotencyKey?: string;
  /**
   * The event that starts the session: its receipt (the `events` row, stored in the same write
   * by the caller, after the sessions), and the event itself.
   */
  event?: { rowId: string; data: SessionEvent };
  /**
   * Start it only while its automation is active and one of these of its triggers enabled, as
   * the write that stores the session finds them: event dispatch and the scheduler judged that
   * in an earlier read, and a pause acknowledged since must stop the run. Otherwise the request
   * comes to `inactive`, and nothing is stored for it.
   */
  whileActive?: { triggerIds: readonly string[] };
}

/**
 * Why a request made `whileActive` started nothing: its automation is gone or no longer active
 * (`automation` as the write found it), or none of its triggers is enabled any more.
 */
export interface Inactive {
  automation: AutomationRow | undefined;
  cause: 'automation' | 'trigger';
}

/** What one start batch's requests have settled so far, so the next ones need not look again. */
interface BatchState {
  /** environment id -> the team it was found to belong to */
  checkedEnvs: Map<string, string>;
  keys: BatchKeys;
  /** automations whose run the runner answered at once: one success each, applied at the end */
  answered: Set<string>;
  /** the batch's session ids, one run per team (a scheduler batch may span teams): the store keeps each run's sessions together */
  ids: TeamIdRuns;
}

type SessionEvent = SessionDto['event'];

/** What a request came to in the write that stores queued sessions (`event`: the session's). */
export type StoredStart = { row: SessionRow; created: boolean; event: SessionEvent } | { error: ApiError } | { inactive: Inactive };

/** What a handed-over session came to: its row after the hand-over, or why it could not start. */
export type HandOverResult = SessionRow | { error: ApiError };

/**
 * One request of a batch start: the session's row and event (created=false when its key was seen
 * before), or why not. Rows rather than views: event dispatch and the scheduler only need to know
 * what happened, so the views are built by the callers that answer with them (see start()).
 */
export type StartResult = { row: SessionRow; event: SessionEvent; created: boolean } | { error: ApiError } | { inactive: Inactive };

/**
 * Rows a caller wants durable together with a batch's sessions (see startMany). A hook runs
 * inside a write's callback, which a backend may run more than once: it only reads and writes
 * through `tx`, and whatever it hands back to its caller it sets whole at each run.
 */
export interface StartHooks {
  /** runs inside the write that stores the queued sessions, given what each request came to */
  stored?(tx: WriteTx, starts: readonly StoredStart[]): Promise<void> | void;
  /**
   * runs inside the write that stores the hand-overs, given each new session's outcome by id. Not
   * with a runner that answers at once: it completes every session as `stored` stores it, so
   * nothing is left to settle (and no map of hundreds of sessions is built per batch).
   */
  settled?(tx: WriteTx, outcomes: ReadonlyMap<string, HandOverResult>): Promise<void> | void;
}

type Plan = { id: string } & (
  | { kind: 'refused'; error: string }
  | { kind: 'completed'; message: string; remaining: number }
  | { kind: 'running' }
);

export interface ListSessionsFilter extends PageRequest {
  status?: SessionStatus;
  automation_id?: string;
}

export interface SessionLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Tells those waiting on sessions' hand-over what it came to (undefined: nothing is known). */
type SettleHandOver = (results: ReadonlyMap<string, HandOverResult> | undefined) => void;

/** Sessions a daemon start hands over together (an event's), and how to settle their waiters. */
interface RecoveryGroup {
  ids: readonly { id: string }[];
  settle: SettleHandOver;
}

/** A session the runner refused when a daemon start handed it over, and the refusal. */
export interface RefusedAtRecovery {
  row: SessionRow;
  error: ApiError;
}

export interface SessionServiceDeps {
  store: Store;
  clock: Clock;
  /** builds the runner; it reports turns it finishes later to the reporter it is given */
  runner: (reporter: TurnReporter) => Runner;
  health: AutomationHealth;
  log?: SessionLog;
  /**
   * Runs in the write that records a recovery hand-over the runner refused: whoever answered for
   * the start when it stored the session (event dispatch, in its receipts) corrects that there.
   */
  refusedAtRecovery?: (tx: WriteTx, refused: readonly RefusedAtRecovery[]) => Promise<void> | void;
}

export const MAX_FOLLOW_UP_CHARS = 10000;
export const RESTART_ERROR = 'daemon restarted during the turn';
/** groups of sessions left queued (an event's, or one) a daemon start hands over at once */
const RECOVERY_GROUPS_IN_FLIGHT = 64;

const ROOT_KIND = 'conversational';
const ROOT_PERSONA = 'main';

const notAdmitted = () =>
  new ApiError('EXECUTION_DENIED', 'this team is not admitted to start or resume session execution; an admin can admit it');

export class SessionService implements TurnReporter {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly runner: Runner;
  private readonly health: AutomationHealth;
  private readonly log: SessionLog | undefined;
  private readonly refusedAtRecovery: SessionServiceDeps['refusedAtRecovery'];
  /** turns handed over and not yet finished, per session: a session completes when none is left */
  private readonly inFlight = new Map<string, number>();
  /** what a session's other turns come to while a follow-up is being handed over (see unpublish) */
  private readonly turnOutcomes = new TurnOutcomes();
  /** sessions whose first hand-over is under way, each with what its batch's hand-overs come to */
  private readonly handingOver = new Map<string, Promise<ReadonlyMap<string, HandOverResult> | undefined>>();
  private recovery: Promise<void> | undefined;
  /** set by stop(): recovery hands over nothing more */
  private stopping = false;

  constructor(deps: SessionServiceDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.health = deps.health;
    this.log = deps.log;
    this.refusedAtRecovery = deps.refusedAtRecovery;
    this.runner = deps.runner(this);
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
  async startMany(reqs: readonly StartSessionRequest[], hooks: StartHooks = {}): Promise<StartResult[]> {
    const answer = this.runner.answerAtOnce?.();
    let stored: StoredStart[];
    try {
      stored = await this.store.write((tx) => this.storeStarts(tx, reqs, hooks, answer, false));
    } catch (err) {
      // A key the batch's shortcut took for new had started a session after all (see BatchKeys):
      // the store refused it, and the batch is made again with every key looked up.
      if (!(err instanceof UniqueViolation) || err.table !== 'sessions') throw err;
      stored = await this.store.write((tx) => this.storeStarts(tx, reqs, hooks, answer, true));
    }
    // Sessions a runner answered at once are complete as stored: there is nothing to hand over.
    if (answer !== undefined) return stored;
    const fresh = stored.flatMap((s) => ('row' in s && s.created ? [s] : []));
    const handedOver = fresh.length > 0 ? await this.handOver(fresh, hooks.settled) : new Map<string, HandOverResult>();
    return stored.map((s): StartResult => {
      if (!('row' in s)) return s;
      const settled = handedOver.get(s.row.session_id);
      if (settled && 'error' in settled) return s.created ? settled : { row: s.row, event: s.event, created: false };
      return { row: settled ?? s.row, event: s.event, created: s.created };
    });
  }

  /** The write of startMany that stores the queued sessions (`exactKeys`: see BatchKeys). */
  private async storeStarts(tx: WriteTx, reqs: readonly StartSessionRequest[], hooks: StartHooks, answer: string | undefined, exactKeys: boolean): Promise<StoredStart[]> {
    for (const teamId of new Set(reqs.map((r) => r.teamId))) await this.requireAdmitted(tx, teamId);
    const now = this.now();
    const out: StoredStart[] = [];
    const inactive = await inactiveStarts(tx, reqs);
    // The automations of an event mostly share the team's default environment: checked once.
    const batch: BatchState = { checkedEnvs: new Map(), keys: new BatchKeys(exactKeys), answered: new Set(), ids: new TeamIdRuns() };
    for (let i = 0; i < reqs.length; i++) {
      const stopped = inactive?.[i];
      if (stopped) {
        out.push({ inactive: stopped });
        continue;
      }
      try {
        const start = this.storeNew(tx, reqs[i], now, batch, answer);
        out.push(start instanceof Promise ? await start : start);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        out.push({ error: err });
      }
    }
    // An automation's at-once successes in one batch come to what one does: applied once each.
    for (const automationId of batch.answered) await applyRunOutcome(tx, automationId, { ok: true } satisfies RunOutcome, now);
    await hooks.stored?.(tx, out);
    return out;
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
  async listRuns(teamId: string, automationId: string, page: Omit<ListSessionsFilter, 'automation_id'>) {
    await this.store.read((tx) => requireAutomation(tx, teamId, automationId));
    return this.list(teamId, { ...page, automation_id: automationId });
  }

  /** The environment a session runs in when none is named: the team's `default`. */
  async defaultEnvironmentId(teamId: string): Promise<string | null> {
    return this.store.read(async (tx) => (await findEnvironmentBySlug(tx, teamId, DEFAULT_ENV_SLUG))?.id ?? null);
  }

  /** 402 EXECUTION_DENIED unless the team may start or resume work. */
  async assertAdmitted(teamId: string): Promise<void> {
    await this.store.read((tx) => this.requireAdmitted(tx, teamId));
  }

  async list(teamId: string, filter: ListSessionsFilter): Promise<PageResult<SessionDto>> {
    // An automation's runs are read through its own index; the team's sessions through the team's.
    const where: Partial<SessionRow> = filter.automation_id
      ? { automation_id: filter.automation_id, team_id: teamId, status: filter.status }
      : { team_id: teamId, status: filter.status };
    return this.store.read((tx) =>
      keysetPage(
        filter,
        (start, limit) => tx.page('sessions', { where, ...start, limit }),
        (s) => s.session_id,
        (s) => readSessionView(tx, s),
      ),
    );
  }

  async get(teamId: string, sessionId: string) {
    return this.store.read(async (tx) => {
      const s = await requireSession(tx, teamId, sessionId);
      const messages = await tx.list('messages', { session_id: s.session_id });
      return { ...(await readSessionView(tx, s)), messages: [...storedOnSession(s), ...messages.map(messageView)] };
    });
  }

  /** Spec 4.2: publishes a follow-up turn to a running or completed root session. */
  async followUp(teamId: string, sessionId: string, rawMessage: string): Promise<{ accepted: true; session_id: string }> {
    const content = rawMessage.trim();
    const prepared = await this.store.write(async (tx) => {
      const s = await requireSession(tx, teamId, sessionId);
      if (s.parent_session_id !== null || s.kind !== ROOT_KIND || s.persona !== ROOT_PERSONA) {
        throw invalid(
          `follow-ups go to root sessions of kind ${ROOT_KIND} and persona ${ROOT_PERSONA}; this session is ` +
            `${s.parent_session_id !== null ? 'a child session' : 'a root session'} of kind ${s.kind} and persona ${s.persona}`,
        );
      }
      const length = Array.from(content).length;
      if (length === 0) throw invalid('body.message must not be empty (leading and trailing whitespace is removed)');
      if (length > MAX_FOLLOW_UP_CHARS) {
        throw invalid(`body.message must be at most ${MAX_FOLLOW_UP_CHARS} characters after trimming (it has ${length})`);
      }
      if (s.status !== 'running' && s.status !== 'completed') {
        throw conflict(`the session is ${s.status}; follow-ups are accepted while it is running or completed`);
      }
      await this.requireAdmitted(tx, teamId);
      const now = this.now();
      const message = this.message(s.session_id, 'user', content, now);
      tx.insert('messages', message);
      const running: SessionRow = { ...s, status: 'running', completed_at: null, updated_at: now };
      tx.put('sessions', running);
      return { before: s, running, message, event: await sessionEvent(tx, s) };
    });

    this.track(sessionId);
    const watch = this.turnOutcomes.watch(sessionId);
    let handOver: HandOver;
    try {
      handOver = await this.runner.take(this.turn(prepared.running, content, prepared.event, prepared.running.updated_at));
    } catch (err) {
      this.logUnexpected(err);
      const remaining = this.untrack(sessionId);
      await this.unpublish(prepared.before, prepared.message, remaining, await watch.latest());
      throw new ApiError('MESSAGE_PUBLISH_FAILED', `the runner could not take the message: ${reasonOf(err)}`);
    } finally {
      watch.end();
    }
    await this.applyHandOver(sessionId, handOver);
    return { accepted: true, session_id: sessionId };
  }

  // ---- what runners report ----

  async turnCompleted(sessionId: string, message: string): Promise<void> {
    const remaining = this.untrack(sessionId);
    await this.finishTurn(sessionId, message, remaining);
  }

  async turnFailed(sessionId: string, turnError: string, output?: string, interrupted = false): Promise<void> {
    this.inFlight.delete(sessionId);
    // A failed session takes no more turns: follow-ups queued behind this one never run, and say so.
    const dropped = this.runner.discard(sessionId);
    const error = dropped === 0 ? turnError : `${turnError} (${dropped} follow-up turn${dropped === 1 ? '' : 's'} queued behind it did not run)`;
    const disabled = await this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      if (!s) return false;
      const now = this.now();
      if (output) tx.insert('messages', this.message(sessionId, 'assistant', output, now));
      if (s.status === 'failed' || s.status === 'cancelled') return false;
      tx.put('sessions', { ...s, status: 'failed', last_error: error, completed_at: now, updated_at: now });
      return s.automation_id ? applyRunOutcome(tx, s.automation_id, { ok: false, error, interrupted }, now) : false;
    });
    this.health.disabled(disabled);
  }

  // ---- daemon start and stop ----

  /**
   * At daemon start: sessions left `queued` (stored, never handed over) are handed over now;
   * sessions left `running` by a runner whose turns die with the daemon process fail with
   * RESTART_ERROR. Webhook turns belong to the remote runtime and stay running.
   */
  recover(): Promise<void> {
    this.recovery ??= this.doRecover().catch((err) => this.log?.error({ err }, 'session recovery failed'));
    return this.recovery;
  }

  /**
   * Ends the runner's turns (they fail: the daemon is going away) once recovery has finished the
   * hand-overs under way; it starts no more (what is left stays queued for the next start).
   */
  async stop(): Promise<void> {
    this.stopHandingOverLeftQueued();
    await this.recovery;
    await this.runner.stop();
  }

  /** The daemon is stopping: recovery starts no more hand-overs (see stop()). */
  stopHandingOverLeftQueued(): void {
    this.stopping = true;
  }

  private async doRecover(): Promise<void> {
    // Read before anything else can start a session, so only sessions of the previous process count.
    // The sessions one event started are handed over together, so what is taken back for those
    // the runner refuses is decided in one write per event. From this read on, a group counts as
    // being handed over: a retry of its event that finds one of its sessions meanwhile waits for
    // what the runner says, as it would for a hand-over already under way.
    const left = this.store.read(async (tx) => {
      const queued = (await tx.list('sessions', { status: 'queued' })).map((s) => ({ id: s.session_id, eventRowId: s.event_row_id }));
      const running = await tx.list('sessions', { status: 'running' });
      return {
        groups: groupedByEvent(queued).map((ids) => ({ ids, settle: this.expectHandOver(ids.map((s) => s.id)) })),
        orphaned: running.filter((s) => s.runner !== 'webhook').map((s) => s.session_id),
      };
    });
    const { groups, orphaned } = await left;
    try {
      await this.runner.init();
      for (const id of orphaned) await this.failOrphan(id);
      await this.handOverLeftQueued(groups);
    } finally {
      // Nothing may wait for a group recovery never got to (settling twice changes nothing).
      for (const { settle } of groups) settle(undefined);
    }
  }

  /**
   * Hands the groups over as live starts are: many at once (one after another, a webhook that
   * takes 30 s an answer kept the last of N sessions queued for N x 30 s, and a stop waiting).
   */
  private async handOverLeftQueued(groups: readonly RecoveryGroup[]): Promise<void> {
    let next = 0;
    const lane = async () => {
      while (next < groups.length && !this.stopping) await this.handOverLeftGroup(groups[next++]);
    };
    await Promise.all(Array.from({ length: Math.min(RECOVERY_GROUPS_IN_FLIGHT, groups.length) }, lane));
  }

  private async handOverLeftGroup({ ids, settle }: RecoveryGroup): Promise<void> {
    let results: Map<string, HandOverResult> | undefined;
    try {
      const starts = await this.store.read(async (tx) => {
        const out: { row: SessionRow; event: SessionEvent }[] = [];
        for (const { id } of ids) {
          const row = await tx.get('sessions', id);
          if (row && row.status === 'queued' && !this.inFlight.has(id)) out.push({ row, event: await sessionEvent(tx, row) });
        }
        return out;
      });
      if (starts.length === 0) return;
      // (what the last run of the write's callback could not take back: see recordRefusedAtRecovery)
      let notTakenBack: { err: unknown; sessionIds: string[] } | undefined;
      results = await this.handOver(starts, async (tx, outcomes) => {
        notTakenBack = await this.recordRefusedAtRecovery(tx, starts, outcomes);
      });
      if (notTakenBack) this.log?.error(notTakenBack, 'could not take back the runs of sessions refused at start');
      for (const [sessionId, result] of results) {
        if ('error' in result) this.log?.warn({ sessionId, err: result.error.message }, 'a queued session could not be handed over at start');
      }
    } catch (err) {
      this.log?.error({ sessionIds: ids.map((s) => s.id), err }, 'queued sessions could not be handed over at start');
    } finally {
      settle(results);
    }
  }

  /**
   * Registers sessions as being handed over (see handOverOf) until the returned function is
   * called with what their hand-over came to (undefined: nothing is known).
   */
  private expectHandOver(ids: readonly string[]): SettleHandOver {
    let settle!: SettleHandOver;
    const outcome = new Promise<ReadonlyMap<string, HandOverResult> | undefined>((resolve) => (settle = resolve));
    for (const id of ids) if (!this.handingOver.has(id)) this.handingOver.set(id, outcome);
    return (results) => {
      for (const id of ids) if (this.handingOver.get(id) === outcome) this.handingOver.delete(id);
      settle(results);
    };
  }

  /** Returns, for the caller to log once the write is done, what it could not take back. */
  private async recordRefusedAtRecovery(
    tx: WriteTx,
    starts: readonly { row: SessionRow }[],
    outcomes: ReadonlyMap<string, HandOverResult>,
  ): Promise<{ err: unknown; sessionIds: string[] } | undefined> {
    const refused: RefusedAtRecovery[] = [];
    for (const { row } of starts) {
      const outcome = outcomes.get(row.session_id);
      if (outcome && 'error' in outcome) refused.push({ row, error: outcome.error });
    }
    if (refused.length === 0 || !this.refusedAtRecovery) return undefined;
    try {
      await this.refusedAtRecovery(tx, refused);
      return undefined;
    } catch (err) {
      // The hand-overs this write records matter more than the counters: it goes ahead without them.
      return { err, sessionIds: refused.map((r) => r.row.session_id) };
    }
  }

  private async failOrphan(sessionId: string): Promise<void> {
    if (this.inFlight.has(sessionId)) return;
    const disabled = await this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      if (!s || s.status !== 'running') return false;
      const now = this.now();
      tx.put('sessions', { ...s, status: 'failed', last_error: RESTART_ERROR, completed_at: now, updated_at: now });
      return s.automation_id ? applyRunOutcome(tx, s.automation_id, { ok: false, error: RESTART_ERROR, interrupted: true }, now) : false;
    });
    this.health.disabled(disabled);
  }

  // ---- internals ----

  /**
   * Checks and stores one new session inside the batch's transaction; throws before any put. It
   * is queued, or completed with `answer` when the runner gave one at once (see answerAtOnce).
   * At once when the batch already knows its key is new and its environment is the team's (most
   * of an event's sessions): a promise per session cost more than storing it.
   */
  private storeNew(tx: WriteTx, req: StartSessionRequest, now: string, batch: BatchState, answer: string | undefined): StoredStart | Promise<StoredStart> {
    const key = startKey(req);
    const seen = key === undefined ? undefined : batch.keys.earlier(tx, req.teamId, key);
    const envChecked = req.environmentId === null || batch.checkedEnvs.get(req.environmentId) === req.teamId;
    if (seen === undefined && envChecked) return this.insertNew(tx, req, key, now, batch, answer);
    return this.storeNewChecked(tx, req, key, seen, now, batch, answer);
  }

  /** storeNew once the store has said whether the key started a session and the environment is the team's. */
  private async storeNewChecked(
    tx: WriteTx,
    req: StartSessionRequest,
    key: StartKey | undefined,
    earlier: SessionRow | undefined | Promise<SessionRow | undefined>,
    now: string,
    batch: BatchState,
    answer: string | undefined,
  ): Promise<StoredStart> {
    const seen = await earlier;
    if (seen) return { row: seen, created: false, event: await sessionEvent(tx, seen) };
    if (req.environmentId !== null && batch.checkedEnvs.get(req.environmentId) !== req.teamId) {
      const env = await tx.get('environments', req.environmentId);
      if (!env || env.team_id !== req.teamId) throw invalid('environment_id is not an environment of this team');
      batch.checkedEnvs.set(req.environmentId, req.teamId);
    }
    return this.insertNew(tx, req, key, now, batch, answer);
  }

  private insertNew(tx: WriteTx, req: StartSessionRequest, key: StartKey | undefined, now: string, batch: BatchState, answer: string | undefined): StoredStart {
    const row: SessionRow = {
      session_id: batch.ids.next(req.teamId),
      team_id: req.teamId,
      kind: ROOT_KIND,
      persona: ROOT_PERSONA,
      status: answer === undefined ? 'queued' : 'completed',
      prompt: req.prompt,
      parent_session_id: null,
      automation_id: req.automationId ?? null,
      trigger_id: req.triggerId ?? null,
      // An event's key is its automation's id and its own (see keys.ts).
      idempotency_key: key && 'stored' in key ? key.stored : null,
      environment_id: req.environmentId,
      event_row_id: req.event?.rowId ?? null,
      event_id: key && 'eventId' in key ? key.eventId : null,
      created_at: now,
      updated_at: now,
      started_at: answer === undefined ? null : now,
      completed_at: answer === undefined ? null : now,
      last_error: null,
      runner: answer === undefined ? null : this.runner.kind,
      answer: answer || null,
    };
    // The prompt is the first message and an answer given at once the second (see storedOnSession);
    // the key is held by the row itself, in a unique field or two fields unique together.
    tx.insert('sessions', row);
    if (key !== undefined) batch.keys.add(key, row);
    if (answer !== undefined && row.automation_id) batch.answered.add(row.automation_id);
    return { row, created: true, event: req.event?.data ?? null };
  }

  /**
   * Hands the first turn of each stored session to the runner (all at once), then records what
   * came of them in one write: running, completed, or failed when the runner refused.
   */
  private async handOver(starts: readonly { row: SessionRow; event: SessionEvent }[], settledHook?: StartHooks['settled']): Promise<Map<string, HandOverResult>> {
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
      if (t.handOver.state === 'completed') return { id, kind: 'completed', message: t.handOver.message, remaining: this.untrack(id) };
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
          out.set(plan.id, await this.finishTurnIn(tx, s, plan.message, plan.remaining, now));
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
    tx.put('sessions', { ...s, status: 'failed', last_error: error, completed_at: now, updated_at: now });
    if (!s.automation_id) return false;
    const slot = s.idempotency_key === null ? undefined : slotOfScheduleKey(s.idempotency_key);
    return applyRunOutcome(tx, s.automation_id, { ok: false, error: slot ? `scheduled run for ${slot} failed: ${error}` : error }, now);
  }

  /** An accepted hand-over of a turn the runner still works on. Returns whether it disabled an automation. */
  private async runningIn(tx: WriteTx, s: SessionRow, now: string): Promise<{ row: SessionRow; disabled: boolean }> {
    const started: Partial<SessionRow> = s.status === 'queued' ? { status: 'running', started_at: s.started_at ?? now } : {};
    const next = await tx.update('sessions', s.session_id, { runner: this.runner.kind, updated_at: now, ...started });
    // A runner that never reports outcomes: the accepted hand-over is the run's success.
    const disabled = !this.runner.reportsOutcomes && s.automation_id ? await applyRunOutcome(tx, s.automation_id, { ok: true }, now) : false;
    return { row: next, disabled };
  }

  /** Records an accepted follow-up hand-over. A runner may already have reported the turn finished. */
  private async applyHandOver(sessionId: string, handOver: HandOver): Promise<SessionDto> {
    if (handOver.state === 'completed') {
      const remaining = this.untrack(sessionId);
      return this.finishTurn(sessionId, handOver.message, remaining);
    }
    if (!this.runner.reportsOutcomes) {
      this.untrack(sessionId);
      // The remote runtime holds this turn now, whatever becomes of another being handed over.
      this.turnOutcomes.note(sessionId, { status: 'running' });
    }
    const { view, disabled } = await this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      if (!s) throw notFound('session');
      const applied = await this.runningIn(tx, s, this.now());
      return { view: await readSessionView(tx, applied.row), disabled: applied.disabled };
    });
    this.health.disabled(disabled);
    return view;
  }

  /** A turn finished: its answer is stored, and the session completes when no turn is left. */
  private async finishTurn(sessionId: string, message: string, remaining: number): Promise<SessionDto> {
    const write = this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      if (!s) throw notFound('session');
      const row = await this.finishTurnIn(tx, s, message, remaining, this.now());
      return { row, view: await readSessionView(tx, row) };
    });
    // A follow-up being handed over meanwhile learns of the answer once it is stored (see unpublish).
    this.turnOutcomes.noteWhenStored(sessionId, write.then(({ row }) => answered(row)));
    return (await write).view;
  }

  private async finishTurnIn(tx: WriteTx, s: SessionRow, message: string, remaining: number, now: string): Promise<SessionRow> {
    if (message) tx.insert('messages', this.message(s.session_id, 'assistant', message, now));
    const done = (s.status === 'queued' || s.status === 'running') && remaining === 0;
    if (done && s.automation_id) await applyRunOutcome(tx, s.automation_id, { ok: true } satisfies RunOutcome, now);
    const completed: Partial<SessionRow> = done ? { status: 'completed', started_at: s.started_at ?? now, completed_at: now } : {};
    return tx.update('sessions', s.session_id, { runner: this.runner.kind, updated_at: now, ...completed });
  }

  /**
   * A refused follow-up leaves no trace: its message goes, and the session is as it would be had
   * the follow-up never come: as the last of its other turns left it while this one was being
   * handed over (`since`), else as it was. Turns still in flight keep it running.
   */
  private async unpublish(before: SessionRow, message: MessageRow, remaining: number, since: TurnOutcome | undefined): Promise<void> {
    const disabled = await this.store.write(async (tx) => {
      tx.delete('messages', message.id);
      const s = await tx.get('sessions', before.session_id);
      if (!s || s.status !== 'running' || remaining > 0) return false;
      const now = this.now();
      if (since?.status === 'completed') {
        // That turn was the session's last, but counted this one as still to come.
        tx.put('sessions', { ...s, status: 'completed', completed_at: since.at, updated_at: now });
        return s.automation_id ? applyRunOutcome(tx, s.automation_id, { ok: true } satisfies RunOutcome, now) : false;
      }
      if (!since && before.status === 'completed') {
        tx.put('sessions', { ...s, status: 'completed', completed_at: before.completed_at, updated_at: now });
      }
      return false;
    });
    this.health.disabled(disabled);
  }

  private async requireAdmitted(tx: ReadTx, teamId: string): Promise<void> {
    const team = await tx.get('teams', teamId);
    if (!team) throw notFound('team');
    if (!team.execution_admitted) throw notAdmitted();
  }

  /**
   * The session as the runner sees it: running, since the runner holds the turn. The view is built
   * when a runner first reads it (exec and webhook do; record never does), and kept.
   */
  private turn(s: SessionRow, message: string, event: SessionEvent, now: string): Turn {
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

  private message(sessionId: string, role: MessageRow['role'], content: string, at: string): MessageRow {
    return { id: newId(), session_id: sessionId, role, content, created_at: at };
  }

  private track(sessionId: string): void {
    this.inFlight.set(sessionId, (this.inFlight.get(sessionId) ?? 0) + 1);
  }

  /** One turn fewer in flight; returns how many are left. */
  private untrack(sessionId: string): number {
    const left = Math.max(0, (this.inFlight.get(sessionId) ?? 0) - 1);
    if (left === 0) this.inFlight.delete(sessionId);
    else this.inFlight.set(sessionId, left);
    return left;
  }

  private logUnexpected(err: unknown): void {
    if (!(err instanceof RunnerRefused)) this.log?.error({ err }, 'the runner failed while taking a turn');
  }

  private now(): string {
    return this.clock().toISOString();
  }
}

/** What a turn the row records as answered comes to (see TurnOutcomes). */
const answered = (row: SessionRow): TurnOutcome => ({ status: 'completed', at: row.updated_at });

/** Queued sessions in groups that share their event row (sessions without one each alone), in order. */
function groupedByEvent(sessions: readonly { id: string; eventRowId: string | null }[]): { id: string }[][] {
  const groups = new Map<string, { id: string }[]>();
  const out: { id: string }[][] = [];
  for (const s of sessions) {
    if (s.eventRowId === null) {
      out.push([s]);
      continue;
    }
    const group = groups.get(s.eventRowId);
    if (group) group.push(s);
    else {
      const fresh = [s];
      groups.set(s.eventRowId, fresh);
      out.push(fresh);
    }
  }
  return out;
}

/**
 * Per request, why it may not start (see StartSessionRequest.whileActive), or undefined when it
 * may; undefined for all when no request asks. One read of the automations and one of the
 * triggers for the whole batch.
 */
async function inactiveStarts(tx: WriteTx, reqs: readonly StartSessionRequest[]): Promise<(Inactive | undefined)[] | undefined> {
  const automationIds = new Set<string>();
  const triggerIds = new Set<string>();
  for (const r of reqs) {
    if (!r.whileActive || r.automationId === undefined) continue;
    automationIds.add(r.automationId);
    for (const id of r.whileActive.triggerIds) triggerIds.add(id);
  }
  if (automationIds.size === 0) return undefined;
  const aIds = [...automationIds];
  const tIds = [...triggerIds];
  // Locked: a pause or a trigger change (which writes the automation row too) either came first
  // and is seen here, or waits for this write.
  const automations = await tx.getManyLocked('automations', aIds);
  const triggers = await tx.getMany('triggers', tIds);
  const automationOf = new Map(aIds.map((id, i) => [id, automations[i]]));
  const triggerOf = new Map(tIds.map((id, i) => [id, triggers[i]]));
  return reqs.map((r): Inactive | undefined => {
    if (!r.whileActive || r.automationId === undefined) return undefined;
    const automation = automationOf.get(r.automationId);
    if (!automation || automation.status !== 'active') return { automation, cause: 'automation' };
    const enabled = r.whileActive.triggerIds.some((id) => {
      const t = triggerOf.get(id);
      return t !== undefined && t.automation_id === automation.id && t.enabled && t.status === 'active';
    });
    return enabled ? undefined : { automation, cause: 'trigger' };
  });
}

/** A session an event starts for an automation is keyed by the two; another by the key it is given. */
function startKey(req: StartSessionRequest): StartKey | undefined {
  const eventId = req.automationId === undefined ? undefined : startingEventId(req.event?.data);
  if (eventId !== undefined) return { automationId: req.automationId!, eventId };
  return req.idempotencyKey === undefined ? undefined : { stored: req.idempotencyKey };
}

export async function requireSession(tx: ReadTx, teamId: string, sessionId: string): Promise<SessionRow> {
  const s = await tx.get('sessions', sessionId);
  if (!s || s.team_id !== teamId) throw notFound('session');
  return s;
}

/** What a client may read about a refusal: a runner's own words, never an internal error's. */
const reasonOf = (err: unknown) => (err instanceof RunnerRefused ? err.message : 'the runner failed unexpectedly');
