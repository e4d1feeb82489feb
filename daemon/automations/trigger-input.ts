// Turns the triggers of a create/update request (or the compatibility fields) into validated
// trigger specs, with errors that name the field (CONTRACT §4).
import { isValidTimeZone, timeZoneAsSpelled, validateCronExpression } from '../../shared/cron.js';
import { takesValue, validateFilter } from '../../shared/filters.js';
import { DEFAULT_PROVIDER } from '../../shared/schemas/events.js';
import type { CreateAutomationInput, TriggerInputDto } from '../../shared/schemas/index.js';
import { invalid } from '../errors.js';
import { isBlank } from '../text-checks.js';
import { utcDateTime } from '../utc-time.js';
import type { EventFilter, TriggerRow } from '../store/tables.js';

export type TriggerSpec =
  | {
      kind: 'schedule';
      id?: string;
      enabled: boolean;
      cron_expression: string | null;
      one_off_at: string | null;
      timezone: string;
    }
  | {
      kind: 'event';
      id?: string;
      enabled: boolean;
      provider: string;
      event_type: string;
      connection_id: string | null;
      filters: EventFilter[];
    };

const SCHEDULE_ONLY = ['cron_expression', 'one_off_at', 'timezone'] as const;
const EVENT_ONLY = ['provider', 'event_type', 'connection_id', 'filters'] as const;
const COMPAT_FIELDS = ['one_off_at', 'event_type', 'event_provider', 'event_filter', 'connection_id', 'timezone'] as const;

type CompatInput = Pick<CreateAutomationInput, (typeof COMPAT_FIELDS)[number]>;

export function hasCompatFields(input: Partial<CompatInput>): boolean {
  return COMPAT_FIELDS.some((f) => input[f] !== undefined);
}

/** What an update's input is checked against: the automation's triggers as stored. */
export type StoredTrigger = Pick<
  TriggerRow,
  'id' | 'kind' | 'status' | 'enabled' | 'cron_expression' | 'one_off_at' | 'timezone' | 'provider' | 'event_type' | 'connection_id' | 'filters'
>;

/**
 * The trigger specs a request asks for, or undefined when it names none (an update that keeps
 * its triggers). `now` bounds one-off times, which must lie in the future, except that an update
 * may list a one-off whose time passed (it ran, or it could not: its automation was paused), with
 * its time unchanged and not enabled anew: a client that sends back the trigger set it read, plus
 * a change, must not be refused for it.
 * `existing` are the automation's stored triggers (none on create).
 */
export function triggerSpecsFrom(
  input: { triggers?: TriggerInputDto[] } & Partial<CompatInput>,
  now: Date,
  existing: readonly StoredTrigger[] = [],
): TriggerSpec[] | undefined {
  const compat = hasCompatFields(input);
  if (input.triggers !== undefined) {
    if (compat) {
      const used = COMPAT_FIELDS.filter((f) => input[f] !== undefined).join(', ');
      throw invalid(`body.triggers cannot be combined with the compatibility field(s) ${used}; put them inside a trigger`);
    }
    return input.triggers.map((t, i) => {
      const stored = t.id === undefined ? undefined : existing.find((e) => e.id === t.id);
      // Said first: what else the element lacks follows from the id being wrong.
      if (t.id !== undefined && !stored && existing.length > 0) throw invalid(`body.triggers[${i}].id ${t.id} is not a trigger of this automation`);
      return triggerSpec(withStoredFields(t, stored), `body.triggers[${i}]`, now, { stored });
    });
  }
  if (!compat) return undefined;
  if (input.event_type !== undefined) {
    if (input.one_off_at !== undefined) throw invalid('body.one_off_at and body.event_type cannot both be set; use triggers for more than one trigger');
    if (input.timezone !== undefined) throw invalid('body.timezone applies to schedules, not to an event automation');
    return [
      triggerSpec(
        { kind: 'event', provider: input.event_provider, event_type: input.event_type, connection_id: input.connection_id, filters: input.event_filter },
        'body',
        now,
        { filtersAt: 'body.event_filter' },
      ),
    ];
  }
  if (input.one_off_at !== undefined) {
    for (const f of ['event_provider', 'event_filter', 'connection_id'] as const) {
      if (input[f] !== undefined) throw invalid(`body.${f} needs body.event_type`);
    }
    // The update reuses the first stored schedule trigger (see AutomationService.replaceTriggers).
    const stored = existing.find((e) => e.kind === 'schedule');
    return [triggerSpec({ kind: 'schedule', one_off_at: input.one_off_at, timezone: input.timezone }, 'body', now, { stored })];
  }
  const first = COMPAT_FIELDS.find((f) => input[f] !== undefined)!;
  throw invalid(`body.${first} needs body.event_type (event automation) or body.one_off_at (one-time schedule)`);
}

/**
 * `at` names the trigger in errors; `filtersAt` its filters, as the request named them.
 * `stored` is the trigger this input updates, if any.
 */
