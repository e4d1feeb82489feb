// Inbound events (spec §4.8, CONTRACT §6): normalise, match through the trigger index, start one
// session per matching automation under the key `event:{automationId}:{eventId}`, record the event
// with its result. Cost follows the triggers listening to the event's key, not the team's size.
import type { EventResultDto, NormalisedEventDto, SendEventInput } from '../../shared/schemas/index.js';
import { EventPaths } from '../../shared/filters.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { keysetPage, type PageRequest, type PageResult } from '../http/pagination.js';
import type { EventMetrics, EventOutcome } from '../metrics/reporters.js';
import { type HandOverResult, type Inactive, type StartHooks, type StartRequests, type StartResult, type StartSessionRequest, type StoredStart } from '../sessions/service.js';
import type { ReadTx, Store, WriteTx } from '../store/store.js';
import type { EventRow, TeamRow } from '../store/tables.js';
import { eventIdempotencyKey, sessionForEvent } from '../sessions/keys.js';
import { candidateTriggers, nearbyTriggers } from './candidates.js';
import { conditionText } from './conditions.js';
import { EventMatcher, type AutomationVerdict } from './matcher.js';
import { eventOfRow, normaliseEvent } from './normalise.js';
import { eventReason } from './reason.js';
import { nextReplay, replayedReceipt, replayInput, takeReplay } from './replay.js';
import { TriggerCounts } from './trigger-counts.js';
import { TurnBatches } from './turn-batches.js';

/** What dispatch needs of the session service (daemon/sessions). */
export interface SessionStarter {
  startMany(reqs: StartRequests, hooks?: StartHooks): Promise<StartResult[]>;
  /** throws ApiError EXECUTION_DENIED when the team may not start work */
  assertAdmitted(teamId: string): Promise<void>;
  /** what the first hand-over of a session under way comes to, or undefined when none is */
  handOverOf(sessionId: string): Promise<HandOverResult | undefined> | undefined;
}

export type Dispatched = EventResultDto['dispatched'][number];
export type ReceivedEventDto = NormalisedEventDto & Pick<EventResultDto, 'accepted' | 'dispatched' | 'reason'>;

export interface ListEventsFilter extends PageRequest {
  event_type?: string;
}

interface StartOutcome {
  verdict: AutomationVerdict;
  dispatched?: Dispatched;
  created?: boolean;
  /** the new session's id, when this delivery created one */
  sessionId?: string;
  /** the session an earlier delivery of the event id started, when this one found it */
  earlierSessionId?: string;
  error?: { code: ApiError['code'] | null; message: string };
}

/** What a matched event came to at some step of its dispatch. */
interface DispatchState {
  /** the verdicts, those of automations no longer active when the sessions were stored made unmatched */
  verdicts: AutomationVerdict[];
  /** what each matched automation came to */
  outcomes: StartOutcome[];
  summary: ReturnType<typeof summarise>;
}

/** A matched event waiting for its team's next dispatch batch. */
interface PendingDispatch {
  team: TeamRow;
  event: NormalisedEventDto;
  verdicts: AutomationVerdict[];
  matched: AutomationVerdict[];
  /**
   * What it came to in the write that stored the sessions, then in the one that stored their
   * hand-overs: each set whole by the last run of that write's callback (see Store.write).
   */
  stored?: DispatchState;
  settled?: DispatchState;
  /** its receipt's row id, given in the write that stores its batch's sessions (set whole at each run) */
  rowId?: string;
  done: { resolve(result: EventResultDto): void; reject(err: unknown): void };
}

/**
 * At most this many events share a batch: an event may carry 1 MiB, and a batch's journal
 * record is one string, which V8 caps at 512 MiB. Under load, batches are far smaller.
 */
export const MAX_BATCH_EVENTS = 64;

/** An event that matched nothing, waiting for the write that stores its receipt. */
interface PendingRow {
  teamId: string;
  event: NormalisedEventDto;
  result: EventResultDto;
  done: { resolve(): void; reject(err: unknown): void };
}

