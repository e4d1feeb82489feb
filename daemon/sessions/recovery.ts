// Sessions left behind by a daemon process that ended: those left `queued` (stored, never handed
// over) are handed over again; those left `running` by a runner whose turns die with the daemon
// process fail with RESTART_ERROR. Webhook turns belong to the remote runtime and stay running.
//
// Which sessions a process left is told by their claims (claims.ts). In a data folder, locked to
// one daemon, every session not claimed by this process is a previous one's: taken up at start.
// On a shared database, a daemon takes up (in one write, claiming them) the sessions of each daemon
// whose claim has expired, at start and every half claim time; SERIALIZABLE writes take each such
// session over once, however many daemons recover at the same moment. The sessions of a daemon
// that is alive are never touched. Sessions claimed by no daemon (rows written before claims) or
// by one without a row (a store copied from a data folder) are taken up at start, as before; and
// so are those of this daemon's previous process (claims.ts), at once, as a restart always did.
import type { Clock } from '../clock.js';
import type { SessionMetrics } from '../metrics/reporters.js';
import type { ApiError } from '../errors.js';
import type { Store, WriteTx } from '../store/store.js';
import type { InstanceRow, SessionRow } from '../store/tables.js';
import type { InstanceClaims } from './claims.js';
import { applyRunOutcome, type AutomationHealth } from './automation-health.js';
import { turnsOf, type HandOverResult, type HandOvers, type SessionLog, type SettleHandOver } from './hand-over.js';
import { sessionEvent, type SessionEvent } from './view.js';

export const RESTART_ERROR = 'daemon restarted during the turn';
/** groups of sessions left queued (an event's, or one) a daemon start hands over at once */
const RECOVERY_GROUPS_IN_FLIGHT = 64;

/** Sessions a recovery hands over together (an event's), and how to settle their waiters. */
interface RecoveryGroup {
  ids: readonly { id: string }[];
  settle: SettleHandOver;
}

/** A session the runner refused when recovery handed it over again, and the refusal. */
export interface RefusedAtRecovery {
  row: SessionRow;
  error: ApiError;
}

export interface RecoveryDeps {
  store: Store;
  clock: Clock;
  turns: HandOvers;
  claims: InstanceClaims;
  health: AutomationHealth;
  log?: SessionLog;
  /**
   * Runs in the write that records a recovery hand-over the runner refused: whoever answered for
   * the start when it stored the session (event dispatch, in its receipts) corrects that there.
   */
  refusedAtRecovery?: (tx: WriteTx, refused: readonly RefusedAtRecovery[]) => Promise<void> | void;
  /** counts the sessions a recovery fails (/metrics) */
  metrics?: Pick<SessionMetrics, 'sessionFinished'>;
}

export class SessionRecovery {
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly turns: HandOvers;
  private readonly claims: InstanceClaims;
  private readonly health: AutomationHealth;
  private readonly log: SessionLog | undefined;
  private readonly metrics: RecoveryDeps['metrics'];
  private readonly refusedAtRecovery: RecoveryDeps['refusedAtRecovery'];
  private recovery: Promise<void> | undefined;
  /** the pass under way (at start, or a later one) */
  private pass: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** set by stopHandingOverLeftQueued(): recovery hands over nothing more */
  private stopping = false;
  /** resolved once the pass at start has read (and registered) the sessions left queued */
  private listedAtStart: Promise<void> | undefined;
  private markListed: () => void = () => undefined;

  constructor(deps: RecoveryDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.turns = deps.turns;
    this.claims = deps.claims;
    this.health = deps.health;
    this.log = deps.log;
    this.metrics = deps.metrics;
    this.refusedAtRecovery = deps.refusedAtRecovery;
  }

  /**
   * At daemon start: sessions other processes left (see above) are taken up; on a shared database,
   * again every half claim time, so a dead daemon's sessions wait at most that long after its
   * claim expires.
   */
  recover(): Promise<void> {
    this.listedAtStart ??= new Promise<void>((resolve) => (this.markListed = resolve));
    this.recovery ??= this.runPass(true).finally(() => this.schedule());
    return this.recovery;
  }

  /**
   * Resolves once recovery at start has read the sessions left queued: from then on, a retry of
   * an event that finds one of them waits for its hand-over (see doRecover). The daemon takes no
   * request before.
   */
  listed(): Promise<void> {
    return this.listedAtStart ?? Promise.resolve();
  }

  /** The daemon is stopping: recovery starts no more hand-overs (see SessionService.stop). */
  stopHandingOverLeftQueued(): void {
    this.stopping = true;
    clearTimeout(this.timer);
  }

  /** Resolves once recovery (when it was started) has finished the hand-overs under way. */
  async settled(): Promise<void> {
    await this.recovery;
    await this.pass;
  }

