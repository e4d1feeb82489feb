// Which triggers an event is judged against, read through the trigger indexes: the exact key
// (team, provider, event type) for dispatch, the event type alone for a reason's provider hint.
// Neither reads the team's other automations.
import type { NormalisedEventDto } from '../../shared/schemas/index.js';
import { matchKey, typeKey } from '../automations/ids.js';
import type { ReadTx } from '../store/store.js';
import type { TriggerRow } from '../store/tables.js';
import type { Candidate } from './matcher.js';

type EventKey = Pick<NormalisedEventDto, 'provider' | 'event_type'>;

export async function candidateTriggers(tx: ReadTx, teamId: string, event: EventKey): Promise<Candidate[]> {
  return withAutomations(tx, teamId, await tx.list('triggers', { match_key: matchKey(teamId, event.provider, event.event_type) }));
}

/**
 * Event triggers for the same event type under another provider, or for the type written in
 * another letter case: those candidateTriggers did not read.
 */
export async function nearbyTriggers(tx: ReadTx, teamId: string, event: EventKey): Promise<Candidate[]> {
  const triggers = await tx.list('triggers', { type_key: typeKey(teamId, event.event_type) });
  return withAutomations(
    tx,
    teamId,
    triggers.filter((t) => t.provider !== event.provider || t.event_type !== event.event_type),
  );
}

async function withAutomations(tx: ReadTx, teamId: string, triggers: TriggerRow[]): Promise<Candidate[]> {
  const mine = triggers.filter((t) => t.kind === 'event' && t.team_id === teamId);
  // (one read for all: this runs for every event, and a wait per trigger cost more than the lookups)
  const automations = await tx.getMany('automations', mine.map((t) => t.automation_id));
  const out: Candidate[] = [];
  mine.forEach((trigger, i) => {
    const automation = automations[i];
    if (automation && automation.team_id === teamId) out.push({ automation, trigger });
  });
  return out;
}