export class EventService {
  private readonly matcher = new EventMatcher();
  /**
   * Matched events of a team that arrive in the same turn share one batch: two write
   * transactions, and one update of each trigger's counters, for all of them.
   */
  private readonly dispatches = new TurnBatches<PendingDispatch>(MAX_BATCH_EVENTS, (batch) => this.dispatchBatch(batch));
  /** Rows of events that matched nothing, of one turn, share one write. */
  private readonly unmatched = new TurnBatches<PendingRow>(MAX_BATCH_EVENTS, async (batch) => {
    await this.store.write((tx) => {
      // A team's receipts of one batch may be stored together.
      for (const p of batch) tx.insert('events', this.eventRow(p.teamId, p.event, { result: p.result, failures: [] }, tx.newKey('events', p.teamId)));
    });
    for (const p of batch) p.done.resolve();
  });
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: SessionStarter,
    private readonly metrics?: EventMetrics,
  ) {}

  /**
   * A matched event is stored in the same write transaction as the sessions it starts (with the
   * trigger counters), before any is handed to the runner; the hand-overs' outcomes are one more
   * write, which also corrects the event's result when the runner refused a session. The answer
   * waits for both, so an acknowledged event and its sessions are durable.
   */
  async send(team: TeamRow, input: SendEventInput, opts: { dryRun?: boolean } = {}): Promise<EventResultDto> {
    const event = normaliseEvent(input, this.clock());
    const dryRun = opts.dryRun === true;
    if (dryRun || !this.metrics) return this.receive(team, event, dryRun);
    this.metrics.eventReceived();
    try {
      const result = await this.receive(team, event, false);
      this.metrics.eventSettled(result.accepted ? 'dispatched' : 'unmatched');
      return result;
    } catch (err) {
      this.metrics.eventSettled(rejectionOf(err));
      throw err;
    }
  }

  /**
   * Dispatches the team's stored event `eventId` again, as the new event `{eventId}:replay:{n}`
   * (dispatch/replay.ts), matched against the automations as they are now; answered as `send`.
   * A dry run takes no n: it judges the event the next replay would send.
   */
  async replay(team: TeamRow, eventId: string, opts: { dryRun?: boolean } = {}): Promise<EventResultDto> {
    const { receipt, n } = opts.dryRun
      ? await this.store.read(async (tx) => {
          const receipt = await replayedReceipt(tx, team.id, eventId);
          return { receipt, n: nextReplay(receipt) };
        })
      : await this.store.write((tx) => takeReplay(tx, team.id, eventId));
    return this.send(team, replayInput(receipt, n), opts);
  }

  private async receive(team: TeamRow, event: NormalisedEventDto, dryRun: boolean): Promise<EventResultDto> {
    const verdicts = await this.store.read((tx) => this.judge(tx, team.id, event, dryRun));
    const matched = verdicts.filter((v) => v.matched);
    if (dryRun) return this.dryRun(team, event, verdicts, matched);

    if (matched.length === 0) {
      const { result } = summarise(event, verdicts, []);
      await new Promise<void>((resolve, reject) => this.unmatched.add('', { teamId: team.id, event, result, done: { resolve, reject } }));
      return result;
    }
    return new Promise<EventResultDto>((resolve, reject) => {
      this.dispatches.add(team.id, { team, event, verdicts, matched, done: { resolve, reject } });
    });
  }

  /**
   * Starts the sessions of a batch of one team's matched events (startMany), in order: an event
   * id sent twice in a batch starts its sessions once, as when sent one after the other. A team
   * that is not admitted refuses the whole batch with EXECUTION_DENIED, and nothing is stored.
   * The match was judged in an earlier read: an automation paused (or a trigger disabled) since
   * starts nothing, and counts as not matched (see StartSessionRequest.whileActive).
   */
  private async dispatchBatch(batch: PendingDispatch[]): Promise<void> {
    // The receipts' keys are the write's own (made afresh at each run), and the sessions refer to them.
    const requests = (tx: WriteTx): StartSessionRequest[] => {
      const reqs: StartSessionRequest[] = [];
      for (const p of batch) {
        // The batch is one team's: its receipts may be stored together.
        p.rowId = tx.newKey('events', p.team.id);
        // The sessions refer to the event's row, stored in the same write: one copy serves them all.
        const sessionEvent = { rowId: p.rowId, data: p.event };
        for (const v of p.matched) {
          reqs.push({
            teamId: p.team.id,
            prompt: v.automation.prompt,
            environmentId: v.automation.environment_id,
            automationId: v.automation.id,
            triggerId: v.triggerIds[0],
            // keyed event:{automationId}:{eventId} by the session service
            event: sessionEvent,
            whileActive: { triggerIds: v.triggerIds },
          });
        }
      }
      return reqs;
    };
    await this.sessions.startMany(requests, {
      stored: async (tx, starts) => {
        // Made afresh at each run of the callback: counts of an earlier run are not this one's.
        const counts = new TriggerCounts();
        let offset = 0;
        for (const p of batch) {
          const outcomes = p.matched.map((v, i) => storedOutcome(v, p.event, starts[offset + i]));
          offset += p.matched.length;
          for (const o of outcomes) if (o.sessionId) counts.run(o.verdict.triggerIds[0], p.event.received_at);
          const verdicts = judgedAgain(p.verdicts, outcomes);
          p.stored = { verdicts, outcomes, summary: summarise(p.event, verdicts, outcomes) };
          p.settled = undefined;
          tx.insert('events', this.eventRow(p.team.id, p.event, p.stored.summary, p.rowId!));
        }
        await counts.apply(tx);
      },
      settled: async (tx, settled) => {
        for (const p of batch) {
          const { verdicts } = p.stored!;
          let refused = false;
          const outcomes = p.stored!.outcomes.map((o) => {
            // A copy of an event id earlier in this batch started the session this one found.
            const earlier = o.earlierSessionId === undefined ? undefined : settled.get(o.earlierSessionId);
            if (earlier && 'error' in earlier) {
              refused = true;
              return earlierRefusal(o.verdict, p.event, earlier.error);
            }
            const s = o.sessionId === undefined ? undefined : settled.get(o.sessionId);
            if (!s || !('error' in s)) return o;
            refused = true;
            return { verdict: o.verdict, sessionId: o.sessionId, error: { code: s.error.code, message: s.error.message } };
          });
          if (!refused) {
            p.settled = p.stored;
            continue;
          }
          p.settled = { verdicts, outcomes, summary: summarise(p.event, verdicts, outcomes) };
          tx.put('events', this.eventRow(p.team.id, p.event, p.settled.summary, p.rowId!));
        }
      },
    });
    await this.awaitEarlierHandOvers(batch);
    for (const p of batch) {
      const { result, failures } = (p.settled ?? p.stored!).summary;
      // Nothing could be started: a 5xx, with the event kept so the list shows what happened.
      if (result.dispatched.length === 0 && failures.length > 0) p.done.reject(new ApiError('SESSION_START_FAILED', result.reason));
      else p.done.resolve(result);
    }
  }

  /**
   * A delivery that found the session of an earlier one, whose hand-over is still under way (a
   * retry while the runner is slow to answer), waits for it: when the runner refuses that
   * session, this delivery is answered with the refusal too, and its receipt says so.
   */
  private async awaitEarlierHandOvers(batch: PendingDispatch[]): Promise<void> {
    const corrected = new Set<PendingDispatch>();
    // Only retries meet a hand-over under way: most batches wait for nothing, and make no promise.
    const waits: Promise<void>[] = [];
    for (const p of batch) {
      const state = p.settled ?? p.stored!;
      state.outcomes.forEach((o, i) => {
        const pending = o.earlierSessionId === undefined ? undefined : this.sessions.handOverOf(o.earlierSessionId);
        if (!pending) return;
        waits.push(
          pending.then((result) => {
            if (!result || !('error' in result)) return;
            const outcomes = [...(p.settled ?? state).outcomes];
            outcomes[i] = earlierRefusal(o.verdict, p.event, result.error);
            p.settled = { verdicts: state.verdicts, outcomes, summary: summarise(p.event, state.verdicts, outcomes) };
            corrected.add(p);
          }),
        );
      });
    }
    if (waits.length > 0) await Promise.all(waits);
    if (corrected.size === 0) return;
    await this.store.write((tx) => {
      for (const p of corrected) tx.put('events', this.eventRow(p.team.id, p.event, p.settled!.summary, p.rowId!));
    });
  }

  /** One row per receipt: a retried event id is a second row with the same event_id. */
  private eventRow(teamId: string, event: NormalisedEventDto, summary: { result: EventResultDto; failures: readonly { name: string; message: string }[] }, id: string): EventRow {
    const { result } = summary;
    // Field by field rather than a spread of the event: this runs for every event received.
    return {
      id,
      event_id: event.id,
      team_id: teamId,
      provider: event.provider,
      event_type: event.event_type,
      connection_id: event.connection_id,
      source: event.source,
      subject: event.subject,
      time: event.time,
      metadata: event.metadata,
      data: event.data,
      received_at: event.received_at,
      accepted: result.accepted,
      dispatched: result.dispatched.length === 0 ? NO_DISPATCHES : result.dispatched.map((d) => ({ automationId: d.automationId, triggerIds: d.triggerIds })),
      reason: result.reason,
      failures: summary.failures.length === 0 ? NO_FAILURES : summary.failures.map((f) => ({ name: f.name, message: f.message })),
    };
  }

  /** Received events of a team, newest first; `event_type` narrows the list. */
  async list(teamId: string, filter: ListEventsFilter): Promise<PageResult<ReceivedEventDto>> {
    return this.store.read((tx) =>
      keysetPage(
        filter,
        (start, limit) => tx.page('events', { where: { team_id: teamId, event_type: filter.event_type }, newestBy: 'received_at', ...start, limit }),
        (r) => r.id,
        receivedEventView,
      ),
    );
  }

  /**
   * Verdicts for the triggers listening to the event's exact key; when none of them matches (or
   * on a dry run), also for those listening to its event type under another provider, so the
   * reason can point at a provider mix-up.
   */
  private async judge(tx: ReadTx, teamId: string, event: NormalisedEventDto, dryRun: boolean): Promise<AutomationVerdict[]> {
    const paths = new EventPaths(event);
    const exact = this.matcher.evaluate(await candidateTriggers(tx, teamId, event), event, paths);
    if (!dryRun && exact.some((v) => v.matched)) return exact;
    const nearby = this.matcher.evaluate(await nearbyTriggers(tx, teamId, event), event, paths);
    const seen = new Set(exact.map((v) => v.automation.id));
    return [...exact, ...nearby.filter((v) => !seen.has(v.automation.id))];
  }

  /**
   * What a real send would come to, storing nothing. A team that is not admitted gets the 402 a
   * real send would get when an automation matches (CONTRACT §6), saying how many matched.
   */
  private async dryRun(team: TeamRow, event: NormalisedEventDto, verdicts: AutomationVerdict[], matched: AutomationVerdict[]): Promise<EventResultDto> {
    if (matched.length > 0) {
      try {
        await this.sessions.assertAdmitted(team.id);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'EXECUTION_DENIED') throw err;
        const n = matched.length === 1 ? '1 automation matches' : `${matched.length} automations match`;
        throw new ApiError('EXECUTION_DENIED', `${err.message} (dry run: ${n} this event, and a real send would be refused the same way)`);
      }
    }
    // What a real send would come to for each: a new session, the one an earlier delivery
    // started, or the refusal of one the runner refused then (its key is spent).
    const outcomes = await this.store.read(async (tx) => {
      const out: StartOutcome[] = [];
      for (const v of matched) {
        const row = await sessionForEvent(tx, team.id, v.automation.id, event.id);
        out.push(row ? storedOutcome(v, event, { row, event: null, created: false }) : { verdict: v, dispatched: dispatchOf(v, event), created: true });
      }
      return out;
    });
    const dispatched = outcomes.flatMap((o) => (o.dispatched ? [o.dispatched] : []));
    const repeated = outcomes.filter((o) => o.dispatched && !o.created).length;
    const failures = outcomes.flatMap((o) => (o.error ? [{ name: o.verdict.automation.name, message: o.error.message }] : []));
    return {
      accepted: dispatched.length > 0,
      dispatched,
      reason: eventReason({ event, verdicts, dispatched: dispatched.length, repeated, failures, dryRun: true }),
      matches: verdicts.map((v) => ({ id: v.automation.id, automationId: v.automation.id, name: v.automation.name, matched: v.matched, failed: v.failed })),
    };
  }
}

