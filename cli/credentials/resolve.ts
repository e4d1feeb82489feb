// The one lookup order for everything a command needs to reach the daemon:
//   flags (--profile, --url, --team), then SVC_* environment, then the profile (URL, team) and
//   its stored key (the credentials file, then the keychain: see credentials/store.ts).
// Keys are never taken from a flag: a flag shows up in `ps` and shell history.
import { isValidProfileName, type ConfigStore } from '../config.js';
import { keyTextProblem } from './key-text.js';
import { type CredentialStore, type KeyKind } from './store.js';
import { UsageError } from '../errors.js';

export type ValueSource = 'flag' | 'env' | 'profile';
export type KeySource = 'env' | 'keychain' | 'file';
export type ProfileSource = 'flag' | 'env' | 'config' | 'default';

export interface LookupFlags {
  profile?: string;
  url?: string;
  team?: string;
}

export interface ResolvedCredentials {
  profile: string;
  profileSource: ProfileSource;
  url?: string;
  urlSource?: ValueSource;
  team?: string;
  teamSource?: ValueSource;
  kind: KeyKind;
  key?: string;
  keySource?: KeySource;
  /** the environment variable that answered, when keySource is 'env' */
  keyEnv?: string;
  /** SVC_API_KEY holds a key, of the other kind (a project key where a team key is needed): passed over */
  envKeyOfOtherKind?: boolean;
  /** profile's project (for project keys) */
  projectId?: string;
  /** why the keychain was skipped, when it was tried and did not answer */
  keychainError?: string;
}

export interface LookupInput {
  kind: KeyKind;
  flags: LookupFlags;
  env: NodeJS.ProcessEnv;
  config: ConfigStore;
  /** loaded only when neither a flag nor the environment supplies the key */
  store: () => CredentialStore;
  /** false: URL and team only, the key is not looked up (routes that need none) */
  withKey?: boolean;
}

/** SVC_API_KEY answers for team and project keys (CI sets the one it needs); admin has its own. */
export function keyEnvFor(kind: KeyKind): string {
  return kind === 'admin' ? 'SVC_ADMIN_TOKEN' : 'SVC_API_KEY';
}

/** A project key in SVC_API_KEY does not answer for team routes, nor a team key for project ones. */
function envKeyFits(kind: KeyKind, key: string): boolean {
  if (kind === 'team') return !key.startsWith('svc_proj_');
  if (kind === 'project') return !key.startsWith('svc_team_');
  return true;
}

export function resolveProfileName(flags: LookupFlags, env: NodeJS.ProcessEnv, config: ConfigStore) {
  if (flags.profile) return { profile: flags.profile, profileSource: 'flag' as const };
  if (env.SVC_PROFILE) {
    // Checked as --profile is: an invalid name is no profile, and its hints could not be run.
    if (!isValidProfileName(env.SVC_PROFILE)) throw new UsageError(`invalid profile name '${env.SVC_PROFILE}' in SVC_PROFILE: use letters, digits, '.', '_' and '-'`);
    return { profile: env.SVC_PROFILE, profileSource: 'env' as const };
  }
  const name = config.defaultProfile();
  return { profile: name, profileSource: name === 'default' ? ('default' as const) : ('config' as const) };
}

/** A flag given empty is a mistake (an unset shell variable, say), not "use the next source". */
function pick(flag: string | undefined, env: string | undefined, profile: string | undefined, name: string) {
  if (flag === '') throw new UsageError(`${name} must not be empty`);
  if (flag) return { value: flag, source: 'flag' as const };
  // A CI secret often ends in the newline of the file it was saved from.
  if (env?.trim()) return { value: env.trim(), source: 'env' as const };
  if (profile) return { value: profile, source: 'profile' as const };
  return undefined;
}

export async function resolveCredentials(input: LookupInput): Promise<ResolvedCredentials> {
  const { kind, flags, env, config } = input;
  const { profile, profileSource } = resolveProfileName(flags, env, config);
  const stored = config.profile(profile);
  const out: ResolvedCredentials = { profile, profileSource, kind };

  const url = pick(flags.url, env.SVC_BASE_URL, stored?.url, '--url');
  if (url) [out.url, out.urlSource] = [url.value, url.source];
  const team = pick(flags.team, env.SVC_TEAM, stored?.team, '--team');
  if (team) [out.team, out.teamSource] = [team.value, team.source];
  if (stored?.projectId) out.projectId = stored.projectId;

  if (input.withKey === false) return out;
  const envName = keyEnvFor(kind);
  const envKey = env[envName]?.trim();
  if (envKey && envKeyFits(kind, envKey)) {
    const problem = keyTextProblem(envKey);
    // (a header cannot carry it: the request would fail before reaching the daemon)
    if (problem) throw new UsageError(`${envName} ${problem}: it must hold exactly one key`);
    out.key = envKey;
    out.keySource = 'env';
    out.keyEnv = envName;
    return out;
  }
  if (envKey) out.envKeyOfOtherKind = true;
  const { found, keychainError } = await input.store().read(profile, kind);
  if (found) {
    out.key = found.key;
    out.keySource = found.source;
  }
  if (keychainError) out.keychainError = keychainError;
  return out;
}
