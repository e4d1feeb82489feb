// Where a person can be in the screens: a stack of these, the last one on screen.
import { type ConnectionDto, type ReceivedEventDto } from './api.js';

export type Route =
  | { name: 'home' }
  | { name: 'automations' }
  | { name: 'automation'; id: string }
  | { name: 'automation-new' }
  | { name: 'events' }
  | { name: 'event'; event: ReceivedEventDto }
  | { name: 'event-new' }
  | { name: 'skills' }
  | { name: 'env-vars' }
  | { name: 'env-var-set'; varName?: string; environmentId?: string; isSecret?: boolean }
  | { name: 'sessions' }
  | { name: 'session'; id: string }
  | { name: 'connections' }
  | { name: 'connection'; connection: ConnectionDto }
  | { name: 'connection-new' };

/** The areas the home screen offers, in order; `svc ui AREA` opens one directly. */
export const AREAS = [
  { route: { name: 'automations' }, label: 'Automations', blurb: 'schedules and event triggers: list, create, pause, run' },
  { route: { name: 'events' }, label: 'Events', blurb: 'compose, dry-run and send events; recent events' },
  { route: { name: 'skills' }, label: 'Skills', blurb: 'scan a GitHub repository for SKILL.md files' },
  { route: { name: 'env-vars' }, label: 'Env vars', blurb: 'variables per environment; values are write-only' },
  { route: { name: 'sessions' }, label: 'Sessions', blurb: 'agent sessions, transcripts and follow-ups' },
  { route: { name: 'connections' }, label: 'Connections', blurb: 'provider webhooks: URLs, secrets, deliveries' },
] as const satisfies readonly { route: Route; label: string; blurb: string }[];

export type AreaName = (typeof AREAS)[number]['route']['name'];
export const AREA_NAMES: readonly AreaName[] = AREAS.map((a) => a.route.name);