const NO_TRIGGER_IDS: readonly string[] = Object.freeze([]);

/** Why a received event that was not answered with a result started nothing (see EventOutcome). */
function rejectionOf(err: unknown): EventOutcome {
  if (!(err instanceof ApiError)) return 'error';
  if (err.code === 'SESSION_START_FAILED') return 'refused';
  return err.code === 'EXECUTION_DENIED' ? 'not_admitted' : 'error';
}

// Shared by every receipt without any (rows are never mutated).
const NO_DISPATCHES = Object.freeze([]) as unknown as EventRow['dispatched'];
const NO_FAILURES = Object.freeze([]) as unknown as NonNullable<EventRow['failures']>;

/** What one matched automation came to once its session was stored (or found, or refused). */
function storedOutcome(verdict: AutomationVerdict, event: NormalisedEventDto, start: StoredStart): StartOutcome {
  if ('error' in start) return { verdict, error: { code: start.error.code, message: start.error.message } };
  if ('inactive' in start) return { verdict: stoppedVerdict(verdict, start.inactive) };
  const { row, created } = start;
  if (!created && row.status === 'failed' && row.started_at === null) {
    // The key is spent on a session the runner refused: a retry must not pass for a success,
    // and must not start a second session either.
    return earlierRefusal(verdict, event, new ApiError('SESSION_START_FAILED', row.last_error ?? 'the session could not be started'));
  }
  return created
    ? { verdict, dispatched: dispatchOf(verdict, event), created, sessionId: row.session_id }
    : { verdict, dispatched: dispatchOf(verdict, event), created, earlierSessionId: row.session_id };
}

