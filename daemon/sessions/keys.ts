// Idempotency keys of sessions (CONTRACT §5, §6): a key that started a session never starts another.
// A schedule slot's key is stored on its session, in a unique index. The key of a session an event
// started, `event:{automationId}:{eventId}`, is not: the session refers to the receipt of its
// event, which holds the event id, so the key is derived from the two and found through the
// receipts of its event id. A matched event thus adds one entry to an index (its receipt's event
// id), not one per session to a unique index of every key ever used.
import { conflict } from '../errors.js';
import type { ReadTx } from '../store/store.js';
import type { EventRow, SessionRow } from '../store/tables.js';

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

/** The session a key started, or undefined when the key is new (or its session was dropped). */
export async function sessionForKey(tx: ReadTx, teamId: string, key: string): Promise<SessionRow | undefined> {
  const ofEvent = parseEventKey(key);
  if (ofEvent) return sessionForEvent(tx, teamId, ofEvent.automationId, ofEvent.eventId);
  return sessionForStoredKey(tx, teamId, key);
}

/** The session event `eventId` started for the automation (its key `event:{automationId}:{eventId}`). */
export async function sessionForEvent(tx: ReadTx, teamId: string, automationId: string, eventId: string): Promise<SessionRow | undefined> {
  return sessionOfEvent(await receiptsOf(tx, teamId, eventId), tx, automationId);
}

async function sessionForStoredKey(tx: ReadTx, teamId: string, key: string): Promise<SessionRow | undefined> {
  const [seen] = await tx.list('sessions', { idempotency_key: key });
  if (seen && seen.team_id !== teamId) throw conflict('this idempotency key belongs to another team');
  return seen;
}

async function receiptsOf(tx: ReadTx, teamId: string, eventId: string): Promise<EventRow[]> {
  return (await tx.list('events', { event_id: eventId })).filter((r) => r.team_id === teamId);
}

/** The session the automation's run for one of `receipts` (an event id's, in one team) started. */
async function sessionOfEvent(receipts: readonly EventRow[], tx: ReadTx, automationId: string): Promise<SessionRow | undefined> {
  for (const receipt of receipts) {
    for (const s of await tx.list('sessions', { event_row_id: receipt.id })) if (s.automation_id === automationId) return s;
  }
  return undefined;
}

/** What a session to start is keyed by: a stored key, or the event that starts it for an automation. */
export type StartKey = { stored: string } | { automationId: string; eventId: string };

/**
 * The keys of one start batch, in one write transaction: the sessions it created so far (their
 * receipts are stored after them), and the event ids found to have no receipt before it, so the
 * ten sessions of an event look them up once.
 */
export class BatchKeys {
  private readonly created = new Map<string, SessionRow>();
  /** event id -> automation id -> the session this batch started */
  private readonly createdForEvent = new Map<string, Map<string, SessionRow>>();
  /** team id -> event ids without a receipt before this batch */
  private readonly unreceived = new Map<string, Set<string>>();

  /**
   * The session the key started before this request, in this batch or before it: at once when
   * the batch knows, else once the store has said (a promise).
   */
  earlier(tx: ReadTx, teamId: string, key: StartKey): SessionRow | undefined | Promise<SessionRow | undefined> {
    if ('stored' in key) return this.created.get(key.stored) ?? sessionForStoredKey(tx, teamId, key.stored);
    const mine = this.createdForEvent.get(key.eventId)?.get(key.automationId);
    if (mine) return mine;
    if (this.unreceived.get(teamId)?.has(key.eventId)) return undefined;
    return this.lookUpEvent(tx, teamId, key);
  }

  private async lookUpEvent(tx: ReadTx, teamId: string, key: { automationId: string; eventId: string }): Promise<SessionRow | undefined> {
    const receipts = await receiptsOf(tx, teamId, key.eventId);
    if (receipts.length > 0) return sessionOfEvent(receipts, tx, key.automationId);
    let none = this.unreceived.get(teamId);
    if (!none) this.unreceived.set(teamId, (none = new Set()));
    none.add(key.eventId);
    return undefined;
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
