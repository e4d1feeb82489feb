// The trigger counters an event dispatch batch moves (`total_runs`, `last_run_at`): one update
// per trigger for the whole batch. Made afresh in each run of the write's callback (see Store.write).
import type { WriteTx } from '../store/store.js';

/**
 * The runs a batch adds to each trigger, written once per trigger however many of the batch's
 * events it matched. A run is a session: one the runner refused exists too (`failed`), and
 * counts, as a scheduled run the runner refuses does.
 */
export class TriggerCounts {
  /** per trigger, the event time of each run counted */
  private readonly runs = new Map<string, string[]>();

  run(triggerId: string, at: string): void {
    const times = this.runs.get(triggerId);
    if (times) times.push(at);
    else this.runs.set(triggerId, [at]);
  }

  /** Adds the runs to the counters, by an atomic add each (not a value read before). */
  async apply(tx: WriteTx): Promise<void> {
    const ids = [...this.runs.keys()];
    // (one read for all: a trigger deleted while its sessions started has nothing to count)
    const found = await tx.getMany('triggers', ids);
    for (let i = 0; i < ids.length; i++) {
      if (!found[i]) continue;
      const times = this.runs.get(ids[i])!;
      await tx.increment('triggers', ids[i], { total_runs: times.length }, { last_run_at: latest(times)! });
    }
  }
}

/** The latest of ISO-8601 UTC timestamps (they sort as text), or undefined for none. */
const latest = (times: readonly string[]): string | undefined => times.reduce<string | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined);
