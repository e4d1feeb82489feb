// Inbound events (spec §4.8, CONTRACT §6): normalise, match through the trigger index, start one
// session per matching automation under the key `event:{automationId}:{eventId}`, record the event
// with its result. Cost follows the triggers listening to the event's key, not the team's size.
import { randomUUID } from 'node:crypto';
import type { EventResultDto, NormalisedEventDto, SendEventInput } from '../../shared/schemas/index.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { paginate, type PageRequest, type PageResult } from '../http/pagination.js';
import { sessionForKey, type StartHooks, type StartResult, type StartSessionRequest, type StoredStart } from '../sessions/service.js';
import type { ReadTx, Store, WriteTx } from '../store/store.js';
import type { EventRow, TeamRow } from '../store/tables.js';
import { candidateTriggers, nearbyTriggers } from './candidates.js';
import { EventMatcher, type AutomationVerdict } from './matcher.js';
import { eventOfRow, normaliseEvent } from './normalise.js';
import { eventReason } from './reason.js';

/** What dispatch needs of the session service (daemon/sessions). */
export interface SessionStarter {
  startMany(reqs: readonly StartSessionRequest[], hooks?: StartHooks): Promise<StartResult[]>;
  /** throws ApiError EXECUTION_DENIED when the team may not start work */
  assertAdmitted(teamId: string): Promise<void>;
}

export type Dispatched = EventResultDto['dispatched'][number];
export type ReceivedEventDto = NormalisedEventDto & Pick<EventResultDto, 'accepted' | 'dispatched' | 'reason'>;

export interface ListEventsFilter extends PageRequest {
  event_type?: string;
}

export const eventIdempotencyKey = (automationId: string, eventId: string) => `event:${automationId}:${eventId}`;

interface StartOutcome {
  verdict: AutomationVerdict;
  dispatched?: Dispatched;
  created?: boolean;
  /** the new session's id, when this delivery created one */
  sessionId?: string;
  error?: { code: ApiError['code'] | null; message: string };
}

export class EventService {
  private readonly matcher = new EventMatcher();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: SessionStarter,
  ) {}

  /**
   * A matched event is stored in the same write transaction as the sessions it starts (with the
   * trigger counters), before any is handed to the runner; the hand-overs' outcomes are one more
   * write, which also corrects the event's result when the runner refused a session. The answer
   * waits for both, so an acknowledged event and its sessions are durable.
   */
  async send(team: TeamRow, input: SendEventInput, opts: { dryRun?: boolean } = {}): Promise<EventResultDto> {
    const event = normaliseEvent(input, this.clock());
    const verdicts = await this.store.read((tx) => this.judge(tx, team.id, event, opts.dryRun === true));
    const matched = verdicts.filter((v) => v.matched);
    if (opts.dryRun) return this.dryRun(team, event, verdicts, matched);

    if (matched.length === 0) {
      const { result } = summarise(event, verdicts, []);
      await this.store.write((tx) => tx.put('events', eventRow(team.id, event, result, randomUUID())));
      return result;
    }

    const rowId = randomUUID();
    // The sessions refer to the event's row, stored in the same write: one copy serves them all.
    const sessionEvent = { rowId, data: event };
    const reqs: StartSessionRequest[] = matched.map((v) => ({
      teamId: team.id,
      prompt: v.automation.prompt,
      environmentId: v.automation.environment_id,
      automationId: v.automation.id,
      triggerId: v.triggerIds[0],
      idempotencyKey: eventIdempotencyKey(v.automation.id, event.id),
      event: sessionEvent,
    }));
    let outcomes: StartOutcome[] = [];
    /** set by the stored hook (startMany runs it whenever it stores anything), again if a start is refused */
    let summary!: ReturnType<typeof summarise>;
    /** last_run_at of each counted trigger before this event, to undo a count the runner refused */
    const counted = new Map<string, string | null>();
    // A team that is not admitted: startMany throws EXECUTION_DENIED and nothing is stored.
    await this.sessions.startMany(reqs, {
      stored: async (tx, starts) => {
        outcomes = matched.map((v, i) => storedOutcome(v, event, starts[i]));
        for (const o of outcomes) {
          if (!o.sessionId) continue;
          const trigger = await tx.get('triggers', o.dispatched!.triggerIds[0]);
          if (!trigger) continue; // deleted while its session started
          counted.set(trigger.id, trigger.last_run_at);
          await tx.update('triggers', trigger.id, { total_runs: trigger.total_runs + 1, last_run_at: event.received_at });
        }
        summary = summarise(event, verdicts, outcomes);
        tx.put('events', eventRow(team.id, event, summary.result, rowId));
      },
      settled: async (tx, settled) => {
        let refused = false;
        outcomes = outcomes.map((o) => {
          const s = o.sessionId === undefined ? undefined : settled.get(o.sessionId);
          if (!s || !('error' in s)) return o;
          refused = true;
          return { verdict: o.verdict, sessionId: o.sessionId, error: { code: s.error.code, message: s.error.message } };
        });
        if (!refused) return;
        await this.uncount(tx, event, outcomes, counted);
        summary = summarise(event, verdicts, outcomes);
        tx.put('events', eventRow(team.id, event, summary.result, rowId));
      },
    });

    const { result, failures } = summary;
    // Nothing could be started: a 5xx, with the event kept so the list shows what happened.
    if (result.dispatched.length === 0 && failures.length > 0) throw new ApiError('SESSION_START_FAILED', result.reason);
    return result;
  }

  /** Received events of a team, newest first; `event_type` narrows the list. */
  async list(teamId: string, filter: ListEventsFilter): Promise<PageResult<ReceivedEventDto>> {
    return this.store.read(async (tx) => {
      const rows = (await tx.list('events', { team_id: teamId })).slice().reverse();
      const selected = filter.event_type === undefined ? rows : rows.filter((r) => r.event_type === filter.event_type);
      return paginate(selected, (r) => r.id, filter, receivedEventView);
    });
  }

  /**
   * Verdicts for the triggers listening to the event's exact key; when none of them matches (or
   * on a dry run), also for those listening to its event type under another provider, so the
   * reason can point at a provider mix-up.
   */
  private async judge(tx: ReadTx, teamId: string, event: NormalisedEventDto, dryRun: boolean): Promise<AutomationVerdict[]> {
    const exact = this.matcher.evaluate(await candidateTriggers(tx, teamId, event), event);
    if (!dryRun && exact.some((v) => v.matched)) return exact;
    const nearby = this.matcher.evaluate(await nearbyTriggers(tx, teamId, event), event);
    const seen = new Set(exact.map((v) => v.automation.id));
    return [...exact, ...nearby.filter((v) => !seen.has(v.automation.id))];
  }

  private async dryRun(team: TeamRow, event: NormalisedEventDto, verdicts: AutomationVerdict[], matched: AutomationVerdict[]): Promise<EventResultDto> {
    const dispatched = matched.map((v) => dispatchOf(v, event));
    const repeated = await this.store.read(async (tx) => {
      let n = 0;
      for (const d of dispatched) if (await sessionForKey(tx, team.id, d.idempotencyKey)) n++;
      return n;
    });
    let notAdmitted = false;
    if (matched.length > 0) {
      try {
        await this.sessions.assertAdmitted(team.id);
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'EXECUTION_DENIED') throw err;
        notAdmitted = true;
      }
    }
    return {
      accepted: dispatched.length > 0,
      dispatched,
      reason: eventReason({ event, verdicts, dispatched: dispatched.length, repeated, failures: [], dryRun: true, notAdmitted }),
      matches: verdicts.map((v) => ({ id: v.automation.id, automationId: v.automation.id, name: v.automation.name, matched: v.matched, failed: v.failed })),
    };
  }

  /** Takes back the trigger counts of sessions the runner refused: a refused start is no run. */
  private async uncount(tx: WriteTx, event: NormalisedEventDto, outcomes: StartOutcome[], counted: Map<string, string | null>): Promise<void> {
    for (const o of outcomes) {
      if (!o.sessionId || !o.error) continue;
      const triggerId = o.verdict.triggerIds[0];
      if (!counted.has(triggerId)) continue;
      const trigger = await tx.get('triggers', triggerId);
      if (!trigger) continue;
      const lastRunAt = trigger.last_run_at === event.received_at ? counted.get(triggerId)! : trigger.last_run_at;
      await tx.update('triggers', trigger.id, { total_runs: Math.max(0, trigger.total_runs - 1), last_run_at: lastRunAt });
    }
  }
}

