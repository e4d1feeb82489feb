// What the scheduler notes on an automation (`last_error`) that is not a failed run.
import { lastErrorFields } from '../automations/last-error.js';
import type { WriteTx } from '../store/store.js';

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
  await tx.update('automations', automationId, lastErrorFields(text, at));
}
