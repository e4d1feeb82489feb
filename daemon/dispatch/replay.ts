// Replay (CONTRACT §12): a stored event dispatched again, as a new event `{eventId}:replay:{n}`, so
// its sessions start anew. n counts per event on the event's first receipt (`replays`), moved by
// an atomic increment: replays on several daemons at once each get an n of their own.
import { MAX_EVENT_ID_LENGTH } from '../../shared/api-values.js';
import type { SendEventInput } from '../../shared/schemas/index.js';
import { invalid, notFound } from '../errors.js';
import type { ReadTx, WriteTx } from '../store/store.js';
import type { EventRow } from '../store/tables.js';

/**
 * The receipt that counts an event's replays: the team's first stored receipt of the event id (a
 * retried id has several; every replay counts on the same one). 404 when the team has none.
 */
export async function replayedReceipt(tx: ReadTx, teamId: string, eventId: string): Promise<EventRow> {
  const receipt = (await tx.list('events', { event_id: eventId })).find((e) => e.team_id === teamId);
  if (!receipt) throw notFound(`event ${JSON.stringify(eventId)}`);
  return receipt;
}

/** The number the next replay of the receipt's event takes, without taking it (a dry run). */
export function nextReplay(receipt: EventRow): number {
  const n = (receipt.replays ?? 0) + 1;
  assertReplayable(receipt.event_id, n);
  return n;
}

/**
 * Takes the next replay number of the team's event, in the write `tx`; one whose id would be
 * too long throws, and the write, its number with it, is undone.
 */
export async function takeReplay(tx: WriteTx, teamId: string, eventId: string): Promise<{ receipt: EventRow; n: number }> {
  const receipt = await replayedReceipt(tx, teamId, eventId);
  const counted = await tx.increment('events', receipt.id, { replays: 1 });
  assertReplayable(receipt.event_id, counted.replays!);
  return { receipt, n: counted.replays! };
}

export const replayEventId = (eventId: string, n: number) => `${eventId}:replay:${n}`;

/**
 * A replay is an event of its own, whose id is held to an event id's limit: one over it could be
 * neither sent again with that id nor replayed in turn.
 */
function assertReplayable(eventId: string, n: number): void {
  const id = replayEventId(eventId, n);
  if (id.length <= MAX_EVENT_ID_LENGTH) return;
  throw invalid(`this event cannot be replayed: the replay's id (the event id followed by ":replay:${n}") would have ${id.length} characters, and an event id may have at most ${MAX_EVENT_ID_LENGTH}`);
}

/** The stored event as a new one: its own id, the time of the replay, everything else as received. */
export function replayInput(receipt: EventRow, n: number): SendEventInput {
  return {
    id: replayEventId(receipt.event_id, n),
    provider: receipt.provider,
    event_type: receipt.event_type,
    connection_id: receipt.connection_id,
    source: receipt.source,
    subject: receipt.subject,
    metadata: receipt.metadata,
    data: receipt.data,
  };
}
