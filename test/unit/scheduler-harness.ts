// A scheduler on virtual time for the unit tests: a real store in a temp folder, the real
// automation and session services (record runner), and a clock and timer the test advances, so
// a week of schedules runs in milliseconds and nothing sleeps.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutomationService } from '../../daemon/automations/service.js';
import type { Clock } from '../../daemon/clock.js';
import { RecordRunner } from '../../daemon/runner/record.js';
import { RunnerRefused } from '../../daemon/runner/runner.js';
import { Scheduler, type ScheduledStart, type SchedulerOptions } from '../../daemon/scheduler/scheduler.js';
import type { Timers } from '../../daemon/scheduler/timers.js';
import { AutomationHealth } from '../../daemon/sessions/automation-health.js';
import { SessionService } from '../../daemon/sessions/service.js';
import { openStore } from '../../daemon/store/index.js';
import type { JournalStore } from '../../daemon/store/journal-store.js';
import type { SessionRow, TriggerRow } from '../../daemon/store/tables.js';
import { TeamService } from '../../daemon/teams/service.js';

interface VirtualTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/** A clock and a timer queue that move only when told to. */
export class VirtualTime {
  private readonly queue = new Map<number, VirtualTimer>();
  private seq = 0;
  /** every delay the code under test asked for, in order */
  readonly requested: number[] = [];

  constructor(public now: number) {}

  readonly clock: Clock = () => new Date(this.now);

  readonly timers: Timers = {
    set: (fn, ms) => {
      const id = ++this.seq;
      this.requested.push(ms);
      this.queue.set(id, { at: this.now + Math.max(0, ms), seq: id, fn });
      return id;
    },
    clear: (handle) => {
      this.queue.delete(handle as number);
    },
  };

  /** Due times of the timers that are set, ascending. */
  pending(): number[] {
    return [...this.queue.values()].map((t) => t.at).sort((a, b) => a - b);
  }

  /** Moves time to `target`, running each timer at its due time and letting work settle between. */
  async advanceTo(target: Date | string | number, settle: () => Promise<void>): Promise<void> {
    const end = new Date(target).getTime();
    for (let guard = 0; guard < 100_000; guard++) {
      await settle();
      const next = [...this.queue.entries()].filter(([, t]) => t.at <= end).sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) {
        if (this.now >= end) return;
        this.now = end;
        continue;
      }
      this.queue.delete(next[0]);
      this.now = Math.max(this.now, next[1].at);
      next[1].fn();
    }
    throw new Error('virtual time did not settle: a timer keeps re-arming at the same instant');
  }
}

/** The record runner, except that it refuses every turn while `down` is set. */
class SwitchableRunner extends RecordRunner {
  down = false;
  override async take() {
    if (this.down) throw new RunnerRefused('the runner is down');
    return super.take();
  }

  /** A runner that is down refuses at the hand-over, so sessions are handed over while it is. */
  override answerAtOnce() {
    return this.down ? undefined : super.answerAtOnce();
  }
}

export interface HarnessOptions extends Partial<Pick<SchedulerOptions, 'catchUpWindowMs' | 'concurrency' | 'exclusive' | 'leaseMs' | 'leadMs' | 'instanceId' | 'recheckMs'>> {
  now: string;
  /** start the scheduler at once (default true) */
  start?: boolean;
}

export type Harness = Awaited<ReturnType<typeof makeHarness>>;

const silent = { info() {}, warn() {}, error() {} };

export async function makeHarness(opts: HarnessOptions) {
  const dir = await mkdtemp(join(tmpdir(), 'svc-sched-'));
  const time = new VirtualTime(Date.parse(opts.now));
  const clock = time.clock;
  const store: JournalStore = await openStore({ dataDir: dir, logger: silent, now: clock });
  const listener = { schedulesChanged: () => scheduler.schedulesChanged() };
  const teams = new TeamService(store, clock);
  const automations = new AutomationService(store, clock, listener);
  const health = new AutomationHealth(store, clock, listener);
  const runner = new SwitchableRunner();
  const sessions = new SessionService({ store, clock, runner: () => runner, health });
  const starts: ScheduledStart[] = [];
  /** when set, a start request waits for the promise it returns (to hold a start in flight) */
  let gate: ((req: ScheduledStart) => Promise<void> | undefined) | null = null;
  const scheduler: Scheduler = new Scheduler({
    store,
    clock,
    timers: time.timers,
    startSessions: async (reqs) => {
      starts.push(...reqs);
      await Promise.all(reqs.map((req) => gate?.(req)));
      return sessions.startMany(reqs);
    },
    catchUpWindowMs: opts.catchUpWindowMs,
    concurrency: opts.concurrency,
    exclusive: opts.exclusive,
    // (virtual time runs every timer it passes: months of rechecks would be all a test does)
    recheckMs: opts.recheckMs ?? null,
    leaseMs: opts.leaseMs,
    // Leased at the slot's time unless a test says otherwise: the timer delays asserted are the slots'.
    leadMs: opts.leadMs ?? 0,
    instanceId: opts.instanceId ?? 'daemon-test',
  });
  const team = await teams.createTeam({ slug: 'acme' });
  if (opts.start !== false) await scheduler.start();

  const settle = () => scheduler.idle();
  return {
    dir,
    store,
    time,
    scheduler,
    teams,
    automations,
    sessionService: sessions,
    team,
    /** while true, the runner refuses every turn (the sessions fail: SESSION_START_FAILED) */
    setRunnerDown(down: boolean) {
      runner.down = down;
    },
    /** every start request the scheduler made, in order (a repeated key shows up twice) */
    starts,
    settle,
    advanceTo: (target: Date | string | number) => time.advanceTo(target, settle),
    /** creates an automation with one schedule trigger */
    async schedule(trigger: { cron_expression?: string; one_off_at?: string; timezone?: string }, name = `auto-${Math.random().toString(36).slice(2)}`, teamId = team.id) {
      const view = await automations.create(teamId, { name, prompt: `run ${name}`, triggers: [{ kind: 'schedule', ...trigger }] } as never);
      await settle();
      return { id: view.id, triggerId: view.triggers[0].id };
    },
    async trigger(id: string): Promise<TriggerRow> {
      return (await store.read((tx) => tx.get('triggers', id)))!;
    },
    async automation(id: string) {
      return automations.get(team.id, id);
    },
    async sessions(automationId?: string): Promise<SessionRow[]> {
      return store.read((tx) => (automationId ? tx.list('sessions', { automation_id: automationId }) : tx.list('sessions', { team_id: team.id })));
    },
    /** the slots (ISO) that started sessions, from their idempotency keys, in start order */
    async firedSlots(triggerId: string): Promise<string[]> {
      const prefix = `schedule:${triggerId}:`;
      return (await store.read((tx) => tx.list('sessions')))
        .map((s) => s.idempotency_key ?? '')
        .filter((k) => k.startsWith(prefix))
        .map((k) => k.slice(prefix.length));
    },
    holdStarts(fn: typeof gate) {
      gate = fn;
    },
    async putTrigger(row: TriggerRow) {
      await store.write((tx) => tx.put('triggers', row));
    },
    async close() {
      await scheduler.stop();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
