// Every command of the CLI, in one table. Descriptions live here (as well as in the definition)
// so `svc --help` can list all commands without importing any of them; a unit test keeps the two
// equal. To add a command: write cli/commands/<noun>/<verb>.ts exporting `command`, add a line.
import { type CommandDefinition } from '../command.js';

export interface CommandEntry {
  /** the words after `svc` */
  name: string;
  description: string;
  load: () => Promise<CommandDefinition>;
  hidden?: boolean;
  /** the command this one is another name for */
  aliasOf?: string;
}

/** Descriptions of the nouns that group commands (`svc auth`, `svc automations`, ...). */
export const GROUPS: Record<string, string> = {
  auth: 'See which key the CLI uses (log in and out with `svc login` and `svc logout`)',
  daemon: 'Run the svc daemon',
  automations: 'Create, schedule, apply from files, preview and run automations',
  events: 'Send events that start automations, and list the events received',
  skills: 'Scan GitHub repositories for Agent Skills',
  connections: "Connect provider accounts (GitHub, GitLab, Linear, ...): webhook URLs, secrets, deliveries, test deliveries",
  env: "Manage a team's environment variables (values are write-only)",
  sessions: 'Start, follow and read agent sessions',
  projects: 'Project routes, with a project key',
  'projects env': "Update a project's environments",
  'projects schedules': "List and delete a project's schedules",
  admin: 'Administer the daemon with the admin token: teams, keys, projects, environments',
  'admin teams': 'Create, list, update and delete teams',
  'admin keys': 'Create, list and revoke team keys',
  'admin projects': 'Create projects and their keys',
  'admin environments': 'Create environments',
};

