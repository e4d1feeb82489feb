// What the scheduler notes on an automation (`last_error`) that is not a failed run, and the
// bound on any error text it stores there.
import type { WriteTx } from '../store/store.js';

const MAX_ERROR_CHARS = 2000;

export const truncate = (s: string) => (s.length > MAX_ERROR_CHARS ? s.slice(0, MAX_ERROR_CHARS - 1) + '…' : s);

/**
 * Notes what the scheduler did on the automation (not a failed run: the count stays). Notes of
 * one moment (several schedule triggers of an automation caught up, or refused, together) add
 * up rather than replace each other.
 */
export async function noteOnAutomation(tx: WriteTx, automationId: string, message: string, now: Date): Promise<void> {
  const a = await tx.get('automations', automationId);
  if (!a) return;
  const at = now.toISOString();
  const sameMoment = a.last_error !== null && a.last_error_at === at;
  if (sameMoment && a.last_error!.split('; also ').includes(message)) return;
  const text = sameMoment ? `${a.last_error}; also ${message}` : message;
  await tx.update('automations', automationId, { last_error: truncate(text), last_error_at: at });
}
