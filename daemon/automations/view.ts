// The automation as the API shows it (spec §2, CONTRACT §4): the automation's own fields, the
// first schedule and first event trigger flattened onto it, and every trigger in full.
import type { AutomationDto, TriggerDto } from '../../shared/schemas/index.js';
import type { AutomationRow, TriggerRow } from '../store/tables.js';
import { takesValue } from '../../shared/filters.js';
import { eventTypeId } from './ids.js';

export function triggerView(t: TriggerRow): TriggerDto {
  return {
    id: t.id,
    kind: t.kind,
    status: t.status,
    enabled: t.enabled,
    timezone: t.timezone,
    total_runs: t.total_runs,
    automation_id: t.automation_id,
    cron_expression: t.cron_expression,
    one_off_at: t.one_off_at,
    next_run_at: t.next_run_at,
    last_run_at: t.last_run_at,
    lease_until: t.lease_until,
    lease_owner: t.lease_owner,
    provider: t.provider,
    event_type: t.event_type,
    connection_id: t.connection_id,
    filters: filtersView(t.filters),
  };
}

/** Every filter with its `value`: null where it does not apply (exists, not_exists; CONTRACT §4). */
function filtersView(filters: TriggerRow['filters']): TriggerDto['filters'] {
  return filters && filters.map((f) => ({ jsonPath: f.jsonPath, operator: f.operator, value: takesValue(f.operator) ? (f.value ?? null) : null }));
}

/** `triggers` must be this automation's, in position order. */
export function automationView(a: AutomationRow, triggers: TriggerRow[]): AutomationDto {
  const schedules = triggers.filter((t) => t.kind === 'schedule');
  const firstSchedule = schedules[0];
  const firstEvent = triggers.find((t) => t.kind === 'event');
  return {
    id: a.id,
    team_id: a.team_id,
    automation_type: triggers[0]?.kind ?? 'schedule',
    status: a.status,
    name: a.name,
    prompt: a.prompt,
    timezone: firstSchedule?.timezone ?? null,
    total_runs: triggers.reduce((n, t) => n + t.total_runs, 0),
    repo_filters: a.repo_filters,
    created_at: a.created_at,
    updated_at: a.updated_at,
    triggers: triggers.map(triggerView),
    automation_id: a.id,
    environment_id: a.environment_id,
    cron_expression: firstSchedule?.cron_expression ?? null,
    one_off_at: firstSchedule?.one_off_at ?? null,
    next_run_at: extreme(schedules.map((t) => t.next_run_at), 'min'),
    // CONTRACT §4: over the schedule triggers; an event trigger's runs show on the trigger itself.
    last_run_at: extreme(schedules.map((t) => t.last_run_at), 'max'),
    event_provider: firstEvent?.provider ?? null,
    event_type: firstEvent?.event_type ?? null,
    event_type_id: firstEvent ? eventTypeId(a.team_id, firstEvent.provider!, firstEvent.event_type!) : null,
    event_filter: firstEvent ? filtersView(firstEvent.filters) : null,
    lease_until: firstSchedule?.lease_until ?? null,
    lease_owner: firstSchedule?.lease_owner ?? null,
    last_error: a.last_error,
    last_error_at: a.last_error_at,
  };
}

function extreme(values: (string | null)[], which: 'min' | 'max'): string | null {
  let best: string | null = null;
  for (const v of values) {
    if (v === null) continue;
    // ISO 8601 UTC strings of one format order like their instants.
    if (best === null || (which === 'min' ? v < best : v > best)) best = v;
  }
  return best;
}
