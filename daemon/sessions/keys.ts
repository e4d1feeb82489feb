// Idempotency keys of sessions (CONTRACT §5, §6): a key that started a session never starts
// another, and the store holds to that itself (tables.ts), whatever was looked up first. A schedule
// slot's key is stored on its session (`idempotency_key`, a unique field). The key of a session an
// event started for an automation, `event:{automationId}:{eventId}`, is kept as its two ids
// (`automation_id` and `event_id`, unique together).
import { conflict } from '../errors.js';
import type { ReadTx, WriteTx } from '../store/store.js';
import type { SessionRow } from '../store/tables.js';

export const eventIdempotencyKey = (automationId: string, eventId: string) => `event:${automationId}:${eventId}`;

// Automation ids are lower-case UUIDs; the event id is the rest, colons and all.
const EVENT_KEY = /^event:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):/;

export function parseEventKey(key: string): { automationId: string; eventId: string } | undefined {
  const m = EVENT_KEY.exec(key);
  return m ? { automationId: m[1], eventId: key.slice(m[0].length) } : undefined;
}

/** The event id of the session's event, when it has one (`event` as sessionEvent reads it). */
export function startingEventId(event: Record<string, unknown> | null | undefined): string | undefined {
  return typeof event?.id === 'string' ? event.id : undefined;
}

/** The key a session was started under, if any: stored, or its automation's and event's. */
export function keyOfSession(s: Pick<SessionRow, 'idempotency_key' | 'automation_id' | 'event_id'>): string | null {
  if (s.idempotency_key !== null) return s.idempotency_key;
  return s.automation_id !== null && s.event_id !== null && s.event_id !== undefined ? eventIdempotencyKey(s.automation_id, s.event_id) : null;
}

/** The session a key started, or undefined when the key is new (or its session was dropped). */
export async function sessionForKey(tx: ReadTx, teamId: string, key: string): Promise<SessionRow | undefined> {
  const ofEvent = parseEventKey(key);
  if (ofEvent) return (await sessionForEvent(tx, teamId, ofEvent.automationId, ofEvent.eventId)) ?? sessionForStoredKey(tx, teamId, key);
  return sessionForStoredKey(tx, teamId, key);
}

/** The session event `eventId` started for the automation (its key `event:{automationId}:{eventId}`). */
export async function sessionForEvent(tx: ReadTx, teamId: string, automationId: string, eventId: string): Promise<SessionRow | undefined> {
  const [seen] = await tx.list('sessions', { automation_id: automationId, event_id: eventId });
  return seen && seen.team_id === teamId ? seen : undefined;
}

async function sessionForStoredKey(tx: ReadTx, teamId: string, key: string): Promise<SessionRow | undefined> {
  const [seen] = await tx.list('sessions', { idempotency_key: key });
  return ofTeam(seen, teamId);
}

/** The session a stored key started, which must be the team's. */
function ofTeam(seen: SessionRow | undefined, teamId: string): SessionRow | undefined {
  if (seen && seen.team_id !== teamId) throw conflict('this idempotency key belongs to another team');
  return seen;
}

/** What a session to start is keyed by: a stored key, or the event that starts it for an automation. */
export type StartKey = { stored: string } | { automationId: string; eventId: string };

/**
 * The keys of one start batch, in one write transaction: the sessions it created so far, and the
 * event ids found to have no receipt before it.
 *
 * An event id that no receipt of the team holds has started no session (dispatch stores an
 * event's sessions and its receipt in one write), so the ten sessions of a new event need one
 * lookup, not ten. That is a shortcut, not what keeps keys unique: a session whose receipt is gone
 * (retention) is still found by the store, which refuses a second one with UniqueViolation; the
 * batch is then made again with `exact` keys, each looked up itself.
 */
export class BatchKeys {
  private readonly created = new Map<string, SessionRow>();
  /** event id -> automation id -> the session this batch started */
  private readonly createdForEvent = new Map<string, Map<string, SessionRow>>();
  /** team id -> event ids without a receipt before this batch */
  private readonly unreceived = new Map<string, Set<string>>();
  /** stored key -> the session it started before this batch (undefined: none), as lookUpAll found */
  private readonly storedFound = new Map<string, SessionRow | undefined>();

  constructor(private readonly exact = false) {}

  /**
   * The session the key started before this request, in this batch or before it: at once when
   * the batch knows, else once the store has said (a promise).
   */
  earlier(tx: WriteTx, teamId: string, key: StartKey): SessionRow | undefined | Promise<SessionRow | undefined> {
    if ('stored' in key) {
      const mine = this.created.get(key.stored);
      if (mine) return mine;
      if (this.storedFound.has(key.stored)) return ofTeam(this.storedFound.get(key.stored), teamId);
      return this.storedSession(tx, key.stored).then((seen) => ofTeam(seen, teamId));
    }
    const mine = this.createdForEvent.get(key.eventId)?.get(key.automationId);
    if (mine) return mine;
    if (this.exact) return sessionForEvent(tx, teamId, key.automationId, key.eventId);
    if (this.unreceived.get(teamId)?.has(key.eventId)) return undefined;
    return this.lookUpEvent(tx, teamId, key);
  }

  /**
   * Asks the store about the keys of a whole batch at once, one wait for them all where asking
   * request by request waits once each: earlier() then answers most requests without asking.
   */
  async lookUpAll(tx: WriteTx, keys: readonly { teamId: string; key: StartKey }[]): Promise<void> {
    const asked = new Set<string>();
    const lookups: Promise<unknown>[] = [];
    for (const { teamId, key } of keys) {
      if ('stored' in key) {
        if (asked.has(`stored:${key.stored}`)) continue;
        asked.add(`stored:${key.stored}`);
        const stored = key.stored;
        lookups.push(this.storedSession(tx, stored).then((seen) => this.storedFound.set(stored, seen)));
      } else if (!this.exact && !asked.has(`event:${teamId}:${key.eventId}`)) {
        asked.add(`event:${teamId}:${key.eventId}`);
        lookups.push(this.received(tx, teamId, key.eventId));
      }
    }
    await Promise.all(lookups);
  }

  /**
   * The session a stored key started, as committed: the unique key, not this transaction, keeps a
   * second one out (WriteTx.listCommitted), so concurrent batches of other keys do not make this
   * one run again.
   */
  private async storedSession(tx: WriteTx, key: string): Promise<SessionRow | undefined> {
    const [seen] = await tx.listCommitted('sessions', { idempotency_key: key });
    return seen;
  }

  private async lookUpEvent(tx: ReadTx, teamId: string, key: { automationId: string; eventId: string }): Promise<SessionRow | undefined> {
    return (await this.received(tx, teamId, key.eventId)) ? sessionForEvent(tx, teamId, key.automationId, key.eventId) : undefined;
  }

  /** Whether a receipt of the team holds the event id; notes the id as unreceived when none does. */
  private async received(tx: ReadTx, teamId: string, eventId: string): Promise<boolean> {
    const receipts = await tx.list('events', { event_id: eventId });
    if (receipts.some((r) => r.team_id === teamId)) return true;
    let none = this.unreceived.get(teamId);
    if (!none) this.unreceived.set(teamId, (none = new Set()));
    none.add(eventId);
    return false;
  }

  add(key: StartKey, row: SessionRow): void {
    if ('stored' in key) {
      this.created.set(key.stored, row);
      return;
    }
    let byAutomation = this.createdForEvent.get(key.eventId);
    if (!byAutomation) this.createdForEvent.set(key.eventId, (byAutomation = new Map()));
    byAutomation.set(key.automationId, row);
  }
}
