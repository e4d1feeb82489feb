// What a session's turns come to while one of its follow-ups is being handed over. When the
// runner refuses that follow-up, the session must end as the other turns left it meanwhile (one
// answered, or one a webhook runtime took and holds), not as it was before the follow-up came.

/** A turn answered (the session completes when it was the last), or taken and held remotely. */
export type TurnOutcome = { status: 'completed'; at: string } | { status: 'running' };

interface Watched {
  watchers: number;
  /** outcomes noted so far, and the last of them */
  count: number;
  last?: TurnOutcome;
}

export class TurnOutcomes {
  /** only sessions with a follow-up being handed over: noting costs nothing otherwise */
  private readonly watched = new Map<string, Watched>();

  /** Starts watching a session for one hand-over; `latest()` is the last outcome since, if any. */
  watch(sessionId: string): { latest(): TurnOutcome | undefined; end(): void } {
    let w = this.watched.get(sessionId);
    if (!w) this.watched.set(sessionId, (w = { watchers: 0, count: 0 }));
    w.watchers++;
    const mark = w.count;
    const watched = w;
    return {
      latest: () => (watched.count > mark ? watched.last : undefined),
      end: () => {
        if (--watched.watchers === 0) this.watched.delete(sessionId);
      },
    };
  }

  note(sessionId: string, outcome: TurnOutcome): void {
    if (this.watched.size === 0) return;
    const w = this.watched.get(sessionId);
    if (!w) return;
    w.count++;
    w.last = outcome;
  }
}