const PRIMARY: readonly CommandEntry[] = [
  { name: 'login', description: 'Store a key for a profile, after checking it with the daemon', load: async () => (await import('./auth/login.js')).command },
  { name: 'logout', description: "Remove a profile's stored keys, and the connection secrets kept for it", load: async () => (await import('./auth/logout.js')).command },
  { name: 'auth status', description: 'Show the profile, URL, team and key in use, and where each came from', load: async () => (await import('./auth/status.js')).command },
  { name: 'daemon start', description: 'Run the daemon in the foreground', load: async () => (await import('./daemon/start.js')).command },
  { name: 'daemon copy', description: 'Copy a whole store (a data folder or a PostgreSQL database) into an empty one', load: async () => (await import('./daemon/copy.js')).command },
  { name: 'automations list', description: "List the team's automations, newest first", load: async () => (await import('./automations/list.js')).command },
  { name: 'automations get', description: 'Show an automation, its triggers and, with --next, its next runs', load: async () => (await import('./automations/get.js')).command },
  { name: 'automations create', description: 'Create an automation from flags or a JSON/YAML file', load: async () => (await import('./automations/create.js')).command },
  { name: 'automations update', description: 'Change an automation: only the fields given change', load: async () => (await import('./automations/update.js')).command },
  { name: 'automations pause', description: 'Pause an automation: no scheduled or event runs until it is resumed', load: async () => (await import('./automations/pause.js')).command },
  { name: 'automations resume', description: 'Make an automation active again; its next run is computed from now (no burst of missed runs)', load: async () => (await import('./automations/resume.js')).command },
  { name: 'automations delete', description: 'Delete an automation and its triggers (asks first on a terminal)', load: async () => (await import('./automations/delete.js')).command },
  { name: 'automations run', description: 'Run an automation now (also when paused), and print the session it started', load: async () => (await import('./automations/run.js')).command },
  { name: 'automations runs', description: 'List the sessions an automation started, newest first', load: async () => (await import('./automations/runs.js')).command },
  { name: 'automations apply', description: 'Create or update automations from a JSON/YAML file, matched by name; safe to run every time', load: async () => (await import('./automations/apply.js')).command },
  { name: 'automations preview', description: 'Show the next runs of a cron expression in a time zone and in UTC (no daemon needed)', load: async () => (await import('./automations/preview.js')).command },
  { name: 'events send', description: 'Send an event to the team: start every automation it matches', load: async () => (await import('./events/send.js')).command },
  { name: 'events list', description: 'List the events the team received, newest first, with what each dispatched', load: async () => (await import('./events/list.js')).command },
  { name: 'events replay', description: 'Dispatch a stored event again to the automations that match it now (as a new event ID:replay:N)', load: async () => (await import('./events/replay.js')).command },
  { name: 'connections create', description: 'Connect a provider account: print its webhook URL and secret (once), and keep the secret for `connections test`', load: async () => (await import('./connections/create.js')).command },
  { name: 'connections list', description: "List the team's connections (never their secrets)", load: async () => (await import('./connections/list.js')).command },
  { name: 'connections get', description: 'Show a connection: provider, webhook URL, secret prefix, last delivery', load: async () => (await import('./connections/get.js')).command },
  { name: 'connections rotate-secret', description: 'Give a connection a new secret, printed once; the previous one keeps verifying for 24 hours unless revoked', load: async () => (await import('./connections/rotate-secret.js')).command },
  { name: 'connections delete', description: 'Delete a connection: its deliveries are refused (404) from then on (asks first on a terminal)', load: async () => (await import('./connections/delete.js')).command },
  { name: 'connections deliveries', description: "List a connection's recent deliveries, newest first, rejected ones too, each with its reason", load: async () => (await import('./connections/deliveries.js')).command },
  { name: 'connections test', description: "Send the daemon a sample delivery of a provider event, signed with the connection's secret, and print what it dispatched", load: async () => (await import('./connections/test.js')).command },
  { name: 'api', description: 'Call any API route and print its data as JSON', load: async () => (await import('./api.js')).command },
  { name: 'skills scan', description: 'Find the Agent Skills (SKILL.md files) in a GitHub repository', load: async () => (await import('./skills/scan.js')).command },
  { name: 'env list', description: "List a team's environment variables (names only; values are never shown)", load: async () => (await import('./env/list.js')).command },
  { name: 'env set', description: 'Create or replace an environment variable (the value is never printed)', load: async () => (await import('./env/set.js')).command },
  { name: 'env unset', description: 'Delete an environment variable', load: async () => (await import('./env/unset.js')).command },
  { name: 'sessions list', description: "List the team's sessions, newest first", load: async () => (await import('./sessions/list.js')).command },
  { name: 'sessions get', description: 'Show a session and its transcript (the prompt first)', load: async () => (await import('./sessions/get.js')).command },
  { name: 'sessions start', description: 'Start a session from a prompt', load: async () => (await import('./sessions/start.js')).command },
  { name: 'sessions message', description: 'Send a follow-up message to a running or completed session', load: async () => (await import('./sessions/message.js')).command },
  { name: 'sessions watch', description: 'Follow a session until it ends, printing messages as they arrive', load: async () => (await import('./sessions/watch.js')).command },
  { name: 'projects get', description: 'Show a project (with a project key)', load: async () => (await import('./projects/get.js')).command },
  { name: 'projects env update', description: "Rename or describe one of a project's environments (with a project key)", load: async () => (await import('./projects/env-update.js')).command },
  { name: 'projects schedules list', description: "List the schedules of automations in a project's environments (with a project key)", load: async () => (await import('./projects/schedules-list.js')).command },
  { name: 'projects schedules delete', description: 'Delete a schedule of a project; an automation losing its last trigger goes with it', load: async () => (await import('./projects/schedules-delete.js')).command },
  { name: 'admin teams list', description: 'List every team (admin token)', load: async () => (await import('./admin/teams-list.js')).command },
  { name: 'admin teams create', description: 'Create a team (admin token)', load: async () => (await import('./admin/teams-create.js')).command },
  { name: 'admin teams update', description: 'Rename a team, or admit it to (or stop it from) running sessions (admin token)', load: async () => (await import('./admin/teams-update.js')).command },
  { name: 'admin teams delete', description: 'Delete a team and everything in it (admin token)', load: async () => (await import('./admin/teams-delete.js')).command },
  { name: 'admin keys list', description: "List a team's keys: prefixes only, revoked ones included (admin token)", load: async () => (await import('./admin/keys-list.js')).command },
  { name: 'admin keys create', description: 'Create a team key and print it, once (admin token)', load: async () => (await import('./admin/keys-create.js')).command },
  { name: 'admin keys revoke', description: 'Revoke a team key: it is refused from the next request on (admin token)', load: async () => (await import('./admin/keys-revoke.js')).command },
  { name: 'admin projects create', description: 'Create a project in a team (admin token)', load: async () => (await import('./admin/projects-create.js')).command },
  { name: 'admin projects key', description: "Make a project's key (revoking its previous one) and print it, once (admin token)", load: async () => (await import('./admin/projects-key.js')).command },
  { name: 'admin environments create', description: 'Create an environment in a team, optionally for one of its projects (admin token)', load: async () => (await import('./admin/environments-create.js')).command },
  { name: 'dev', description: 'Run a local daemon with a ready-to-use team `dev` and CLI profile `dev`', load: async () => (await import('./dev.js')).command },
  { name: 'ui', description: 'Open the interactive screens (what `svc` alone opens on a terminal)', load: async () => (await import('./ui.js')).command },
];

/** What gh users type, as other names of ours: working, but not listed twice in the help. */
const ALIASES: readonly (readonly [name: string, of: string])[] = [
  ['auth login', 'login'],
  ['auth logout', 'logout'],
  ['env delete', 'env unset'],
];

export const COMMANDS: readonly CommandEntry[] = [
  ...PRIMARY,
  ...ALIASES.map(([name, of]): CommandEntry => {
    const target = PRIMARY.find((e) => e.name === of)!;
    return { ...target, name, hidden: true, aliasOf: of, description: `${target.description} (same as \`svc ${of}\`)` };
  }),
];
