// The `reason` sentence of an event's dispatch result (CONTRACT §6): how many automations were
// dispatched, or which condition kept the nearest ones out, so a sender can fix its side.
import type { NormalisedEventDto } from '../../shared/schemas/index.js';
import type { AutomationVerdict } from './matcher.js';

/** How many non-matching automations a reason names before it summarises the rest. */
export const REASON_NAMES = 3;

export interface ReasonInput {
  event: Pick<NormalisedEventDto, 'id' | 'provider' | 'event_type'>;
  /** every automation considered, matched or not */
  verdicts: readonly AutomationVerdict[];
  /** matching automations dispatched (or, on a dry run, that would be) */
  dispatched: number;
  /** of those, the ones that already had a session for this event id: nothing new started */
  repeated: number;
  /** matching automations whose session could not be started */
  failures: readonly { name: string; message: string }[];
  dryRun: boolean;
}

const q = (s: string) => JSON.stringify(s);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function eventReason(r: ReasonInput): string {
  const parts: string[] = [];
  if (r.dispatched > 0) {
    let head = `${r.dryRun ? 'would dispatch' : 'dispatched'} to ${plural(r.dispatched, 'automation')}`;
    if (r.repeated > 0) {
      head += ` (${r.repeated} already dispatched for event id ${q(r.event.id)}: ${r.dryRun ? 'no new session would start' : 'no new session'})`;
    }
    parts.push(head);
  } else if (r.failures.length > 0) {
    parts.push(r.dryRun ? 'nothing would dispatch' : 'nothing dispatched');
  } else {
    return noMatchReason(r);
  }
  for (const f of r.failures) parts.push(`session start failed for ${q(f.name)}: ${f.message}`);
  return parts.join('; ');
}

function noMatchReason(r: ReasonInput): string {
  const { provider, event_type } = r.event;
  // nearness > 1: provider and event type both matched, so the automation listens to this key.
  const listening = r.verdicts.some((v) => v.automation.status === 'active' && v.nearness > 1);
  const head = listening
    ? `no automation matched provider ${q(provider)} event ${q(event_type)}`
    : `no active automation listens to provider ${q(provider)} event ${q(event_type)}`;
  if (r.verdicts.length === 0) return head;
  // Stable sort: among equally near automations, the oldest comes first.
  const nearest = [...r.verdicts].sort((a, b) => b.nearness - a.nearness);
  const named = nearest.slice(0, REASON_NAMES).map((v) => v.failed);
  const rest = nearest.length - named.length;
  const tail = rest > 0 ? `; and ${plural(rest, 'other automation')} did not match` : '';
  return `${head}: ${named.join('; ')}${tail}`;
}