  private schedule(): void {
    if (this.claims.exclusive || this.stopping) return;
    this.timer = setTimeout(() => {
      void this.runPass(false).finally(() => this.schedule());
    }, Math.max(1, Math.floor(this.claims.claimMs / 2)));
    this.timer.unref();
  }

  private runPass(atStart: boolean): Promise<void> {
    const pass = this.doRecover(atStart).catch((err) => this.log?.error({ err }, 'session recovery failed'));
    this.pass = pass;
    return pass;
  }

  private async doRecover(atStart: boolean): Promise<void> {
    // At start, read before anything else can start a session. The sessions one event started
    // are handed over together, so what is taken back for those the runner refuses is decided in
    // one write per event. From this read on, a group counts as being handed over: a retry of its
    // event that finds one of its sessions meanwhile waits for what the runner says, as it would
    // for a hand-over already under way.
    const read = this.store.read(async (tx) => {
      const instances = await tx.list('instances');
      const left = atStart ? [...(await tx.list('sessions', { status: 'queued' })), ...(await tx.list('sessions', { status: 'running' }))] : [];
      const queued = left.filter((s) => s.status === 'queued').map((s) => ({ id: s.session_id, eventRowId: s.event_row_id }));
      return {
        seen: groupedByEvent(queued).map((ids): RecoveryGroup => ({ ids, settle: this.turns.expectHandOver(ids.map((s) => s.id)) })),
        // (a pass with nothing to take up writes nothing)
        needed: left.some((s) => this.mayTake(s, instances)) || instances.some((i) => this.isOver(i)),
      };
    });
    if (atStart) void read.finally(() => this.markListed()).catch(() => undefined);
    const { seen, needed } = await read;
    if (!needed) {
      for (const { settle } of seen) settle(undefined);
      return;
    }
    let groups: RecoveryGroup[] = seen;
    try {
      // (exec: what a killed process left running ends before its sessions are failed)
      await this.turns.runner.init();
      const taken = await this.store.write((tx) => this.takeOver(tx, atStart));
      this.health.disabled(taken.disabled);
      for (let i = 0; i < taken.failed; i++) this.metrics?.sessionFinished('failed');
      if (taken.failed > 0 || taken.queued.length > 0 || taken.instances > 0) {
        this.log?.warn(
          { handedOverAgain: taken.queued.length, failed: taken.failed, instances: taken.instances },
          'took up the sessions of daemon processes that ended',
        );
      }
      groups = this.groupsOf(seen, taken.queued);
      await this.handOverLeftQueued(groups);
    } finally {
      // Nothing may wait for a group recovery never got to (settling twice changes nothing).
      for (const { settle } of seen) settle(undefined);
      for (const { settle } of groups) settle(undefined);
    }
  }

  /**
   * The groups to hand over: of those read at start, the sessions taken over; the others taken
   * (a later pass's) grouped afresh.
   */
  private groupsOf(seen: readonly RecoveryGroup[], queued: readonly SessionRow[]): RecoveryGroup[] {
    const taken = new Set(queued.map((s) => s.session_id));
    const out: RecoveryGroup[] = [];
    for (const g of seen) {
      const ids = g.ids.filter((s) => taken.delete(s.id));
      // (another daemon's: whoever waits for it need not wait for this recovery)
      if (ids.length > 0) out.push({ ids, settle: g.settle });
      else g.settle(undefined);
    }
    const rest = queued.filter((s) => taken.has(s.session_id)).map((s) => ({ id: s.session_id, eventRowId: s.event_row_id }));
    for (const ids of groupedByEvent(rest)) out.push({ ids, settle: this.turns.expectHandOver(ids.map((s) => s.id)) });
    return out;
  }

