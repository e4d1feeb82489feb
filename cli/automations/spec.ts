// An automation as a file or the flags describe it (an "AutomationSpec"): only the fields given,
// with every trigger reduced to its content (what it listens to, not its server id or counters).
// Files are checked here as far as the CLI can (shape, cron, zone, one-off time, filters), so a
// mistake is refused (exit 5, as the daemon's 400 would be) naming the field before any request is sent.
//
// Files take the API's create body (name, prompt, triggers, status, environment_id,
// repo_filters, or the compatibility fields instead of triggers), plus `cron_expression` at the
// top level as a shorthand for one schedule trigger. What `svc automations get --json` prints is
// accepted as is: read-only fields (id, counters, next_run_at, ...) are ignored, and the fields
// it mirrors from the first triggers must agree with those triggers.
import { parseOneOffAt, validateCronExpression } from '../../shared/cron.js';
import type { EventFilter, FilterOperator } from '../../shared/filters.js';
import { AUTOMATION_LIMITS } from '../../shared/automation-limits.js';
import type { AutomationDto, TriggerDto, TriggerInputDto } from '../../shared/schemas/automations.js';
import { AUTOMATION_STATUSES } from '../../shared/api-values.js';
import { DEFAULT_PROVIDER } from '../../shared/api-values.js';
import { InvalidInputError, UsageError } from '../errors.js';
import { parseFilterText } from './filter-arg.js';
import { checkFilter } from './filter-check.js';
import { timeZoneProblem } from './schedule.js';

export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

export interface ScheduleContent {
  kind: 'schedule';
  cron_expression: string | null;
  /** ISO 8601 UTC, as the daemon stores it */
  one_off_at: string | null;
  timezone: string;
  enabled: boolean;
}

export interface EventContent {
  kind: 'event';
  provider: string;
  event_type: string;
  connection_id: string | null;
  filters: EventFilter[];
  enabled: boolean;
}

export type TriggerContent = ScheduleContent | EventContent;

export interface AutomationSpec {
  name?: string;
  prompt?: string;
  status?: AutomationStatus;
  environment_id?: string | null;
  repo_filters?: Record<string, unknown>;
  triggers?: TriggerContent[];
}