/**
 * The verdict on an automation that matched when judged, but was no longer active (or its
 * triggers no longer enabled) when its session was to be stored: not matched, saying why.
 */
function stoppedVerdict(v: AutomationVerdict, { automation, cause }: Inactive): AutomationVerdict {
  const unmatched = { matched: false, triggerIds: NO_TRIGGER_IDS };
  if (!automation) return { ...unmatched, automation: v.automation, failed: conditionText.automationDeleted(v.automation.name), nearness: 2 };
  if (cause === 'automation') return { ...unmatched, automation, failed: conditionText.automationStatus(automation.name, automation.status), nearness: 2 };
  return { ...unmatched, automation, failed: conditionText.triggerDisabled(automation.name), nearness: 3 };
}

/** The verdicts with those the outcomes judged again (stoppedVerdict) in their place. */
function judgedAgain(verdicts: AutomationVerdict[], outcomes: readonly StartOutcome[]): AutomationVerdict[] {
  let again: Map<AutomationVerdict['automation']['id'], AutomationVerdict> | undefined;
  for (const o of outcomes) if (!o.verdict.matched) (again ??= new Map()).set(o.verdict.automation.id, o.verdict);
  return again === undefined ? verdicts : verdicts.map((v) => again!.get(v.automation.id) ?? v);
}

