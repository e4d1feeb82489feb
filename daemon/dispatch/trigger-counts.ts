// The trigger counters an event dispatch batch moves (`total_runs`, `last_run_at`): one update
// per trigger for the whole batch.
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

  async apply(tx: WriteTx): Promise<void> {
    for (const [id, times] of this.runs) {
      const trigger = await tx.get('triggers', id);
      if (!trigger) continue; // deleted while its sessions started
      await tx.update('triggers', id, { total_runs: trigger.total_runs + times.length, last_run_at: latest(times)! });
    }
  }
}

/** The latest of ISO-8601 UTC timestamps (they sort as text), or undefined for none. */
const latest = (times: readonly string[]): string | undefined => times.reduce<string | undefined>((a, b) => (a === undefined || b > a ? b : a), undefined);
