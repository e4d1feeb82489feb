// Inbound events (spec §4.8, CONTRACT §6): normalise, match through the trigger index, start one
// session per matching automation under the key `event:{automationId}:{eventId}`, record the event
// with its result. Cost follows the triggers listening to the event's key, not the team's size.
import { randomUUID } from 'node:crypto';
import type { EventResultDto, NormalisedEventDto, SendEventInput, SessionDto } from '../../shared/schemas/index.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { paginate, type PageRequest, type PageResult } from '../http/pagination.js';
import type { ReadTx, Store } from '../store/store.js';
import type { EventRow, TeamRow } from '../store/tables.js';
import { candidateTriggers, nearbyTriggers } from './candidates.js';
import { EventMatcher, type AutomationVerdict } from './matcher.js';
import { normaliseEvent } from './normalise.js';
import { eventReason } from './reason.js';

/** What dispatch needs of the session service (daemon/sessions). */
export interface SessionStarter {
  start(req: {
    teamId: string;
    prompt: string;
    environmentId: string | null;
    automationId?: string;
    triggerId?: string;
    idempotencyKey?: string;
    event?: Record<string, unknown> | null;
  }): Promise<{ session: Pick<SessionDto, 'session_id' | 'status' | 'started_at' | 'last_error'>; created: boolean }>;
  /** throws ApiError EXECUTION_DENIED when the team may not start work */
  assertAdmitted(teamId: string): Promise<void>;
}

export type Dispatched = EventResultDto['dispatched'][number];
export type ReceivedEventDto = NormalisedEventDto & Pick<EventRow, 'accepted' | 'dispatched' | 'reason'>;

export interface ListEventsFilter extends PageRequest {
  event_type?: string;
}

export const eventIdempotencyKey = (automationId: string, eventId: string) => `event:${automationId}:${eventId}`;

interface StartOutcome {
  verdict: AutomationVerdict;
  dispatched?: Dispatched;
  created?: boolean;
  error?: { code: ApiError['code'] | null; message: string };
}

export class EventService {
  private readonly matcher = new EventMatcher();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly sessions: SessionStarter,
  ) {}

  async send(team: TeamRow, input: SendEventInput, opts: { dryRun?: boolean } = {}): Promise<EventResultDto> {
    const event = normaliseEvent(input, this.clock());
    const verdicts = await this.store.read((tx) => this.judge(tx, team.id, event, opts.dryRun === true));
    const matched = verdicts.filter((v) => v.matched);
    if (opts.dryRun) return this.dryRun(team, event, verdicts, matched);

    // Refused before anything starts or is stored; with nothing to start, the usual answer.
    if (matched.length > 0) await this.sessions.assertAdmitted(team.id);
    const outcomes = await Promise.all(matched.map((v) => this.startOne(team, event, v)));

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
    // Admission withdrawn between the check and the starts: a 402 stores nothing, as above.
    const denied = dispatched.length === 0 && failures.length > 0 && failures.every((f) => f.code === 'EXECUTION_DENIED');
    if (denied) throw new ApiError('EXECUTION_DENIED', failures[0].message);
    await this.record(team.id, event, result, outcomes);
    // Nothing could be started: a 5xx, with the event kept so the list shows what happened.
    if (dispatched.length === 0 && failures.length > 0) throw new ApiError('SESSION_START_FAILED', reason);
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
      for (const d of dispatched) if (await tx.get('dispatches', d.idempotencyKey)) n++;
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
      matches: verdicts.map((v) => ({ automationId: v.automation.id, name: v.automation.name, matched: v.matched, failed: v.failed })),
    };
  }

  private async startOne(team: TeamRow, event: NormalisedEventDto, verdict: AutomationVerdict): Promise<StartOutcome> {
    const dispatched = dispatchOf(verdict, event);
    try {
      const { session, created } = await this.sessions.start({
        teamId: team.id,
        prompt: verdict.automation.prompt,
        environmentId: verdict.automation.environment_id,
        automationId: verdict.automation.id,
        triggerId: verdict.triggerIds[0],
        idempotencyKey: dispatched.idempotencyKey,
        event: { ...event },
      });
      if (!created && session.status === 'failed' && session.started_at === null) {
        // The key is spent on a session the runner refused: a retry must not pass for a success,
        // and must not start a second session either.
        const message = `${session.last_error ?? 'the session could not be started'} (on an earlier delivery of event id ${JSON.stringify(event.id)}; send the event with a new id to try again)`;
        return { verdict, error: { code: 'SESSION_START_FAILED', message } };
      }
      return { verdict, dispatched, created };
    } catch (err) {
      // A runner that refuses one automation's session must not hide the others' results.
      if (err instanceof ApiError) return { verdict, error: { code: err.code, message: err.message } };
      throw err;
    }
  }

  /**
   * Stores the event with its result and counts the runs it started: the first matching trigger
   * of each automation (the session's `trigger_id`) gets `total_runs + 1` and `last_run_at`, so an
   * automation's total stays its number of sessions. A repeated event id counts nothing.
   */
  private async record(teamId: string, event: NormalisedEventDto, result: EventResultDto, outcomes: StartOutcome[]): Promise<void> {
    await this.store.write(async (tx) => {
      for (const o of outcomes) {
        if (!o.dispatched || !o.created) continue;
        const trigger = await tx.get('triggers', o.dispatched.triggerIds[0]);
        if (!trigger) continue; // deleted while its session started
        tx.put('triggers', { ...trigger, total_runs: trigger.total_runs + 1, last_run_at: event.received_at });
      }
      const row: EventRow = {
        ...event,
        // Unique per receipt: a retried event id is a second row with the same event_id.
        id: randomUUID(),
        event_id: event.id,
        team_id: teamId,
        accepted: result.accepted,
        dispatched: result.dispatched,
        reason: result.reason,
      };
      tx.put('events', row);
    });
  }
}

function dispatchOf(v: AutomationVerdict, event: NormalisedEventDto): Dispatched {
  return { automationId: v.automation.id, idempotencyKey: eventIdempotencyKey(v.automation.id, event.id), triggerIds: v.triggerIds };
}

function receivedEventView(r: EventRow): ReceivedEventDto {
  return {
    id: r.event_id,
    provider: r.provider,
    event_type: r.event_type,
    connection_id: r.connection_id,
    source: r.source,
    subject: r.subject,
    time: r.time,
    metadata: r.metadata,
    data: r.data,
    received_at: r.received_at,
    accepted: r.accepted,
    dispatched: r.dispatched,
    reason: r.reason,
  };
}
