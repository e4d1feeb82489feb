// Schema 1: every table of the store, with real types, its key, its unique constraints and an
// index for each lookup the services make. `ord` keeps insertion order (lists are in that order,
// as in the JSON-file store); indexes end in it so a filtered list is read in order from its index.
// JSON values are `json`, kept as sent (an event's payload keeps its key order, as in the JSON-file
// store): svc never queries inside them, so jsonb's indexing would buy nothing and its reordering
// would show. Unique constraints are named `<table>__<field>[__<field>]__key`: a violation names its fields.
export const sql = `
CREATE TABLE svc_meta (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE teams (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  slug text NOT NULL CONSTRAINT teams__slug__key UNIQUE,
  name text NOT NULL,
  execution_admitted boolean NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX teams__ord ON teams (ord);

CREATE TABLE api_keys (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  kind text NOT NULL,
  team_id uuid NOT NULL,
  project_id uuid,
  name text,
  prefix text NOT NULL,
  hash text NOT NULL CONSTRAINT api_keys__hash__key UNIQUE,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys__team_id ON api_keys (team_id, ord);
CREATE INDEX api_keys__project_id ON api_keys (project_id, ord);

CREATE TABLE projects (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL,
  name text NOT NULL,
  description text NOT NULL,
  "availableTasks" json NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX projects__team_id ON projects (team_id, ord);

CREATE TABLE environments (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL,
  project_id uuid,
  slug text NOT NULL,
  name text NOT NULL,
  description text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT environments__team_id__slug__key UNIQUE (team_id, slug)
);
CREATE INDEX environments__team_id ON environments (team_id, ord);
CREATE INDEX environments__project_id ON environments (project_id, ord);

CREATE TABLE automations (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL,
  name text NOT NULL,
  name_key text NOT NULL,
  prompt text NOT NULL,
  status text NOT NULL,
  environment_id uuid,
  repo_filters json NOT NULL,
  last_error text,
  last_error_at timestamptz,
  consecutive_failures integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT automations__team_id__name_key__key UNIQUE (team_id, name_key)
);
CREATE INDEX automations__team_id ON automations (team_id, ord);

CREATE TABLE triggers (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  automation_id uuid NOT NULL,
  team_id uuid NOT NULL,
  kind text NOT NULL,
  position integer NOT NULL,
  enabled boolean NOT NULL,
  status text NOT NULL,
  total_runs bigint NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  timezone text,
  cron_expression text,
  one_off_at timestamptz,
  next_run_at timestamptz,
  last_run_at timestamptz,
  lease_until timestamptz,
  lease_owner text,
  provider text,
  event_type text,
  connection_id text,
  filters json,
  match_key text,
  type_key text
);
CREATE INDEX triggers__ord ON triggers (ord);
CREATE INDEX triggers__automation_id ON triggers (automation_id, ord);
CREATE INDEX triggers__team_id ON triggers (team_id, ord);
CREATE INDEX triggers__kind ON triggers (kind, ord);
CREATE INDEX triggers__match_key ON triggers (match_key, ord) WHERE match_key IS NOT NULL;
CREATE INDEX triggers__type_key ON triggers (type_key, ord) WHERE type_key IS NOT NULL;
CREATE INDEX triggers__next_run_at ON triggers (next_run_at) WHERE next_run_at IS NOT NULL;

CREATE TABLE env_vars (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  team_id uuid NOT NULL,
  environment_id uuid NOT NULL,
  name text NOT NULL,
  is_secret boolean NOT NULL,
  sealed text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT env_vars__environment_id__name__key UNIQUE (environment_id, name)
);
CREATE INDEX env_vars__ord ON env_vars (ord);
CREATE INDEX env_vars__team_id ON env_vars (team_id, ord);
CREATE INDEX env_vars__environment_id ON env_vars (environment_id, ord);

CREATE TABLE sessions (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  session_id uuid PRIMARY KEY,
  team_id uuid NOT NULL,
  kind text NOT NULL,
  persona text NOT NULL,
  status text NOT NULL,
  prompt text NOT NULL,
  parent_session_id uuid,
  automation_id uuid,
  trigger_id uuid,
  idempotency_key text,
  environment_id uuid,
  event_row_id uuid,
  event_id text,
  event json,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  started_at timestamptz,
  completed_at timestamptz,
  last_error text,
  runner text,
  answer text
);
-- Unique among the sessions that have one (a slot's key; an event's automation and event id),
-- so the others, most sessions, add no entry. No index on ord alone: nothing lists every session.
CREATE UNIQUE INDEX sessions__idempotency_key__key ON sessions (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE UNIQUE INDEX sessions__automation_id__event_id__key ON sessions (automation_id, event_id) WHERE event_id IS NOT NULL;
CREATE INDEX sessions__team_id ON sessions (team_id, ord);
CREATE INDEX sessions__automation_id ON sessions (automation_id, ord) WHERE automation_id IS NOT NULL;
CREATE INDEX sessions__event_row_id ON sessions (event_row_id, ord) WHERE event_row_id IS NOT NULL;
CREATE INDEX sessions__status ON sessions (status, ord) WHERE status IN ('queued', 'running');
CREATE INDEX sessions__retention ON sessions (coalesce(completed_at, updated_at)) WHERE status IN ('completed', 'failed', 'cancelled');

CREATE TABLE messages (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  session_id uuid NOT NULL,
  role text NOT NULL,
  content text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX messages__session_id ON messages (session_id, ord);

CREATE TABLE events (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id uuid PRIMARY KEY,
  event_id text NOT NULL,
  team_id uuid NOT NULL,
  provider text NOT NULL,
  event_type text NOT NULL,
  connection_id text,
  source text,
  subject text,
  time text NOT NULL,
  metadata json NOT NULL,
  data json NOT NULL,
  received_at timestamptz NOT NULL,
  accepted boolean NOT NULL,
  dispatched json NOT NULL,
  reason text NOT NULL,
  failures json
);
CREATE INDEX events__ord ON events (ord);
CREATE INDEX events__team_id ON events (team_id, ord);
CREATE INDEX events__team_id__received_at ON events (team_id, received_at DESC, ord DESC);
CREATE INDEX events__event_id ON events (event_id, ord);
CREATE INDEX events__received_at ON events (received_at);

CREATE TABLE skill_scans (
  ord bigint GENERATED ALWAYS AS IDENTITY,
  id text PRIMARY KEY,
  repository text NOT NULL,
  commit text NOT NULL,
  skills json NOT NULL,
  skipped json NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX skill_scans__ord ON skill_scans (ord);
`;
