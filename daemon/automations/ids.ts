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
 * CONTRACT §4: one id per team, provider and event type. The provider's own `|` and `\` are
 * escaped, so provider `a` with type `b|c` and provider `a|b` with type `c` differ; a provider
 * without either (every real one) keeps the id it always had.
 */
export const eventTypeId = (teamId: string, provider: string, eventType: string) =>
  uuidFromName(`event-type|${teamId}|${provider.replace(/[\\|]/g, '\\$&')}|${eventType}`);

/**
 * The trigger index's key. Unescaped (stored on every trigger): `a` + `b|c` and `a|b` + `c` share
 * one, which only makes the other a candidate, and the matcher compares provider and type exactly.
 */
export const matchKey = (teamId: string, provider: string, eventType: string) => `${teamId}|${provider}|${eventType}`;

/**
 * Any provider's triggers for one event type, whatever its letter case: the index behind a
 * dispatch reason's hints at a provider mix-up (`github` for `generic`) or a case mix-up
 * (`Deploy.Finished` for `deploy.finished`).
 */
export const typeKey = (teamId: string, eventType: string) => `${teamId}|*|${eventType.toLowerCase()}`;
