import { createHash } from 'node:crypto';

/** A stable UUID (version 5 layout) for a name: same input, same id, on every daemon. */
export function uuidFromName(name: string): string {
  const h = createHash('sha1').update(name).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A provider as one field of a `|`-joined name: its own `|` and `\` escaped, so provider `a` with
 * type `b|c` and provider `a|b` with type `c` are two names. A provider without either (every
 * real one) reads as itself. (The team is a UUID, and the event type is the last field.)
 */
const providerField = (provider: string) => provider.replace(/[\\|]/g, '\\$&');

/** CONTRACT §4: one id per team, provider and event type. */
export const eventTypeId = (teamId: string, provider: string, eventType: string) =>
  uuidFromName(`event-type|${teamId}|${providerField(provider)}|${eventType}`);

/** The trigger index's key: the triggers listening to exactly this provider and event type. */
export const matchKey = (teamId: string, provider: string, eventType: string) => `${teamId}|${providerField(provider)}|${eventType}`;

/**
 * Any provider's triggers for one event type, whatever its letter case: the index behind a
 * dispatch reason's hints at a provider mix-up (`github` for `generic`) or a case mix-up
 * (`Deploy.Finished` for `deploy.finished`).
 */
export const typeKey = (teamId: string, eventType: string) => `${teamId}|*|${eventType.toLowerCase()}`;
