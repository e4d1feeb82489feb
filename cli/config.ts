// The CLI's settings: named profiles of {url, team, output, projectId} in `config.json` of the
// config folder. No secrets here: keys live in the keychain or the credentials file.
//
// Writes go through `conf` (atomic write, folder creation). Reads parse the file directly: every
// command reads its profile, and importing conf (it loads ajv) costs more than the rest of a
// command's start-up; the scripted hot path (`svc events send` in CI) must not pay for it.
import { join } from 'node:path';
import { withFileLock } from './file-lock.js';
import { readSettingsFile, refuseChangeOver } from './settings-file.js';

export type OutputFormat = 'table' | 'json';

export interface Profile {
  /** base URL, normalised (ends with /api/v1) */
  url?: string;
  team?: string;
  /** default output when --json is not given */
  output?: OutputFormat;
  /** the project the stored project key belongs to */
  projectId?: string;
}

export interface ConfigData {
  /** profile used when --profile and SVC_PROFILE are absent (default "default") */
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

export interface ConfigStore {
  readonly dir: string;
  readonly path: string;
  /** why the file could not be read, when it exists but could not (its settings then count as none) */
  readonly problem: string | undefined;
  /** throws the UsageError a change would, before a command does anything it would have to undo */
  assertChangeable(): void;
  defaultProfile(): string;
  profile(name: string): Profile | undefined;
  profiles(): Record<string, Profile>;
  /** merges `patch` into the profile; `undefined` values remove a field */
  setProfile(name: string, patch: Partial<Record<keyof Profile, string | undefined>>): Promise<void>;
  /** true when there was such a profile */
  removeProfile(name: string): Promise<boolean>;
}

export const CONFIG_FILE = 'config.json';
export const DEFAULT_PROFILE = 'default';
// ':' separates a profile from its key kind in keychain account names (`dev:project`).
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function isValidProfileName(name: string): boolean {
  return PROFILE_NAME.test(name);
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 2048;

/** Keeps only fields of the expected type; anything else in the file is dropped, not trusted. */
export function sanitizeProfile(raw: unknown): Profile | undefined {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const out: Profile = {};
  if (isString(r.url) && /^https?:\/\//.test(r.url)) out.url = r.url;
  if (isString(r.team)) out.team = r.team;
  if (r.output === 'table' || r.output === 'json') out.output = r.output;
  if (isString(r.projectId)) out.projectId = r.projectId;
  return out;
}

/** The profile stored under `name`: `valueOf` or `toString` is a profile name, not Object.prototype's. */
function ownProfile(profiles: ConfigData['profiles'], name: string): Profile | undefined {
  return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
}

export function sanitizeConfig(raw: unknown): ConfigData {
  const out: ConfigData = { profiles: {} };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  const r = raw as Record<string, unknown>;
  if (typeof r.defaultProfile === 'string' && isValidProfileName(r.defaultProfile)) out.defaultProfile = r.defaultProfile;
  if (r.profiles && typeof r.profiles === 'object' && !Array.isArray(r.profiles)) {
    for (const [name, value] of Object.entries(r.profiles as Record<string, unknown>)) {
      if (!isValidProfileName(name)) continue;
      const p = sanitizeProfile(value);
      // (defined, not assigned: a profile named __proto__ is a profile, not the object's prototype)
      if (p) Object.defineProperty(out.profiles, name, { value: p, enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/** The file's settings, or why it could not be read (a missing file is no problem: no settings yet). */
function readConfig(path: string): { data: ConfigData; problem?: string } {
  const { value, problem } = readSettingsFile(path);
  return problem ? { data: { profiles: {} }, problem } : { data: sanitizeConfig(value) };
}

/**
 * The settings to change: a file that exists but does not parse is not overwritten, or every
 * profile it holds would be lost to one `svc login`.
 */
function readForChange(path: string): ConfigData {
  const { data, problem } = readConfig(path);
  refuseChangeOver(problem);
  return data;
}

export function openConfig(dir: string): ConfigStore {
  const path = join(dir, CONFIG_FILE);
  const read = readConfig(path);
  let data = read.data;

  async function write(next: ConfigData): Promise<void> {
    const { default: Conf } = await import('conf');
    const conf = new Conf<Record<string, unknown>>({
      projectName: 'svc',
      projectSuffix: '',
      cwd: dir,
      configName: 'config',
      accessPropertiesByDotNotation: false,
      clearInvalidConfig: true,
    });
    // Replace the whole store so fields dropped by sanitising do not linger in the file.
    conf.store = next as unknown as Record<string, unknown>;
    data = next;
  }

  return {
    dir,
    path,
    problem: read.problem,
    assertChangeable: () => void readForChange(path),
    defaultProfile: () => data.defaultProfile ?? DEFAULT_PROFILE,
    profile: (name) => ownProfile(data.profiles, name),
    profiles: () => ({ ...data.profiles }),
    // Read again under the lock: another process may have written since this one read.
    setProfile: (name, patch) =>
      withFileLock(path, async () => {
        const current = readForChange(path);
        const merged: Record<string, unknown> = { ...ownProfile(current.profiles, name) };
        for (const [k, v] of Object.entries(patch)) {
          if (v === undefined) delete merged[k];
          else merged[k] = v;
        }
        const profile = sanitizeProfile(merged) ?? {};
        await write({ ...current, profiles: { ...current.profiles, [name]: profile } });
      }),
    removeProfile: (name) =>
      withFileLock(path, async () => {
        const current = readForChange(path);
        if (!Object.hasOwn(current.profiles, name)) return false;
        const profiles = { ...current.profiles };
        delete profiles[name];
        await write({ ...current, profiles });
        return true;
      }),
  };
}
