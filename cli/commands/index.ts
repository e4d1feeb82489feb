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
}

/** Descriptions of the nouns that group commands (`svc auth`, `svc automations`, ...). */
export const GROUPS: Record<string, string> = {
  auth: 'Log in and out, and see which key the CLI uses',
  daemon: 'Run the svc daemon',
};

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'login', description: 'Store a key for a profile, after checking it with the daemon', load: async () => (await import('./auth/login.js')).command },
  { name: 'logout', description: "Remove a profile's stored keys", load: async () => (await import('./auth/logout.js')).command },
  { name: 'auth status', description: 'Show the profile, URL, team and key in use, and where each came from', load: async () => (await import('./auth/status.js')).command },
  { name: 'daemon start', description: 'Run the daemon in the foreground', load: async () => (await import('./daemon/start.js')).command },
  { name: 'api', description: 'Call any API route and print its data as JSON', load: async () => (await import('./api.js')).command },
  { name: 'dev', description: 'Run a local daemon with a ready-to-use team `dev` and CLI profile `dev`', load: async () => (await import('./dev.js')).command },
];
