// Turns a request body into the normalised event (CONTRACT §6): the one shape filters are
// evaluated against, sessions receive and the event list shows.
import { newId } from '../store/new-id.js';
import { DEFAULT_PROVIDER } from '../../shared/schemas/events.js';
import type { NormalisedEventDto, SendEventInput } from '../../shared/schemas/index.js';
import type { EventRow } from '../store/tables.js';
import { utcDateTime } from '../utc-time.js';

export function normaliseEvent(input: SendEventInput, now: Date, makeId: () => string = newId): NormalisedEventDto {
  const receivedAt = now.toISOString();
  return {
    id: input.id ?? makeId(),
    provider: input.provider ?? DEFAULT_PROVIDER,
    event_type: input.event_type,
    connection_id: input.connection_id ?? null,
    source: input.source ?? null,
    subject: input.subject ?? null,
    time: input.time !== undefined ? utc(input.time) : receivedAt,
    metadata: input.metadata ?? {},
    data: input.data ?? {},
    received_at: receivedAt,
  };
}

/**
 * A sender's offset becomes UTC so times sort as strings; what UTC cannot spell (a leap second, a
 * year the offset pushes out of 0000-9999) stays as sent, which is valid RFC 3339.
 */
const utc = (time: string): string => utcDateTime(time) ?? time;

/**
 * The normalised event a schema-1 session kept a copy of, in full: a copy written before a field
 * existed gets that field's default, as normaliseEvent gives it (`receivedAt` when it has no
 * receipt time of its own).
 */
export function eventOfCopy(copy: Record<string, unknown>, receivedAt: string): NormalisedEventDto {
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const object = (v: unknown) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const received = text(copy.received_at) ?? receivedAt;
  return {
    id: text(copy.id) ?? '',
    provider: text(copy.provider) ?? DEFAULT_PROVIDER,
    event_type: text(copy.event_type) ?? '',
    connection_id: text(copy.connection_id),
    source: text(copy.source),
    subject: text(copy.subject),
    time: text(copy.time) ?? received,
    metadata: object(copy.metadata),
    data: object(copy.data),
    received_at: received,
  };
}

/** The normalised event an `events` row (one receipt of it) was stored from. */
export function eventOfRow(r: EventRow): NormalisedEventDto {
  return {
    id: r.event_id,
    provider: r.provider,
    event_type: r.event_type,
    connection_id: r.connection_id,
    source: r.source,
    subject: r.subject,
    time: r.time,
    metadata: r.metadata,
    data: r.data,
    received_at: r.received_at,
  };
}
