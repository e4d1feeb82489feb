// Where the CLI keeps its config and the daemon its data, per platform. A few lines instead of a
// dependency: the rules are the XDG / Apple / Windows conventions for an app named `svc`.
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

const APP = 'svc';

interface Where {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** An XDG base folder from the environment; the spec says to ignore a relative one. */
const xdg = (value: string | undefined) => (value && isAbsolute(value) ? value : undefined);

/** The user's data folder for svc: the daemon's default `--data`. */
export function userDataDir({ env = process.env, platform = process.platform }: Where = {}): string {
  if (platform === 'darwin') return join(home(env), 'Library', 'Application Support', APP);
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home(env), 'AppData', 'Local'), APP);
  return join(xdg(env.XDG_DATA_HOME) ?? join(home(env), '.local', 'share'), APP);
}

/** The CLI's config folder (profiles, and the key file when no keychain answers). */
export function configDir({ env = process.env, platform = process.platform }: Where = {}): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  if (platform === 'darwin') return join(home(env), 'Library', 'Preferences', APP);
  if (platform === 'win32') return join(env.APPDATA || join(home(env), 'AppData', 'Roaming'), APP);
  return join(xdg(env.XDG_CONFIG_HOME) ?? join(home(env), '.config'), APP);
}