  /**
   * In one write: claims for this daemon the live sessions of processes that ended (see above),
   * fails those whose turns died with them, and deletes the rows of daemons that hold nothing
   * any more. Returns the queued sessions taken over, for the caller to hand over.
   */
  private async takeOver(tx: WriteTx, atStart: boolean): Promise<{ queued: SessionRow[]; failed: number; instances: number; disabled: boolean }> {
    const me = this.claims.instanceId;
    const now = this.clock();
    const at = now.toISOString();
    const out = { queued: [] as SessionRow[], failed: 0, instances: 0, disabled: false };
    const take = async (s: SessionRow) => {
      if (s.status === 'queued') {
        // Its first turn is still to come (rows written before counting say nothing).
        out.queued.push(await tx.update('sessions', s.session_id, { claimed_by: me, turns_in_flight: 1 }));
      } else if (s.runner === 'webhook') {
        // The remote runtime holds its turns; a hand-over the dead process had under way died with it.
        await tx.update('sessions', s.session_id, { claimed_by: me, turns_in_flight: 0 });
      } else {
        tx.put('sessions', { ...s, status: 'failed', last_error: RESTART_ERROR, completed_at: at, updated_at: at, claimed_by: me, turns_in_flight: 0 });
        out.failed++;
        if (s.automation_id) out.disabled = (await applyRunOutcome(tx, s.automation_id, { ok: false, error: RESTART_ERROR, interrupted: true }, at)) || out.disabled;
      }
    };
    const live = async (where: { claimed_by?: string }) => [
      ...(await tx.list('sessions', { ...where, status: 'queued' })),
      ...(await tx.list('sessions', { ...where, status: 'running' })),
    ];
    const instances = await tx.list('instances');
    if (this.claims.exclusive) {
      // A data folder is locked to this daemon: every other claim in it is a process's that ended.
      for (const s of await live({})) if (this.mayTake(s, instances)) await take(s);
      for (const i of instances) if (this.isOver(i, now)) tx.delete('instances', i.id);
      out.instances = instances.filter((i) => this.isOver(i, now)).length;
      return out;
    }
    const over = instances.filter((i) => this.isOver(i, now));
    const dead = new Set(over.map((i) => i.id));
    const alive = (id: string) => !dead.has(id) && instances.some((i) => i.id === id);
    // Sessions whose turns were all looked at below (their claimant's), with the rows of theirs.
    const settled = new Set<string>();
    for (const i of over) {
      for (const s of await live({ claimed_by: i.id })) {
        settled.add(s.session_id);
        const rows = await tx.list('session_turns', { session_id: s.session_id });
        const others = rows.filter((r) => alive(r.instance_id));
        if (others.length === 0 || s.status !== 'running') {
          for (const r of rows) tx.delete('session_turns', r.id);
          await take(s);
          continue;
        }
        // Turns of live daemons run on: the claim goes to one of them, whose turns then need no row
        // (a claimant's turns die with it), and only the dead claimant's own turns are dropped.
        const heir = others[0].instance_id;
        for (const r of rows) if (r.instance_id === heir || !alive(r.instance_id)) tx.delete('session_turns', r.id);
        await tx.update('sessions', s.session_id, { claimed_by: heir, turns_in_flight: others.length });
      }
    }
    // The turns dead daemons ran of sessions a live daemon claims: each died with its daemon.
    const diedOf = new Map<string, number>();
    for (const i of over) {
      for (const r of await tx.list('session_turns', { instance_id: i.id })) {
        if (settled.has(r.session_id)) continue;
        tx.delete('session_turns', r.id);
        diedOf.set(r.session_id, (diedOf.get(r.session_id) ?? 0) + 1);
      }
    }
    for (const [id, died] of diedOf) {
      const s = await tx.get('sessions', id);
      if (!s || s.status !== 'running') continue;
      const left = Math.max(0, turnsOf(s) - died);
      if (left > 0 || s.runner === 'webhook') {
        // (a webhook session with none left stays running, held by its runtime, as at any recovery)
        await tx.update('sessions', id, { turns_in_flight: left });
        continue;
      }
      tx.put('sessions', { ...s, status: 'failed', last_error: RESTART_ERROR, completed_at: at, updated_at: at, turns_in_flight: 0 });
      out.failed++;
      if (s.automation_id) out.disabled = (await applyRunOutcome(tx, s.automation_id, { ok: false, error: RESTART_ERROR, interrupted: true }, at)) || out.disabled;
    }
    for (const i of over) tx.delete('instances', i.id);
    out.instances += over.length;
    if (atStart) for (const s of await live({})) if (this.mayTake(s, instances)) await take(s);
    return out;
  }

  /**
   * Whether the daemon of this row has ended: always in a data folder (but this one), else once
   * its claim expired, or at once when it is this daemon's previous process.
   */
  private isOver(i: InstanceRow, now = this.clock()): boolean {
    if (i.id === this.claims.instanceId) return false;
    return this.claims.exclusive || i.id === this.claims.previous || Date.parse(i.alive_until) <= now.getTime();
  }

  /**
   * Whether a start takes up this live session without looking at its claimant's row: in a data
   * folder, any other process's; on a database, one claimed by no daemon (written before claims)
   * or by one with no row (copied from a data folder).
   */
  private mayTake(s: SessionRow, instances: readonly InstanceRow[]): boolean {
    const by = s.claimed_by ?? null;
    if (by === this.claims.instanceId) return false;
    return this.claims.exclusive || by === null || !instances.some((i) => i.id === by);
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
          if (row && row.status === 'queued' && row.claimed_by === this.claims.instanceId && !this.turns.isInFlight(id)) out.push({ row, event: await sessionEvent(tx, row) });
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
        if ('error' in result) this.log?.warn({ sessionId, err: result.error.message }, 'a queued session taken up could not be handed over');
      }
    } catch (err) {
      this.log?.error({ sessionIds: ids.map((s) => s.id), err }, 'queued sessions taken up could not be handed over');
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
