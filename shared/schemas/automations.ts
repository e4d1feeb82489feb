// Team automations and their triggers (spec §2, §4.3-4.5; CONTRACT §4).
import Type from 'typebox';
import { AUTOMATION_LIMITS } from '../automation-limits.js';
import { FILTER_OPERATORS } from '../filter-operators.js';
import { JsonObject, Nullable, QueryLimit, StringEnum, TeamSlug, Timestamp, Uuid } from './common.js';

import { AUTOMATION_STATUSES } from '../api-values.js';

export { AUTOMATION_STATUSES };
export const AutomationStatus = StringEnum(AUTOMATION_STATUSES);

export const EventFilter = Type.Object(
  {
    jsonPath: Type.String({ minLength: 1, maxLength: 1000 }),
    operator: StringEnum(FILTER_OPERATORS),
    // null is accepted as "no value" (CONTRACT §6: ignored, and may be omitted, for exists and
    // not_exists); every other operator still needs a string.
    value: Type.Optional(Nullable(Type.String({ maxLength: 10000 }))),
  },
  { title: 'EventFilter', additionalProperties: false },
);

/**
 * One trigger of a create/update request. `kind` picks the variant: `schedule` (cron or one-off)
 * or `event`. The per-kind rules (exactly one of cron_expression/one_off_at, event_type
 * required, ...) are checked by the daemon with messages naming the field, because a JSON-Schema
 * union would only say "must match one schema".
 */
export const TriggerInput = Type.Object(
  {
    kind: StringEnum(['schedule', 'event']),
    id: Type.Optional(Uuid),
    enabled: Type.Optional(Type.Boolean()),
    // schedule
    cron_expression: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    one_off_at: Type.Optional(Nullable(Timestamp)),
    timezone: Type.Optional(Nullable(Type.String({ maxLength: 100 }))),
    // event
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    connection_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200 }))),
    filters: Type.Optional(Type.Array(EventFilter, { maxItems: 50 })),
  },
  { additionalProperties: false },
);

const automationFields = {
  name: Type.String({ minLength: 1, maxLength: AUTOMATION_LIMITS.nameChars }),
  prompt: Type.String({ minLength: 1, maxLength: AUTOMATION_LIMITS.promptChars }),
  triggers: Type.Array(TriggerInput, { minItems: 1, maxItems: AUTOMATION_LIMITS.triggers }),
  status: AutomationStatus,
  environment_id: Nullable(Uuid),
  repo_filters: JsonObject,
  // compatibility fields, used when `triggers` is omitted
  one_off_at: Timestamp,
  event_type: Type.String({ minLength: 1, maxLength: 200 }),
  event_provider: Type.String({ minLength: 1, maxLength: 100 }),
  event_filter: Type.Array(EventFilter, { maxItems: 50 }),
  connection_id: Nullable(Type.String({ minLength: 1, maxLength: 200 })),
  timezone: Type.String({ maxLength: 100 }),
};

export const CreateAutomationBody = Type.Object(
  {
    name: automationFields.name,
    prompt: automationFields.prompt,
    triggers: Type.Optional(automationFields.triggers),
    status: Type.Optional(automationFields.status),
    environment_id: Type.Optional(automationFields.environment_id),
    repo_filters: Type.Optional(automationFields.repo_filters),
    one_off_at: Type.Optional(automationFields.one_off_at),
    event_type: Type.Optional(automationFields.event_type),
    event_provider: Type.Optional(automationFields.event_provider),
    event_filter: Type.Optional(automationFields.event_filter),
    connection_id: Type.Optional(automationFields.connection_id),
    timezone: Type.Optional(automationFields.timezone),
  },
  { additionalProperties: false },
);

export const UpdateAutomationBody = Type.Partial(CreateAutomationBody, { additionalProperties: false });

export const Trigger = Type.Object({
  id: Uuid,
  kind: StringEnum(['schedule', 'event']),
  /** `completed`: a one-off that has fired; `disabled`: `enabled` is false */
  status: StringEnum(['active', 'completed', 'disabled']),
  enabled: Type.Boolean(),
  timezone: Nullable(Type.String()),
  total_runs: Type.Integer(),
  automation_id: Uuid,
  cron_expression: Nullable(Type.String()),
  one_off_at: Nullable(Timestamp),
  next_run_at: Nullable(Timestamp),
  last_run_at: Nullable(Timestamp),
  lease_until: Nullable(Timestamp),
  lease_owner: Nullable(Type.String()),
  provider: Nullable(Type.String()),
  event_type: Nullable(Type.String()),
  connection_id: Nullable(Type.String()),
  filters: Nullable(Type.Array(EventFilter)),
}, { title: 'Trigger' });

export const Automation = Type.Object({
  id: Uuid,
  team_id: Uuid,
  automation_type: StringEnum(['schedule', 'event']),
  status: AutomationStatus,
  name: Type.String(),
  prompt: Type.String(),
  timezone: Nullable(Type.String()),
  total_runs: Type.Integer(),
  repo_filters: JsonObject,
  created_at: Timestamp,
  updated_at: Timestamp,
  triggers: Type.Array(Trigger),
  automation_id: Uuid,
  environment_id: Nullable(Uuid),
  cron_expression: Nullable(Type.String()),
  one_off_at: Nullable(Timestamp),
  next_run_at: Nullable(Timestamp),
  last_run_at: Nullable(Timestamp),
  event_provider: Nullable(Type.String()),
  event_type: Nullable(Type.String()),
  event_type_id: Nullable(Uuid),
  event_filter: Nullable(Type.Array(EventFilter)),
  lease_until: Nullable(Timestamp),
  lease_owner: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
  last_error_at: Nullable(Timestamp),
}, { title: 'Automation' });

export const AutomationParams = Type.Object({ teamSlug: TeamSlug, automationId: Uuid });

export const ListAutomationsQuery = Type.Object(
  {
    status: Type.Optional(AutomationStatus),
    type: Type.Optional(StringEnum(['schedule', 'event'])),
    limit: Type.Optional(QueryLimit),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);

export type CreateAutomationInput = Type.Static<typeof CreateAutomationBody>;
export type UpdateAutomationInput = Type.Static<typeof UpdateAutomationBody>;
export type TriggerInputDto = Type.Static<typeof TriggerInput>;
export type AutomationDto = Type.Static<typeof Automation>;
export type TriggerDto = Type.Static<typeof Trigger>;
