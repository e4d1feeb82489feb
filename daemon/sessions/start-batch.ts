// The write that stores a batch of starting sessions (queued, or completed when the runner
// answers at once): admission, the `whileActive` check against a pause, idempotency keys and
// environments, decided for the whole batch inside the one transaction that stores its sessions.
import { ApiError, invalid } from '../errors.js';
import { stillDueAt } from '../scheduler/still-due.js';
import type { Runner } from '../runner/runner.js';
import type { WriteTx } from '../store/store.js';
import type { AutomationRow, SessionRow } from '../store/tables.js';
import { requireAdmitted } from './admission.js';
import { applyRunOutcome, type RunOutcome } from './automation-health.js';
import type { HandOverResult } from './hand-over.js';
import { BatchKeys, startingEventId, type StartKey } from './keys.js';
import { sessionEvent, type SessionEvent } from './view.js';

/** The only kind and persona of session svc starts; follow-ups go to these alone. */
export const ROOT_KIND = 'conversational';
export const ROOT_PERSONA = 'main';

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
   * comes to `inactive`, and nothing is stored for it. With `dueAt`, the trigger must also still
   * be due then (its `next_run_at` that instant): a schedule slot planned before its schedule
   * changed does not run.
   */
  whileActive?: { triggerIds: readonly string[]; dueAt?: string };
}

/**
 * Why a request made `whileActive` started nothing: its automation is gone or no longer active
 * (`automation` as the write found it), or none of its triggers is enabled any more.
 */
export interface Inactive {
  automation: AutomationRow | undefined;
  cause: 'automation' | 'trigger';
}

/**
 * A batch's requests, or how to make them in the write that stores them: requests that refer to
 * rows of that write (an event's receipt) take their keys from it (WriteTx.newKey), afresh at each
 * run of the write's callback.
 */
export type StartRequests = readonly StartSessionRequest[] | ((tx: WriteTx) => readonly StartSessionRequest[]);

/** What a request came to in the write that stores queued sessions (`event`: the session's). */
export type StoredStart = { row: SessionRow; created: boolean; event: SessionEvent } | { error: ApiError } | { inactive: Inactive };

/**
 * Rows a caller wants durable together with a batch's sessions (see SessionService.startMany). A
 * hook runs inside a write's callback, which a backend may run more than once: it only reads and
 * writes through `tx`, and whatever it hands back to its caller it sets whole at each run.
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

/** How the batch's sessions are stored: when, by which runner, and its answer when it gave one at once. */
export interface StartBatchOptions {
  now: string;
  runnerKind: Runner['kind'];
  /** the runner's answer to every session, when it answers at once (see Runner.answerAtOnce) */
  answer: string | undefined;
  /** look every key up in the store (see BatchKeys) */
  exactKeys: boolean;
  /** this daemon's instance id: it claims the queued sessions it stores (SessionRow.claimed_by) */
  instanceId: string;
}

/** What one start batch's requests have settled so far, so the next ones need not look again. */
interface BatchState {
  /** environment id -> the team it was found to belong to */
  checkedEnvs: Map<string, string>;
  keys: BatchKeys;
  /** automations whose run the runner answered at once: one success each, applied at the end */
  answered: Set<string>;
  opts: StartBatchOptions;
}

/**
 * Stores a batch's sessions in `tx`. A team that is not admitted fails the whole batch with
 * EXECUTION_DENIED; any other refusal is that request's `error`, and the others go ahead.
 */
export async function storeStarts(tx: WriteTx, requests: StartRequests, hooks: StartHooks, opts: StartBatchOptions): Promise<StoredStart[]> {
  const reqs = typeof requests === 'function' ? requests(tx) : requests;
  // The automations of an event mostly share the team's default environment: checked once.
  const batch: BatchState = { checkedEnvs: new Map(), keys: new BatchKeys(opts.exactKeys), answered: new Set(), opts };
  // Every read the checks below need, asked for at once: the batch waits for the store once.
  const environmentIds = new Set(reqs.flatMap((r) => (r.environmentId === null ? [] : [r.environmentId])));
  const [inactive, environments] = await Promise.all([
    inactiveStarts(tx, reqs),
    tx.getMany('environments', [...environmentIds]),
    ...[...new Set(reqs.map((r) => r.teamId))].map((teamId) => requireAdmitted(tx, teamId)),
    batch.keys.lookUpAll(tx, reqs.flatMap(keyedStart)),
  ]);
  for (const env of environments) if (env) batch.checkedEnvs.set(env.id, env.team_id);
  const out: StoredStart[] = [];
  for (let i = 0; i < reqs.length; i++) {
    const stopped = inactive?.[i];
    if (stopped) {
      out.push({ inactive: stopped });
      continue;
    }
    try {
      const start = storeNew(tx, reqs[i], batch);
      out.push(start instanceof Promise ? await start : start);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      out.push({ error: err });
    }
  }
  // An automation's at-once successes in one batch come to what one does: applied once each.
  for (const automationId of batch.answered) await applyRunOutcome(tx, automationId, { ok: true } satisfies RunOutcome, opts.now);
  await hooks.stored?.(tx, out);
  return out;
}