/** A retry's outcome once the session its event id started was refused: the retry failed too. */
function earlierRefusal(verdict: AutomationVerdict, event: NormalisedEventDto, error: ApiError): StartOutcome {
  return { verdict, error: { code: 'SESSION_START_FAILED', message: earlierRefusalMessage(error.message, event.id) } };
}

/** Why a delivery that found the session of an earlier one, which the runner refused, started nothing. */
export const earlierRefusalMessage = (refusal: string, eventId: string) =>
  `${refusal} (on an earlier delivery of event id ${JSON.stringify(eventId)}; send the event with a new id to try again)`;

/** The event's result (and the failures it names) from what each matched automation came to. */
function summarise(event: NormalisedEventDto, verdicts: AutomationVerdict[], outcomes: StartOutcome[]) {
  // One pass, no arrays per outcome: this runs for every matched event.
  const dispatched: Dispatched[] = [];
  const failures: { name: string; message: string; code: ApiError['code'] | null }[] = [];
  let repeated = 0;
  for (const o of outcomes) {
    if (o.dispatched) {
      dispatched.push(o.dispatched);
      if (!o.created) repeated++;
    }
    if (o.error) failures.push({ name: o.verdict.automation.name, message: o.error.message, code: o.error.code });
  }
  const reason = eventReason({ event, verdicts, dispatched: dispatched.length, repeated, failures, dryRun: false });
  const result: EventResultDto = { accepted: dispatched.length > 0, dispatched, reason };
  return { result, failures };
}

function dispatchOf(v: AutomationVerdict, event: NormalisedEventDto): Dispatched {
  // The matcher's list, shared between events: nothing downstream mutates it.
  return { automationId: v.automation.id, idempotencyKey: eventIdempotencyKey(v.automation.id, event.id), triggerIds: v.triggerIds as string[] };
}

function receivedEventView(r: EventRow): ReceivedEventDto {
  return {
    ...eventOfRow(r),
    accepted: r.accepted,
    dispatched: r.dispatched.map((d) => ({ automationId: d.automationId, idempotencyKey: eventIdempotencyKey(d.automationId, r.event_id), triggerIds: d.triggerIds })),
    reason: r.reason,
  };
}