/** What one matched automation came to once its session was stored (or found, or refused). */
function storedOutcome(verdict: AutomationVerdict, event: NormalisedEventDto, start: StoredStart): StartOutcome {
  if ('error' in start) return { verdict, error: { code: start.error.code, message: start.error.message } };
  const { row, created } = start;
  if (!created && row.status === 'failed' && row.started_at === null) {
    // The key is spent on a session the runner refused: a retry must not pass for a success,
    // and must not start a second session either.
    const message = `${row.last_error ?? 'the session could not be started'} (on an earlier delivery of event id ${JSON.stringify(event.id)}; send the event with a new id to try again)`;
    return { verdict, error: { code: 'SESSION_START_FAILED', message } };
  }
  return { verdict, dispatched: dispatchOf(verdict, event), created, sessionId: created ? row.session_id : undefined };
}

/** The event's result (and the failures it names) from what each matched automation came to. */
function summarise(event: NormalisedEventDto, verdicts: AutomationVerdict[], outcomes: StartOutcome[]) {
  const dispatched = outcomes.flatMap((o) => (o.dispatched ? [o.dispatched] : []));
  const failures = outcomes.flatMap((o) => (o.error ? [{ name: o.verdict.automation.name, message: o.error.message, code: o.error.code }] : []));
  const reason = eventReason({
    event,
    verdicts,
    dispatched: dispatched.length,
    repeated: outcomes.filter((o) => o.dispatched && !o.created).length,
    failures,
    dryRun: false,
  });
  const result: EventResultDto = { accepted: dispatched.length > 0, dispatched, reason };
  return { result, failures };
}

/** One row per receipt: a retried event id is a second row with the same event_id. */
function eventRow(teamId: string, event: NormalisedEventDto, result: EventResultDto, id: string): EventRow {
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
    dispatched: result.dispatched.map((d) => ({ automationId: d.automationId, triggerIds: d.triggerIds })),
    reason: result.reason,
  };
}

function dispatchOf(v: AutomationVerdict, event: NormalisedEventDto): Dispatched {
  return { automationId: v.automation.id, idempotencyKey: eventIdempotencyKey(v.automation.id, event.id), triggerIds: v.triggerIds };
}

function receivedEventView(r: EventRow): ReceivedEventDto {
  return {
    ...eventOfRow(r),
    accepted: r.accepted,
    dispatched: r.dispatched.map((d) => ({ automationId: d.automationId, idempotencyKey: eventIdempotencyKey(d.automationId, r.event_id), triggerIds: d.triggerIds })),
    reason: r.reason,
  };
}