/**
 * Checks and stores one new session inside the batch's transaction; throws before any put. It
 * is queued, or completed with the runner's answer when it gave one at once (see answerAtOnce).
 * At once when the batch already knows its key is new and its environment is the team's (most
 * of an event's sessions): a promise per session cost more than storing it.
 */
function storeNew(tx: WriteTx, req: StartSessionRequest, batch: BatchState): StoredStart | Promise<StoredStart> {
  const key = startKey(req);
  const seen = key === undefined ? undefined : batch.keys.earlier(tx, req.teamId, key);
  const envChecked = req.environmentId === null || batch.checkedEnvs.get(req.environmentId) === req.teamId;
  if (seen === undefined && envChecked) return insertNew(tx, req, key, batch);
  return storeNewChecked(tx, req, key, seen, batch);
}

/** storeNew once the store has said whether the key started a session and the environment is the team's. */
async function storeNewChecked(
  tx: WriteTx,
  req: StartSessionRequest,
  key: StartKey | undefined,
  earlier: SessionRow | undefined | Promise<SessionRow | undefined>,
  batch: BatchState,
): Promise<StoredStart> {
  const seen = await earlier;
  if (seen) return { row: seen, created: false, event: await sessionEvent(tx, seen) };
  if (req.environmentId !== null && batch.checkedEnvs.get(req.environmentId) !== req.teamId) {
    const env = await tx.get('environments', req.environmentId);
    if (!env || env.team_id !== req.teamId) throw invalid('environment_id is not an environment of this team');
    batch.checkedEnvs.set(req.environmentId, req.teamId);
  }
  return insertNew(tx, req, key, batch);
}

function insertNew(tx: WriteTx, req: StartSessionRequest, key: StartKey | undefined, batch: BatchState): StoredStart {
  const { now, answer, runnerKind, instanceId } = batch.opts;
  const row: SessionRow = {
    // A team's sessions of one batch (a scheduler batch may span teams) may be stored together.
    session_id: tx.newKey('sessions', req.teamId),
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
    runner: answer === undefined ? null : runnerKind,
    answer: answer || null,
    // Claimed in the write that stores it, its first turn counted from then: nothing done to it
    // before the hand-over, however long that waits, leaves it for another daemon to take.
    claimed_by: answer === undefined ? instanceId : null,
    turns_in_flight: answer === undefined ? 1 : 0,
  };
  // The prompt is the first message and an answer given at once the second (see storedOnSession);
  // the key is held by the row itself, in a unique field or two fields unique together.
  tx.insert('sessions', row);
  if (key !== undefined) batch.keys.add(key, row);
  if (answer !== undefined && row.automation_id) batch.answered.add(row.automation_id);
  return { row, created: true, event: req.event?.data ?? null };
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
  const [automations, triggers] = await Promise.all([tx.getManyLocked('automations', aIds), tx.getMany('triggers', tIds)]);
  const automationOf = new Map(aIds.map((id, i) => [id, automations[i]]));
  const triggerOf = new Map(tIds.map((id, i) => [id, triggers[i]]));
  return reqs.map((r): Inactive | undefined => {
    if (!r.whileActive || r.automationId === undefined) return undefined;
    const automation = automationOf.get(r.automationId);
    if (!automation || automation.status !== 'active') return { automation, cause: 'automation' };
    const { dueAt } = r.whileActive;
    const enabled = r.whileActive.triggerIds.some((id) => {
      const t = triggerOf.get(id);
      if (t === undefined || t.automation_id !== automation.id || !t.enabled || t.status !== 'active') return false;
      return dueAt === undefined || stillDueAt(t.next_run_at, dueAt);
    });
    return enabled ? undefined : { automation, cause: 'trigger' };
  });
}

/** The request with its key, when it has one. */
function keyedStart(req: StartSessionRequest): { teamId: string; key: StartKey }[] {
  const key = startKey(req);
  return key === undefined ? [] : [{ teamId: req.teamId, key }];
}

/** A session an event starts for an automation is keyed by the two; another by the key it is given. */
function startKey(req: StartSessionRequest): StartKey | undefined {
  const eventId = req.automationId === undefined ? undefined : startingEventId(req.event?.data);
  if (eventId !== undefined) return { automationId: req.automationId!, eventId };
  return req.idempotencyKey === undefined ? undefined : { stored: req.idempotencyKey };
}
