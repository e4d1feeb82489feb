// Sessions a daemon start finds left behind by the previous process: those left `queued` (stored,
// never handed over) are handed over now; those left `running` by a runner whose turns die with
// the daemon process fail with RESTART_ERROR. Webhook turns belong to the remote runtime and stay
// running.
import type { Clock } from '../clock.js';
import type { ApiError } from '../errors.js';
import type { Store, WriteTx } from '../store/store.js';
import type { SessionRow } from '../store/tables.js';
import { applyRunOutcome, type AutomationHealth } from './automation-health.js';
import type { HandOverResult, HandOvers, SessionLog, SettleHandOver } from './hand-over.js';
import { sessionEvent, type SessionEvent } from './view.js';

export const RESTART_ERROR = 'daemon restarted during the turn';
/** groups of sessions left queued (an event's, or one) a daemon start hands over at once */
const RECOVERY_GROUPS_IN_FLIGHT = 64;

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

export interface RecoveryDeps {
  store: Store;
  clock: Clock;
  turns: HandOvers;
  health: AutomationHealth;
  log?: SessionLog;
  /**
   * Runs in the write that records a recovery hand-over the runner refused: whoever answered for
   * the start when it stored the session (event dispatch, in its receipts) corrects that there.
   */
  refusedAtRecovery?: (tx: WriteTx, refused: readonly RefusedAtRecovery[]) => Promise<void> | void;
}

export class SessionRecovery {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly turns: HandOvers;
  private readonly health: AutomationHealth;
  private readonly log: SessionLog | undefined;
  private readonly refusedAtRecovery: RecoveryDeps['refusedAtRecovery'];
  private recovery: Promise<void> | undefined;
  /** set by stopHandingOverLeftQueued(): recovery hands over nothing more */
  private stopping = false;

  constructor(deps: RecoveryDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.turns = deps.turns;
    this.health = deps.health;
    this.log = deps.log;
    this.refusedAtRecovery = deps.refusedAtRecovery;
  }

  /**
   * At daemon start: sessions left `queued` (stored, never handed over) are handed over now;
   * sessions left `running` by a runner whose turns die with the daemon process fail with
   * RESTART_ERROR. Webhook turns belong to the remote runtime and stay running.
   */
  recover(): Promise<void> {
    this.recovery ??= this.doRecover().catch((err) => this.log?.error({ err }, 'session recovery failed'));
    return this.recovery;
  }

  /** The daemon is stopping: recovery starts no more hand-overs (see SessionService.stop). */
  stopHandingOverLeftQueued(): void {
    this.stopping = true;
  }

  /** Resolves once recovery (when it was started) has finished the hand-overs under way. */
  async settled(): Promise<void> {
    await this.recovery;
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
        groups: groupedByEvent(queued).map((ids) => ({ ids, settle: this.turns.expectHandOver(ids.map((s) => s.id)) })),
        orphaned: running.filter((s) => s.runner !== 'webhook').map((s) => s.session_id),
      };
    });
    const { groups, orphaned } = await left;
    try {
      await this.turns.runner.init();
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
          if (row && row.status === 'queued' && !this.turns.isInFlight(id)) out.push({ row, event: await sessionEvent(tx, row) });
        }
        return out;
      });
      if (starts.length === 0) return;
      // (what the last run of the write's callback could not take back: see recordRefusedAtRecovery)
      let notTakenBack: { err: unknown; sessionIds: string[] } | undefined;
      results = await this.turns.handOver(starts, async (tx, outcomes) => {
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
    if (this.turns.isInFlight(sessionId)) return;
    const disabled = await this.store.write(async (tx) => {
      const s = await tx.get('sessions', sessionId);
      if (!s || s.status !== 'running') return false;
      const now = this.clock().toISOString();
      tx.put('sessions', { ...s, status: 'failed', last_error: RESTART_ERROR, completed_at: now, updated_at: now });
      return s.automation_id ? applyRunOutcome(tx, s.automation_id, { ok: false, error: RESTART_ERROR, interrupted: true }, now) : false;
    });
    this.health.disabled(disabled);
  }
}

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
