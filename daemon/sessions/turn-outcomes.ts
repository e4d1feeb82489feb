// What a session's turns come to while one of its follow-ups is being handed over. When the
// runner refuses that follow-up, the session must end as the other turns left it meanwhile (one
// answered, or one a webhook runtime took and holds), not as it was before the follow-up came.
// An answered turn is noted once the write that stores it has resolved (a write callback tells
// nothing outside its transaction), and a watch waits for such writes under way before it says.

/** A turn answered (the session completes when it was the last), or taken and held remotely. */
export type TurnOutcome = { status: 'completed'; at: string } | { status: 'running' };

interface Watched {
  watchers: number;
  /** outcomes noted so far, and the last of them */
  count: number;
  last?: TurnOutcome;
  /** writes of the session's turns under way, which note their outcome when they resolve */
  storing: Set<Promise<void>>;
}

export class TurnOutcomes {
  /** only sessions with a follow-up being handed over: noting costs nothing otherwise */
  private readonly watched = new Map<string, Watched>();

  /** Starts watching a session for one hand-over; `latest()` is the last outcome since, if any. */
  watch(sessionId: string): { latest(): Promise<TurnOutcome | undefined>; end(): void } {
    let w = this.watched.get(sessionId);
    if (!w) this.watched.set(sessionId, (w = { watchers: 0, count: 0, storing: new Set() }));
    w.watchers++;
    const mark = w.count;
    const watched = w;
    return {
      latest: async () => {
        while (watched.storing.size > 0) await Promise.all([...watched.storing]);
        return watched.count > mark ? watched.last : undefined;
      },
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

  /** Notes what `stored` resolves to (nothing when undefined, or when it fails), once it does. */
  noteWhenStored(sessionId: string, stored: Promise<TurnOutcome | undefined>): void {
    const w = this.watched.get(sessionId);
    const noted = stored.then(
      (outcome) => {
        if (outcome) this.note(sessionId, outcome);
      },
      () => undefined,
    );
    if (!w) return;
    w.storing.add(noted);
    void noted.finally(() => w.storing.delete(noted));
  }
}