/** Collects every problem of an input, so one run reports them all. */
export class Problems {
  readonly list: string[] = [];
  /** set when a problem is with how the command was called, not with a value */
  private usage = false;
  add(message: string): void {
    this.list.push(message);
  }
  /** a flag without the one it goes with: a usage error (exit 2) rather than an invalid value (5) */
  addUsage(message: string): void {
    this.usage = true;
    this.list.push(message);
  }
  get empty(): boolean {
    return this.list.length === 0;
  }
  /**
   * Throws them, under `heading` when there are several: an InvalidInputError, or a UsageError
   * when one of them is about how the command was called.
   */
  throwIfAny(heading: string): void {
    if (this.empty) return;
    const Failure = this.usage ? UsageError : InvalidInputError;
    if (this.list.length === 1) throw new Failure(this.list[0]);
    const shown = this.list.slice(0, 20).map((p) => `  - ${p}`);
    if (this.list.length > 20) shown.push(`  - … and ${this.list.length - 20} more`);
    throw new Failure(`${heading}:\n${shown.join('\n')}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`);

// --- triggers --------------------------------------------------------------------------------

const TRIGGER_COMMON = ['kind', 'enabled'] as const;
const SCHEDULE_KEYS = ['cron_expression', 'one_off_at', 'timezone'] as const;
const EVENT_KEYS = ['provider', 'event_type', 'connection_id', 'filters'] as const;
/** what a trigger read from the API carries besides its input fields */
const TRIGGER_READ_ONLY = new Set(['id', 'status', 'total_runs', 'automation_id', 'next_run_at', 'last_run_at', 'lease_until', 'lease_owner']);

/** The content of a trigger the daemon returned. */
export function triggerContentOf(t: TriggerDto): TriggerContent {
  if (t.kind === 'event') {
    return {
      kind: 'event',
      provider: t.provider ?? DEFAULT_PROVIDER,
      event_type: t.event_type ?? '',
      connection_id: t.connection_id ?? null,
      filters: (t.filters ?? []).map(cleanFilter),
      enabled: t.enabled,
    };
  }
  return { kind: 'schedule', cron_expression: t.cron_expression, one_off_at: t.one_off_at, timezone: t.timezone ?? 'UTC', enabled: t.enabled };
}

/** A filter as the API takes it: `value` only when there is one. */
type FilterInput = { jsonPath: string; operator: FilterOperator; value?: string };

/** `f` was checked by checkFilter when it was read, so its operator is one of the API's. */
function cleanFilter(f: EventFilter): FilterInput {
  const operator = f.operator as FilterOperator;
  return f.value === undefined || f.value === null ? { jsonPath: f.jsonPath, operator } : { jsonPath: f.jsonPath, operator, value: f.value };
}

/** Equal keys mean equal triggers, whatever their ids and counters. */
export function triggerKey(c: TriggerContent): string {
  if (c.kind === 'schedule') return JSON.stringify(['schedule', c.cron_expression, c.one_off_at, c.timezone, c.enabled]);
  return JSON.stringify(['event', c.provider, c.event_type, c.connection_id, c.filters.map((f) => [f.jsonPath, f.operator, f.value ?? null]), c.enabled]);
}

/** The trigger as a create/update request sends it. */
export function triggerInput(c: TriggerContent, id?: string): TriggerInputDto {
  const base: TriggerInputDto = id ? { kind: c.kind, id } : { kind: c.kind };
  if (c.kind === 'schedule') {
    return {
      ...base,
      ...(c.cron_expression !== null ? { cron_expression: c.cron_expression } : { one_off_at: c.one_off_at }),
      timezone: c.timezone,
      enabled: c.enabled,
    };
  }
  return {
    ...base,
    provider: c.provider,
    event_type: c.event_type,
    // An update leaves out nothing: what a listed trigger omits keeps its stored value.
    ...(c.connection_id !== null || id ? { connection_id: c.connection_id } : {}),
    filters: c.filters.map(cleanFilter),
    enabled: c.enabled,
  };
}

/**
 * The request triggers for `desired`, given the automation's current ones: a desired trigger takes
 * the id of a current trigger with the same content, else of a current trigger of the same kind
 * that nothing else took (so an edited trigger keeps its counters), else none (a new trigger).
 */
export function assignTriggerIds(desired: readonly TriggerContent[], current: readonly TriggerDto[]): TriggerInputDto[] {
  const free = current.map((t) => ({ id: t.id, kind: t.kind, key: triggerKey(triggerContentOf(t)), used: false }));
  const ids: (string | undefined)[] = desired.map((c) => {
    const same = free.find((f) => !f.used && f.key === triggerKey(c));
    if (!same) return undefined;
    same.used = true;
    return same.id;
  });
  desired.forEach((c, i) => {
    if (ids[i]) return;
    const sameKind = free.find((f) => !f.used && f.kind === c.kind);
    if (!sameKind) return;
    sameKind.used = true;
    ids[i] = sameKind.id;
  });
  return desired.map((c, i) => triggerInput(c, ids[i]));
}

export interface ScheduleFields {
  cron?: string | null;
  at?: string | null;
  timezone?: string | null;
  enabled?: boolean;
}

/**
 * Checks a schedule's fields the way the daemon will. `where` prefixes each problem
 * ('triggers[0].' for files); `names` says how the fields are called there (flags or keys).
 */
export function scheduleContent(
  f: ScheduleFields,
  problems: Problems,
  names: { cron: string; at: string; timezone: string },
  where = '',
): ScheduleContent | undefined {
  const cron = f.cron ?? null;
  const at = f.at ?? null;
  const timezone = f.timezone ?? 'UTC';
  let ok = true;
  if ((cron === null) === (at === null)) {
    problems.add(`${where}needs exactly one of ${names.cron} or ${names.at}`);
    return undefined;
  }
  const zone = timeZoneProblem(timezone, `${where}${names.timezone}`);
  if (zone) {
    problems.add(zone);
    ok = false;
  }
  if (cron !== null) {
    const problem = typeof cron === 'string' ? validateCronExpression(cron) : 'cron_expression must be a string';
    if (problem) {
      problems.add(`${where}${names.cron} ${JSON.stringify(cron)}: ${problem.replace(/^cron_expression /, '')}`);
      ok = false;
    }
  }
  let oneOff: string | null = null;
  if (at !== null) {
    const when = typeof at === 'string' && ok ? parseOneOffAt(at, timezone) : null;
    if (typeof at !== 'string') {
      problems.add(`${where}${names.at} must be a string (an ISO 8601 time), got ${describe(at)}`);
      ok = false;
    } else if (when === null) {
      if (ok) {
        problems.add(
          `${where}${names.at} ${JSON.stringify(at)} is not a time: expected ISO 8601 such as 2030-07-01T09:00:00Z, or 2030-07-01T09:00 read in ${names.timezone}`,
        );
      }
      ok = false;
    } else {
      oneOff = when.toISOString();
    }
  }
  if (!ok) return undefined;
  return { kind: 'schedule', cron_expression: cron, one_off_at: oneOff, timezone, enabled: f.enabled ?? true };
}

/** One filter of a file (an object or the text form) or of --filter; problems name it by `at`. */
export function filterFromValue(value: unknown, at: string, problems: Problems): EventFilter | undefined {
  if (typeof value === 'string') {
    const parsed = parseFilterText(value);
    if (typeof parsed === 'string') {
      problems.add(`${at} ${JSON.stringify(value)}: ${parsed}`);
      return undefined;
    }
    return parsed;
  }
  if (!isObject(value)) {
    problems.add(`${at} must be {jsonPath, operator, value} or a 'JSONPATH OPERATOR VALUE' string, got ${describe(value)}`);
    return undefined;
  }
  const unknown = Object.keys(value).filter((k) => !['jsonPath', 'operator', 'value'].includes(k));
  if (unknown.length) {
    problems.add(`${at} has unknown field(s) ${unknown.join(', ')} (a filter has jsonPath, operator and value)`);
    return undefined;
  }
  let v = value.value;
  // YAML reads `value: 42` as a number; the daemon compares text, so take it as its JSON text.
  if (typeof v === 'number' || typeof v === 'boolean') v = String(v);
  const filter: EventFilter = { jsonPath: value.jsonPath as string, operator: value.operator as string };
  if (v !== undefined && v !== null) {
    if (typeof v !== 'string') {
      problems.add(`${at}.value must be a string, got ${describe(v)}`);
      return undefined;
    }
    filter.value = v;
  }
  const problem = checkFilter(filter);
  if (problem) {
    problems.add(`${at}: ${problem}`);
    return undefined;
  }
  return filter;
}

export interface EventFields {
  event_type?: unknown;
  provider?: unknown;
  connection_id?: unknown;
  filters?: unknown;
  enabled?: boolean;
}

export function eventContent(f: EventFields, problems: Problems, names: { event_type: string; provider: string; connection_id: string; filters: string }, where = ''): EventContent | undefined {
  const before = problems.list.length;
  if (typeof f.event_type !== 'string' || f.event_type.trim() === '') {
    problems.add(`${where}${names.event_type} is required for an event trigger${f.event_type === undefined ? '' : `, got ${describe(f.event_type)}`}`);
  }
  const provider = f.provider ?? DEFAULT_PROVIDER;
  if (typeof provider !== 'string' || provider.trim() === '') problems.add(`${where}${names.provider} must be a non-empty string, got ${describe(provider)}`);
  const connection = f.connection_id ?? null;
  if (connection !== null && (typeof connection !== 'string' || connection === '')) {
    problems.add(`${where}${names.connection_id} must be a non-empty string or null, got ${describe(connection)}`);
  }
  const filters: EventFilter[] = [];
  if (f.filters !== undefined && f.filters !== null) {
    if (!Array.isArray(f.filters)) problems.add(`${where}${names.filters} must be a list, got ${describe(f.filters)}`);
    else {
      f.filters.forEach((value, i) => {
        // A flag is named as typed; a file's list by index.
        const at = names.filters.startsWith('--') ? names.filters : `${where}${names.filters}[${i}]`;
        const filter = filterFromValue(value, at, problems);
        if (filter) filters.push(filter);
      });
    }
  }
  if (problems.list.length > before) return undefined;
  return {
    kind: 'event',
    provider: provider as string,
    event_type: f.event_type as string,
    connection_id: connection as string | null,
    filters,
    enabled: f.enabled ?? true,
  };
}

function triggerFromDocument(value: unknown, at: string, problems: Problems): TriggerContent | undefined {
  if (!isObject(value)) {
    problems.add(`${at} must be an object with kind "schedule" or "event", got ${describe(value)}`);
    return undefined;
  }
  const kind = value.kind;
  if (kind !== 'schedule' && kind !== 'event') {
    problems.add(`${at}.kind must be "schedule" or "event"${kind === undefined ? '' : `, got ${describe(kind)}`}`);
    return undefined;
  }
  const own: readonly string[] = kind === 'schedule' ? SCHEDULE_KEYS : EVENT_KEYS;
  const other: readonly string[] = kind === 'schedule' ? EVENT_KEYS : SCHEDULE_KEYS;
  for (const key of Object.keys(value)) {
    if ((TRIGGER_COMMON as readonly string[]).includes(key) || own.includes(key) || TRIGGER_READ_ONLY.has(key)) continue;
    // A trigger printed by the API carries the other kind's fields as null.
    if (other.includes(key)) {
      if (value[key] !== null) problems.add(`${at}.${key} does not apply to a ${kind} trigger`);
      continue;
    }
    problems.add(`${at} has an unknown field "${key}"`);
  }
  if (value.enabled !== undefined && typeof value.enabled !== 'boolean') problems.add(`${at}.enabled must be true or false, got ${describe(value.enabled)}`);
  const enabled = typeof value.enabled === 'boolean' ? value.enabled : true;
  if (kind === 'schedule') {
    return scheduleContent(
      { cron: value.cron_expression as string | null, at: value.one_off_at as string | null, timezone: value.timezone as string | null, enabled },
      problems,
      { cron: 'cron_expression', at: 'one_off_at', timezone: 'timezone' },
      `${at}.`,
    );
  }
  return eventContent({ ...value, enabled }, problems, { event_type: 'event_type', provider: 'provider', connection_id: 'connection_id', filters: 'filters' }, `${at}.`);
}

// --- automations -----------------------------------------------------------------------------

const AUTOMATION_KEYS = new Set(['name', 'prompt', 'status', 'environment_id', 'repo_filters', 'triggers']);
const COMPAT_KEYS = ['one_off_at', 'event_type', 'event_provider', 'event_filter', 'connection_id', 'timezone', 'cron_expression'] as const;
/** what an automation read from the API (or from `get --next N --json`) carries besides its input fields */
const AUTOMATION_READ_ONLY = new Set([
  'id',
  'next_runs',
  'automation_id',
  'team_id',
  'automation_type',
  'total_runs',
  'created_at',
  'updated_at',
  'next_run_at',
  'last_run_at',
  'lease_until',
  'lease_owner',
  'last_error',
  'last_error_at',
  'event_type_id',
]);

/** The single-trigger fields of the API, as the first schedule and first event trigger show them. */
function mirrorOf(triggers: readonly TriggerContent[]): Record<(typeof COMPAT_KEYS)[number], unknown> {
  const schedule = triggers.find((t): t is ScheduleContent => t.kind === 'schedule');
  const event = triggers.find((t): t is EventContent => t.kind === 'event');
  return {
    timezone: schedule?.timezone ?? null,
    cron_expression: schedule?.cron_expression ?? null,
    one_off_at: schedule?.one_off_at ?? null,
    event_provider: event?.provider ?? null,
    event_type: event?.event_type ?? null,
    event_filter: event ? event.filters : null,
    connection_id: null,
  };
}

function sameMirrorValue(key: (typeof COMPAT_KEYS)[number], given: unknown, derived: unknown): boolean {
  if (key === 'one_off_at' && typeof given === 'string' && typeof derived === 'string') return Date.parse(given) === Date.parse(derived);
  if (key === 'event_filter' && Array.isArray(given) && Array.isArray(derived)) {
    const norm = (fs: unknown[]) => JSON.stringify(fs.map((f) => (isObject(f) ? [f.jsonPath, f.operator, f.value ?? null] : f)));
    return norm(given) === norm(derived);
  }
  return given === derived;
}

/** Characters as the schema's maxLength counts them: code points, so an emoji is one. */
const charCount = (text: string) => [...text].length;
const tooLong = (text: string, max: number) => text.length > max && charCount(text) > max;

/**
 * One automation of a file. `label` prefixes every problem (the file and which entry).
 * Problems are added to `problems`; the spec is returned whatever they are.
 */
export function specFromDocument(value: unknown, label: string, problems: Problems): AutomationSpec {
  const spec: AutomationSpec = {};
  if (!isObject(value)) {
    problems.add(`${label}: expected an automation (an object with name, prompt and triggers), got ${describe(value)}`);
    return spec;
  }
  const at = (field: string) => `${label}: ${field}`;
  for (const key of Object.keys(value)) {
    if (AUTOMATION_KEYS.has(key) || AUTOMATION_READ_ONLY.has(key) || (COMPAT_KEYS as readonly string[]).includes(key)) continue;
    problems.add(`${label}: unknown field "${key}" (an automation has name, prompt, triggers, status, environment_id, repo_filters)`);
  }
  if (value.name !== undefined) {
    if (typeof value.name !== 'string' || value.name.trim() === '') problems.add(`${at('name')} must be a non-empty string, got ${describe(value.name)}`);
    else if (tooLong(value.name, AUTOMATION_LIMITS.nameChars)) problems.add(`${at('name')} has ${charCount(value.name)} characters; at most ${AUTOMATION_LIMITS.nameChars}`);
    else spec.name = value.name;
  }
  if (value.prompt !== undefined) {
    if (typeof value.prompt !== 'string' || value.prompt.trim() === '') problems.add(`${at('prompt')} must be a non-empty string, got ${describe(value.prompt)}`);
    else if (tooLong(value.prompt, AUTOMATION_LIMITS.promptChars)) problems.add(`${at('prompt')} has ${charCount(value.prompt)} characters; at most ${AUTOMATION_LIMITS.promptChars}`);
    else spec.prompt = value.prompt;
  }
  if (value.status !== undefined) {
    if (!(AUTOMATION_STATUSES as readonly unknown[]).includes(value.status)) problems.add(`${at('status')} must be one of ${AUTOMATION_STATUSES.join(', ')}, got ${describe(value.status)}`);
    else spec.status = value.status as AutomationStatus;
  }
  if (value.environment_id !== undefined) {
    if (value.environment_id !== null && (typeof value.environment_id !== 'string' || value.environment_id === '')) {
      problems.add(`${at('environment_id')} must be an environment id or null (the team's default), got ${describe(value.environment_id)}`);
    } else spec.environment_id = value.environment_id as string | null;
  }
  if (value.repo_filters !== undefined) {
    if (!isObject(value.repo_filters)) problems.add(`${at('repo_filters')} must be an object, got ${describe(value.repo_filters)}`);
    else spec.repo_filters = value.repo_filters;
  }

  const compat = Object.fromEntries(COMPAT_KEYS.filter((k) => value[k] !== undefined && value[k] !== null).map((k) => [k, value[k]])) as Partial<
    Record<(typeof COMPAT_KEYS)[number], unknown>
  >;
  if (value.triggers !== undefined) {
    if (!Array.isArray(value.triggers) || value.triggers.length === 0) {
      problems.add(`${at('triggers')} must be a non-empty list, got ${describe(value.triggers)}`);
      return spec;
    }
    if (value.triggers.length > AUTOMATION_LIMITS.triggers) {
      problems.add(`${at('triggers')} has ${value.triggers.length} triggers; at most ${AUTOMATION_LIMITS.triggers}`);
      return spec;
    }
    const before = problems.list.length;
    const triggers = value.triggers.map((t, i) => triggerFromDocument(t, `${label}: triggers[${i}]`, problems));
    if (problems.list.length > before) return spec;
    spec.triggers = triggers as TriggerContent[];
    const derived = mirrorOf(spec.triggers);
    for (const [key, given] of Object.entries(compat) as [(typeof COMPAT_KEYS)[number], unknown][]) {
      if (!sameMirrorValue(key, given, derived[key])) {
        problems.add(`${at(key)} cannot be combined with triggers (unless it repeats what the first trigger says); put it inside a trigger`);
      }
    }
    return spec;
  }
  const trigger = triggerFromCompat(compat, label, problems);
  if (trigger) spec.triggers = [trigger];
  return spec;
}

/** The one trigger the compatibility fields describe, as the daemon reads them. */
function triggerFromCompat(c: Partial<Record<(typeof COMPAT_KEYS)[number], unknown>>, label: string, problems: Problems): TriggerContent | undefined {
  if (Object.keys(c).length === 0) return undefined;
  if (c.event_type !== undefined) {
    for (const key of ['one_off_at', 'cron_expression', 'timezone'] as const) {
      if (c[key] !== undefined) {
        problems.add(`${label}: ${key} does not go with event_type; use triggers for a schedule and an event trigger`);
        return undefined;
      }
    }
    return eventContent(
      { event_type: c.event_type, provider: c.event_provider, connection_id: c.connection_id, filters: c.event_filter },
      problems,
      { event_type: 'event_type', provider: 'event_provider', connection_id: 'connection_id', filters: 'event_filter' },
      `${label}: `,
    );
  }
  if (c.one_off_at !== undefined || c.cron_expression !== undefined) {
    for (const key of ['event_provider', 'event_filter', 'connection_id'] as const) {
      if (c[key] !== undefined) {
        problems.add(`${label}: ${key} needs event_type`);
        return undefined;
      }
    }
    return scheduleContent(
      { cron: c.cron_expression as string | undefined, at: c.one_off_at as string | undefined, timezone: c.timezone as string | undefined },
      problems,
      { cron: 'cron_expression', at: 'one_off_at', timezone: 'timezone' },
      `${label}: `,
    );
  }
  const first = Object.keys(c)[0];
  problems.add(`${label}: ${first} needs event_type (an event automation) or cron_expression / one_off_at (a schedule)`);
  return undefined;
}

/**
 * The automations a file holds: one object, a list, `{automations: [...]}`, or several YAML
 * documents of any of these.
 */
export function entriesOfDocuments(documents: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const doc of documents) {
    if (Array.isArray(doc)) out.push(...doc);
    else if (isObject(doc) && Array.isArray(doc.automations) && doc.name === undefined) out.push(...doc.automations);
    else out.push(doc);
  }
  return out;
}

/** The request body for the fields a spec sets; `triggers` as given (ids already assigned). */
export function requestBody(spec: AutomationSpec, triggers?: TriggerInputDto[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (spec.name !== undefined) body.name = spec.name;
  if (spec.prompt !== undefined) body.prompt = spec.prompt;
  if (spec.status !== undefined) body.status = spec.status;
  if (spec.environment_id !== undefined) body.environment_id = spec.environment_id;
  if (spec.repo_filters !== undefined) body.repo_filters = spec.repo_filters;
  const t = triggers ?? spec.triggers?.map((c) => triggerInput(c));
  if (t !== undefined) body.triggers = t;
  return body;
}

/** JSON text with object keys sorted, for comparing values whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The fields the spec sets that differ from the automation (in spec order: name, prompt, status,
 * environment_id, repo_filters, triggers). A null environment_id means the team's default
 * environment, whose id the caller supplies when it knows it.
 */
export function changedFields(spec: AutomationSpec, current: AutomationDto, defaultEnvironmentId?: string | null): (keyof AutomationSpec)[] {
  const changed: (keyof AutomationSpec)[] = [];
  if (spec.name !== undefined && spec.name !== current.name) changed.push('name');
  if (spec.prompt !== undefined && spec.prompt !== current.prompt) changed.push('prompt');
  if (spec.status !== undefined && spec.status !== current.status) changed.push('status');
  if (spec.environment_id !== undefined) {
    const wanted = spec.environment_id ?? defaultEnvironmentId ?? null;
    if (wanted !== current.environment_id) changed.push('environment_id');
  }
  if (spec.repo_filters !== undefined && canonicalJson(spec.repo_filters) !== canonicalJson(current.repo_filters ?? {})) changed.push('repo_filters');
  if (spec.triggers !== undefined) {
    const want = spec.triggers.map(triggerKey);
    const have = current.triggers.map((t) => triggerKey(triggerContentOf(t)));
    if (want.length !== have.length || want.some((k, i) => k !== have[i])) changed.push('triggers');
  }
  return changed;
}

