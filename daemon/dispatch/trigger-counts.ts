// The trigger counters an event dispatch batch moves (`total_runs`, `last_run_at`): one update
// per trigger for the whole batch, and the runs the runner refused taken back.
import type { WriteTx } from '../store/store.js';

/**
 * The runs a batch adds to each trigger (`total_runs`, `last_run_at`), written once per trigger
 * however many of the batch's events it matched, and taken back for sessions the runner refused:
 * a refused start is no run.
 */
export class TriggerCounts {
  /** per trigger, the event time of each run counted */
  private readonly runs = new Map<string, string[]>();
  /** per counted trigger, its last_run_at before the batch */
  private readonly before = new Map<string, string | null>();
  /** per trigger, the event time of each run the runner refused */
  private readonly refusedRuns = new Map<string, string[]>();

  run(triggerId: string, at: string): void {
    pushTo(this.runs, triggerId, at);
  }

  async apply(tx: WriteTx): Promise<void> {
    for (const [id, times] of this.runs) {
      const trigger = await tx.get('triggers', id);
      if (!trigger) continue; // deleted while its sessions started
      this.before.set(id, trigger.last_run_at);
      await tx.update('triggers', id, { total_runs: trigger.total_runs + times.length, last_run_at: latest(times)! });
    }
  }

  refused(triggerId: string, at: string): void {
    pushTo(this.refusedRuns, triggerId, at);
  }

  /**
   * Takes the refused runs back. last_run_at goes back to the latest run kept, else to what it
   * was before the batch, unless a later batch moved it on; then the time this batch set is
   * remembered as refused, for when that later batch is refused in turn.
   */
  async undoRefused(tx: WriteTx, refusedTimes: RefusedRunTimes): Promise<void> {
    for (const [id, refused] of this.refusedRuns) {
      if (!this.before.has(id)) continue;
      const trigger = await tx.get('triggers', id);
      if (!trigger) continue;
      const times = this.runs.get(id)!;
      const kept = [...times];
      for (const at of refused) kept.splice(kept.indexOf(at), 1);
      const setAt = latest(times)!;
      const back = latest(kept) ?? refusedTimes.before(id, this.before.get(id)!);
      if (trigger.last_run_at !== setAt && latest(kept) !== setAt) refusedTimes.remember(id, setAt, back);
      const lastRunAt = trigger.last_run_at === setAt ? back : trigger.last_run_at;
      await tx.update('triggers', id, { total_runs: Math.max(0, trigger.total_runs - refused.length), last_run_at: lastRunAt });
    }
  }
}

/**
 * Per trigger, last_run_at values that a batch set and the runner then refused, each with the
 * value to go back to instead, for the batches that began while it stood: two overlapping batches
 * both refused once put a trigger back to the other's refused time.
 */
export class RefusedRunTimes {
  private readonly back = new Map<string, string | null>();

  remember(triggerId: string, refusedAt: string, back: string | null): void {
    // Only batches under way at once consult it: the oldest entries can go.
    if (this.back.size >= 10_000) this.back.delete(this.back.keys().next().value!);
    this.back.set(`${triggerId}|${refusedAt}`, back);
  }

  /** `value`, or the run before it when it is a refused run's time. */
  before(triggerId: string, value: string | null): string | null {
    for (let i = 0; value !== null && i < 100; i++) {
      const key = `${triggerId}|${value}`;
      if (!this.back.has(key)) break;
      value = this.back.get(key)!;
    }
    return value;
  }
}

function pushTo(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The latest of ISO-8601 UTC timestamps (they sort as text), or undefined for none. */
const latest = (times: readonly string[]): string | undefined => times.reduce<string | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined);
