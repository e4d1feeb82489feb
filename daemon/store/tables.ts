// The record types the store keeps, one table each, and the fields each table is indexed by.
// Rows are plain JSON: what is journaled is exactly what is kept.
import type { FilterOperator } from '../../shared/filter-operators.js';
import type { AUTOMATION_STATUSES } from '../../shared/schemas/automations.js';

export interface TeamRow {
  id: string;
  slug: string;
  name: string;
  execution_admitted: boolean;
  created_at: string;
  updated_at: string;
}

export type KeyKind = 'team' | 'project';

export interface ApiKeyRow {
  id: string;
  kind: KeyKind;
  team_id: string;
  project_id: string | null;
  name: string | null;
  prefix: string;
  /** sha256 of the whole key, hex; the key itself is never stored */
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface ProjectRow {
  id: string;
  team_id: string;
  name: string;
  description: string;
  availableTasks: string[];
  created_at: string;
  updated_at: string;
}

export interface EnvironmentRow {
  id: string;
  team_id: string;
  project_id: string | null;
  slug: string;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
}

export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

export interface AutomationRow {
  id: string;
  team_id: string;
  name: string;
  /** automationNameKey(name) (shared/automation-names.ts): names are unique per team, case-insensitively */
  name_key: string;
  prompt: string;
  status: AutomationStatus;
  environment_id: string | null;
  repo_filters: Record<string, unknown>;
  last_error: string | null;
  last_error_at: string | null;
  /** runs that failed in a row; 10 disables the automation */
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

export interface EventFilter {
  jsonPath: string;
  /** one of FILTER_OPERATORS: checked when the filter was saved */
  operator: FilterOperator;
  value?: string;
}

export type TriggerKind = 'schedule' | 'event';
export type TriggerStatus = 'active' | 'completed' | 'disabled';

export interface TriggerRow {
  id: string;
  automation_id: string;
  team_id: string;
  kind: TriggerKind;
  /** order inside the automation's trigger list */
  position: number;
  enabled: boolean;
  status: TriggerStatus;
  total_runs: number;
  created_at: string;
  updated_at: string;
  // schedule triggers
  timezone: string | null;
  cron_expression: string | null;
  one_off_at: string | null;
  next_run_at: string | null;
  last_run_at: string | null;
  lease_until: string | null;
  lease_owner: string | null;
  // event triggers
  provider: string | null;
  event_type: string | null;
  connection_id: string | null;
  filters: EventFilter[] | null;
  /** `${team_id}|${provider}|${event_type}` for event triggers, null otherwise: the dispatch index */
  match_key: string | null;
  /**
   * `${team_id}|*|${event_type in lower case}` for event triggers: finds the listeners of an
   * event type under other providers or in another letter case, so a dispatch reason can name
   * the mix-up without a team scan. Optional: rows written before it existed only miss that hint.
   */
  type_key?: string | null;
}

export interface EnvVarRow {
  id: string;
  team_id: string;
  environment_id: string;
  name: string;
  is_secret: boolean;
  /** AES-256-GCM sealed value (see daemon/secrets); never the plain value */
  sealed: string;
  created_at: string;
  updated_at: string;
}

export type SessionStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface SessionRow {
  session_id: string;
  team_id: string;
  kind: string;
  persona: string;
  status: SessionStatus;
  prompt: string;
  parent_session_id: string | null;
  automation_id: string | null;
  trigger_id: string | null;
  /**
   * unique: a key that started a session never starts another (CONTRACT §5, §6). Null on a
   * session an event started: its key, `event:{automation_id}:{event_id}`, is kept as those two
   * fields (see sessions/keys.ts).
   */
  idempotency_key: string | null;
  environment_id: string | null;
  /**
   * The `events` row (receipt) of the event that started the session: one stored copy of the
   * event serves all the sessions it started.
   */
  event_row_id: string | null;
  /**
   * The id of the event that started the session for its automation: unique together with
   * `automation_id`, so an event id starts at most one session per automation (CONTRACT §6).
   * Null or absent on sessions no event started, and on those whose receipt retention had
   * dropped before schema 10.
   */
  event_id?: string | null;
  /** schema 1 kept a copy of the event on each session; rows written since have event_row_id */
  event?: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
  last_error: string | null;
  /** the runner that took the latest turn: decides what a restart does with a running session */
  runner?: 'record' | 'exec' | 'webhook' | null;
  /**
   * The answer of a runner that answered the first turn at once (record), kept on the session
   * rather than as a message row: it is the session's second message (see sessions/view.ts). Rows
   * of other runners, and rows written before schema 6, hold their answers as message rows.
   */
  answer?: string | null;
  /**
   * The daemon (its instance id, an `instances` row) whose process holds the session's turns:
   * set when the session is stored queued and at each hand-over of a turn. While it is `queued` or
   * `running`, no other daemon touches it until that daemon's claim expires (sessions/recovery.ts).
   * Absent on rows written before schema 11, and null on sessions stored finished.
   */
  claimed_by?: string | null;
  /**
   * Turns handed (or being handed) to a runner whose outcome a daemon will still record: the
   * session completes when its last one is answered, whichever daemon answers it. Absent on rows
   * written before schema 11 (none then).
   */
  turns_in_flight?: number;
}

/** A live daemon: its claim on the sessions it holds lasts until `alive_until`, which it renews. */
export interface InstanceRow {
  /** the daemon's instance id (`/health` says it) */
  id: string;
  started_at: string;
  alive_until: string;
}

/**
 * A turn in flight on a daemon that does not hold the session's claim: a follow-up it handed over
 * while the claimant's own turns ran (sessions/follow-up.ts). Should that daemon die, a recovery
 * finds its turns here and drops them from the session's count (sessions/recovery.ts).
 */
export interface SessionTurnRow {
  id: string;
  session_id: string;
  /** the daemon running the turn */
  instance_id: string;
  started_at: string;
}

export interface MessageRow {
  id: string;
  session_id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  created_at: string;
}

export interface EventRow {
  id: string;
  /** the event id as sent (or generated); `id` is the row key, a random UUID per receipt */
  event_id: string;
  team_id: string;
  provider: string;
  event_type: string;
  connection_id: string | null;
  source: string | null;
  subject: string | null;
  time: string;
  metadata: Record<string, unknown>;
  data: Record<string, unknown>;
  received_at: string;
  accepted: boolean;
  /** the idempotency key of each is `event:{automationId}:{event_id}`, so it is not stored */
  dispatched: { automationId: string; triggerIds: string[] }[];
  reason: string;
  /**
   * The matching automations whose session could not be started, as `reason` names them: what a
   * correction of the receipt (see dispatch/recovered-refusals.ts) keeps. Absent on receipts
   * written before it existed.
   */
  failures?: { name: string; message: string }[];
  /**
   * How many times this receipt's event was replayed (`{event_id}:replay:{n}`, dispatch/replay.ts):
   * moved by an atomic increment, so replays on several daemons at once each get their own n.
   * Absent until the first replay.
   */
  replays?: number;
}

/**
 * A team's link to one account of a provider (CONTRACT §12). The secret that verifies its
 * deliveries is sealed like an env var value (connections/secrets.ts); never the plain secret.
 */
export interface ConnectionRow {
  id: string;
  team_id: string;
  /** one of CONNECTION_PROVIDERS */
  provider: string;
  name: string;
  /** automationNameKey(name): names are unique per team, case-insensitively, as automation names */
  name_key: string;
  /** the provider's account or installation id: unique together with `provider`, across teams */
  external_id: string | null;
  sealed_secret: string;
  /** the first characters of the current secret, to tell secrets apart */
  secret_prefix: string;
  /** the secret a `keep` rotation replaced, which verifies until `previous_valid_until` */
  previous_sealed_secret: string | null;
  previous_valid_until: string | null;
  created_at: string;
  updated_at: string;
  last_delivery_at: string | null;
}

export type DeliveryStatus = 'accepted' | 'duplicate' | 'rejected';

/** One delivery a provider made to a connection, whatever came of it: the troubleshooting log. */
export interface DeliveryRow {
  id: string;
  connection_id: string;
  team_id: string;
  received_at: string;
  /** the provider's id of the delivery (the event id it becomes), when it sent one */
  delivery_id: string | null;
  event_type: string | null;
  status: DeliveryStatus;
  reason: string;
  event_id: string | null;
}

export interface SkillScanRow {
  /** `${owner/name lower-cased}@${commit}` */
  id: string;
  repository: string;
  commit: string;
  skills: { path: string; name: string; description: string; sizeBytes: number }[];
  skipped: { path: string; reason: string }[];
  created_at: string;
}

export interface Tables {
  teams: TeamRow;
  api_keys: ApiKeyRow;
  projects: ProjectRow;
  environments: EnvironmentRow;
  automations: AutomationRow;
  triggers: TriggerRow;
  env_vars: EnvVarRow;
  sessions: SessionRow;
  messages: MessageRow;
  events: EventRow;
  skill_scans: SkillScanRow;
  instances: InstanceRow;
  session_turns: SessionTurnRow;
  connections: ConnectionRow;
  deliveries: DeliveryRow;
}

export type TableName = keyof Tables;

/**
 * How each table is keyed and which fields can be looked up without a scan. A `unique` field (a
 * subset of `indexes`) holds one row per value, and `uniqueTogether` fields one row per set of
 * values (an equality query on all of them is a lookup too): the store refuses a write that would
 * break either with UniqueViolation (store.ts), whatever the services checked before. Null values
 * are never equal, as in SQL.
 */
export const TABLE_SPECS: {
  [T in TableName]: {
    key: keyof Tables[T] & string;
    indexes: (keyof Tables[T] & string)[];
    unique?: (keyof Tables[T] & string)[];
    /** fields that are unique together: no two rows hold the same values in all of them */
    uniqueTogether?: readonly (readonly (keyof Tables[T] & string)[])[];
    /**
     * Rows keyed by an IdSeries's ids may be stored as one pack (packed-rows.ts): each member keeps
     * these fields of its own, and holds the first member's values in all the others.
     */
    packed?: (keyof Tables[T] & string)[];
  };
} = {
  teams: { key: 'id', indexes: ['slug'], unique: ['slug'] },
  api_keys: { key: 'id', indexes: ['hash', 'team_id', 'project_id'], unique: ['hash'] },
  projects: { key: 'id', indexes: ['team_id'] },
  environments: { key: 'id', indexes: ['team_id', 'project_id'], uniqueTogether: [['team_id', 'slug']] },
  automations: { key: 'id', indexes: ['team_id'], uniqueTogether: [['team_id', 'name_key']] },
  triggers: { key: 'id', indexes: ['automation_id', 'team_id', 'match_key', 'type_key', 'kind'] },
  env_vars: { key: 'id', indexes: ['team_id', 'environment_id'], uniqueTogether: [['environment_id', 'name']] },
  sessions: {
    key: 'session_id',
    // status: a start finds the sessions a stopped daemon left queued or running without a scan;
    // claimed_by: a recovery finds those of a daemon that died (sessions/recovery.ts)
    indexes: ['team_id', 'automation_id', 'idempotency_key', 'event_row_id', 'status', 'claimed_by'],
    unique: ['idempotency_key'],
    uniqueTogether: [['automation_id', 'event_id']],
    // the sessions a batch of events starts differ in these; status, times and answer they share
    packed: ['automation_id', 'trigger_id', 'prompt', 'environment_id', 'event_row_id', 'event_id'],
  },
  messages: { key: 'id', indexes: ['session_id'] },
  events: {
    key: 'id',
    indexes: ['team_id', 'event_id'],
    // the receipts of a batch differ in these; their team, type, source and result they mostly share
    packed: ['event_id', 'time', 'metadata', 'data', 'received_at'],
  },
  skill_scans: { key: 'id', indexes: [] },
  instances: { key: 'id', indexes: [] },
  // instance_id: a recovery finds a dead daemon's turns; session_id: the turns of a session it takes up
  session_turns: { key: 'id', indexes: ['instance_id', 'session_id'] },
  // (provider, external_id): two teams cannot claim one GitHub installation, and the service-managed
  // route finds a delivery's connection by it (a lookup: an equality on both fields)
  connections: { key: 'id', indexes: ['team_id'], uniqueTogether: [['team_id', 'name_key'], ['provider', 'external_id']] },
  // connection_id: a connection's deliveries, newest first; delivery_id: whether a delivery id was seen before
  deliveries: { key: 'id', indexes: ['connection_id', 'delivery_id'] },
};

export const TABLE_NAMES = Object.keys(TABLE_SPECS) as TableName[];

/** `keys` when it names every field of T (and nothing else); otherwise a type error naming what is missing. */
const allFields =
  <T>() =>
  <const K extends readonly (keyof T & string)[]>(keys: K & ([Exclude<keyof T, K[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, K[number]> })): readonly (keyof T & string)[] =>
    keys;

/**
 * Every field of each table's rows, checked against the row types: the members of a pack share
 * all of them but the key and their own (see packed-rows.ts).
 */
export const TABLE_FIELDS: { [T in TableName]: readonly (keyof Tables[T] & string)[] } = {
  teams: allFields<TeamRow>()(['id', 'slug', 'name', 'execution_admitted', 'created_at', 'updated_at']),
  api_keys: allFields<ApiKeyRow>()(['id', 'kind', 'team_id', 'project_id', 'name', 'prefix', 'hash', 'created_at', 'last_used_at', 'revoked_at']),
  projects: allFields<ProjectRow>()(['id', 'team_id', 'name', 'description', 'availableTasks', 'created_at', 'updated_at']),
  environments: allFields<EnvironmentRow>()(['id', 'team_id', 'project_id', 'slug', 'name', 'description', 'created_at', 'updated_at']),
  automations: allFields<AutomationRow>()([
    'id', 'team_id', 'name', 'name_key', 'prompt', 'status', 'environment_id', 'repo_filters', 'last_error', 'last_error_at',
    'consecutive_failures', 'created_at', 'updated_at',
  ]),
  triggers: allFields<TriggerRow>()([
    'id', 'automation_id', 'team_id', 'kind', 'position', 'enabled', 'status', 'total_runs', 'created_at', 'updated_at',
    'timezone', 'cron_expression', 'one_off_at', 'next_run_at', 'last_run_at', 'lease_until', 'lease_owner',
    'provider', 'event_type', 'connection_id', 'filters', 'match_key', 'type_key',
  ]),
  env_vars: allFields<EnvVarRow>()(['id', 'team_id', 'environment_id', 'name', 'is_secret', 'sealed', 'created_at', 'updated_at']),
  sessions: allFields<SessionRow>()([
    'session_id', 'team_id', 'kind', 'persona', 'status', 'prompt', 'parent_session_id', 'automation_id', 'trigger_id',
    'idempotency_key', 'environment_id', 'event_row_id', 'event_id', 'event', 'created_at', 'updated_at', 'started_at', 'completed_at',
    'last_error', 'runner', 'answer', 'claimed_by', 'turns_in_flight',
  ]),
  messages: allFields<MessageRow>()(['id', 'session_id', 'role', 'content', 'created_at']),
  events: allFields<EventRow>()([
    'id', 'event_id', 'team_id', 'provider', 'event_type', 'connection_id', 'source', 'subject', 'time', 'metadata', 'data',
    'received_at', 'accepted', 'dispatched', 'reason', 'failures', 'replays',
  ]),
  skill_scans: allFields<SkillScanRow>()(['id', 'repository', 'commit', 'skills', 'skipped', 'created_at']),
  instances: allFields<InstanceRow>()(['id', 'started_at', 'alive_until']),
  session_turns: allFields<SessionTurnRow>()(['id', 'session_id', 'instance_id', 'started_at']),
  connections: allFields<ConnectionRow>()([
    'id', 'team_id', 'provider', 'name', 'name_key', 'external_id', 'sealed_secret', 'secret_prefix', 'previous_sealed_secret',
    'previous_valid_until', 'created_at', 'updated_at', 'last_delivery_at',
  ]),
  deliveries: allFields<DeliveryRow>()(['id', 'connection_id', 'team_id', 'received_at', 'delivery_id', 'event_type', 'status', 'reason', 'event_id']),
};
