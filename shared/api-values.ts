// The API's fixed values (statuses, providers, names' pattern, limits): plain constants, apart
// from the schemas built on them (shared/schemas/), so the CLI can check and print them without
// loading the schema library, whose hundreds of modules a command would otherwise load at start.

export const AUTOMATION_STATUSES = ['active', 'paused', 'disabled'] as const;

export const SESSION_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

/** The most characters an event id may have, a replay's `{eventId}:replay:{n}` included. */
export const MAX_EVENT_ID_LENGTH = 200;

/** The provider of an event, or an event trigger, that names none. */
export const DEFAULT_PROVIDER = 'generic';

export const ENV_VAR_NAME_PATTERN = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';
export const MAX_ENV_VALUE_BYTES = 65536;

/** The providers whose deliveries svc verifies, each with its own signature scheme (CONTRACT §12). */
export const CONNECTION_PROVIDERS = ['github', 'gitlab', 'linear', 'vercel', 'sentry', 'slack', 'standard'] as const;
export type ConnectionProvider = (typeof CONNECTION_PROVIDERS)[number];

/** How each provider names itself, for the text a person reads. */
export const PROVIDER_TITLES: Readonly<Record<ConnectionProvider, string>> = {
  github: 'GitHub',
  gitlab: 'GitLab',
  linear: 'Linear',
  vercel: 'Vercel',
  sentry: 'Sentry',
  slack: 'Slack',
  standard: 'Standard Webhooks',
};

/** How long a rotated-out secret keeps verifying when rotated with `previous: keep`. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** The largest delivery body a provider may send (a generic event's limit is 1 MiB). */
export const MAX_DELIVERY_BYTES = 5 * 1024 * 1024;

export const DELIVERY_STATUSES = ['accepted', 'duplicate', 'rejected'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