function triggerSpec(
  t: TriggerInputDto,
  at: string,
  now: Date,
  { filtersAt = `${at}.filters`, stored }: { filtersAt?: string; stored?: StoredTrigger } = {},
): TriggerSpec {
  const enabled = t.enabled ?? true;
  if (t.kind === 'schedule') {
    rejectFields(t, EVENT_ONLY, at, 'schedule');
    // Stored as five fields split by one space, however it was spaced (a tab, a trailing newline).
    const cron = t.cron_expression == null ? null : t.cron_expression.trim().split(/\s+/).join(' ');
    const oneOff = t.one_off_at ?? null;
    if ((cron === null) === (oneOff === null)) throw invalid(`${at} needs exactly one of cron_expression or one_off_at`);
    if (cron !== null) {
      const problem = validateCronExpression(cron);
      if (problem) throw invalid(`${at}.cron_expression: ${problem}`);
    }
    if (oneOff !== null) {
      const inUtc = utcDateTime(oneOff);
      if (inUtc === undefined) {
        throw invalid(Number.isNaN(Date.parse(oneOff)) ? `${at}.one_off_at must be an ISO 8601 date-time` : `${at}.one_off_at must fall in the years 0000-9999 in UTC (${oneOff} does not)`);
      }
      const when = Date.parse(inUtc);
      // Sent back unchanged, a passed one-off is kept as it is (disabling it is fine too); only
      // enabling one again needs a new time.
      if (when <= now.getTime() && !ranAt(stored, when) && !(keptAs(stored, when) && (!enabled || stored!.enabled))) {
        const hint = keptAs(stored, when) ? '; its time has passed: give it a new one_off_at to enable it again' : '';
        throw invalid(`${at}.one_off_at must be in the future (it is ${oneOff}, now is ${now.toISOString()})${hint}`);
      }
    }
    const sent = t.timezone ?? 'UTC';
    if (!isValidTimeZone(sent)) throw invalid(`${at}.timezone "${sent}" is not an IANA time zone (e.g. Europe/Berlin, America/New_York, UTC)`);
    const timezone = timeZoneAsSpelled(sent);
    return {
      kind: 'schedule',
      id: t.id,
      enabled,
      cron_expression: cron,
      one_off_at: oneOff === null ? null : utcDateTime(oneOff)!,
      timezone,
    };
  }
  if (t.kind === 'event') {
    rejectFields(t, SCHEDULE_ONLY, at, 'event');
    if (t.event_type === undefined) throw invalid(`${at}.event_type is required for an event trigger`);
    if (isBlank(t.event_type)) throw invalid(`${at}.event_type must not be blank`);
    const filters = (t.filters ?? []).map((f, i) => {
      const problem = validateFilter(f);
      if (problem) throw invalid(`${filtersAt}[${i}]: ${problem}`);
      // CONTRACT §6: exists and not_exists ignore `value`, so it is not kept.
      return { jsonPath: f.jsonPath, operator: f.operator, ...(typeof f.value === 'string' && takesValue(f.operator) ? { value: f.value } : {}) };
    });
    return {
      kind: 'event',
      id: t.id,
      enabled,
      provider: t.provider ?? DEFAULT_PROVIDER,
      event_type: t.event_type,
      connection_id: t.connection_id ?? null,
      filters,
    };
  }
  throw invalid(`${at}.kind must be "schedule" or "event" (got "${t.kind}")`);
}

/**
 * An element naming a stored trigger of its kind updates it, and update is partial (CONTRACT §4):
 * what the element leaves out keeps its stored value (a zone, `enabled`, the filters). A null
 * it sends clears. A schedule element that names a cron expression or a one-off time takes only
 * that one, so a trigger can change from one to the other.
 */
function withStoredFields(t: TriggerInputDto, stored: StoredTrigger | undefined): TriggerInputDto {
  if (!stored || stored.kind !== t.kind) return t;
  const sent = Object.fromEntries(Object.entries(t).filter(([, v]) => v !== undefined)) as TriggerInputDto;
  if (t.kind === 'schedule') {
    const timed = t.cron_expression !== undefined || t.one_off_at !== undefined;
    return {
      ...(timed ? {} : { cron_expression: stored.cron_expression, one_off_at: stored.one_off_at }),
      timezone: stored.timezone,
      enabled: stored.enabled,
      ...sent,
    };
  }
  return {
    provider: stored.provider ?? undefined,
    event_type: stored.event_type ?? undefined,
    connection_id: stored.connection_id,
    filters: stored.filters ?? undefined,
    enabled: stored.enabled,
    ...sent,
  };
}

/** Whether `stored` is a one-off that already ran at `when`. */
function ranAt(stored: StoredTrigger | undefined, when: number): boolean {
  return keptAs(stored, when) && stored!.status === 'completed';
}

/** Whether `stored` is a one-off at `when`: an update that sends its time back unchanged. */
function keptAs(stored: StoredTrigger | undefined, when: number): boolean {
  return stored?.kind === 'schedule' && stored.one_off_at !== null && Date.parse(stored.one_off_at) === when;
}

function rejectFields(t: TriggerInputDto, fields: readonly (keyof TriggerInputDto)[], at: string, kind: string): void {
  for (const f of fields) {
    if (t[f] !== undefined && t[f] !== null) throw invalid(`${at}.${f} does not apply to ${kind === 'event' ? 'an' : 'a'} ${kind} trigger`);
  }
}
