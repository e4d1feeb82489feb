import { createHash } from 'node:crypto';

/** A stable UUID (version 5 layout) for a name: same input, same id, on every daemon. */
export function uuidFromName(name: string): string {
  const h = createHash('sha1').update(name).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const eventTypeId = (teamId: string, provider: string, eventType: string) =>
  uuidFromName(`event-type|${teamId}|${provider}|${eventType}`);

export const matchKey = (teamId: string, provider: string, eventType: string) => `${teamId}|${provider}|${eventType}`;

/**
 * Any provider's triggers for one event type, whatever its letter case: the index behind a
 * dispatch reason's hints at a provider mix-up (`github` for `generic`) or a case mix-up
 * (`Deploy.Finished` for `deploy.finished`).
 */
export const typeKey = (teamId: string, eventType: string) => `${teamId}|*|${eventType.toLowerCase()}`;
