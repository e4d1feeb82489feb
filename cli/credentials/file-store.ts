// The fallback for hosts without a keychain: keys in `credentials.json` of the config folder,
// readable by the owner only (mode 0600, folder 0700). Written to a temp file and renamed, so a
// crash never leaves half a file, and the file never exists with a wider mode.
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from '../file-lock.js';
import { readSettingsFile, refuseChangeOver } from '../settings-file.js';

export const CREDENTIALS_FILE = 'credentials.json';

export interface FileStore {
  readonly path: string;
  get(account: string): string | null;
  set(account: string, secret: string): Promise<void>;
  /** true when something was removed */
  delete(account: string): Promise<boolean>;
  /** the accounts it holds a key of */
  accounts(): string[];
}

/**
 * The stored keys, or why the file could not be read (a missing file is no problem: no keys yet).
 * A Map, not an object: a profile named `valueOf` has no key, whatever Object.prototype holds.
 */
function read(path: string): { keys: Map<string, string>; problem?: string } {
  const keys = new Map<string, string>();
  const { value, problem } = readSettingsFile(path);
  const stored = (value as { keys?: unknown } | null | undefined)?.keys;
  if (stored && typeof stored === 'object' && !Array.isArray(stored)) {
    for (const [k, v] of Object.entries(stored as Record<string, unknown>)) {
      if (typeof v === 'string' && v.length > 0) keys.set(k, v);
    }
  }
  return { keys, problem };
}

/**
 * The keys to change: a file that exists but cannot be read is not overwritten, or every other
 * profile's key would be lost to one `svc login` (as with config.json).
 */
function readForChange(path: string): Map<string, string> {
  const { keys, problem } = read(path);
  refuseChangeOver(problem);
  return keys;
}

function write(dir: string, path: string, keys: ReadonlyMap<string, string>): void {
  if (keys.size === 0) {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir leaves a folder that already existed as it was: the key file's folder is ours alone.
  if (process.platform !== 'win32') chmodSync(dir, 0o700);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ version: 1, keys: Object.fromEntries(keys) }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // a umask cannot widen it, but an existing tmp file keeps its old mode
  renameSync(tmp, path);
}

/**
 * `warn` hears, once, that the file cannot be read (its keys are ignored, and it is not
 * overwritten), and once that it is readable by others (someone copied it, or widened its mode):
 * its keys are still used then, as refusing would break every command at once, but the user
 * should know, as ssh says of a key file.
 */
export function fileStore(dir: string, warn?: (message: string) => void): FileStore {
  const path = join(dir, CREDENTIALS_FILE);
  let modeChecked = false;
  const checkMode = () => {
    if (modeChecked || !warn || process.platform === 'win32') return;
    modeChecked = true;
    let mode = 0o600;
    try {
      mode = statSync(path).mode & 0o777;
    } catch {
      // no file: nothing to warn of
    }
    if (mode & 0o077) warn(`${path} is readable by others (mode ${mode.toString(8).padStart(4, '0')}): run \`chmod 600 ${path}\``);
  };
  let problemTold = false;
  return {
    path,
    get: (account) => {
      checkMode();
      const { keys, problem } = read(path);
      if (problem && warn && !problemTold) {
        problemTold = true;
        warn(`${problem}: the keys stored there are ignored`);
      }
      return keys.get(account) ?? null;
    },
    accounts: () => [...read(path).keys.keys()],
    // Under the lock, so parallel logins each keep their key (see file-lock.ts).
    set: (account, secret) => withFileLock(path, () => write(dir, path, readForChange(path).set(account, secret))),
    delete: (account) =>
      withFileLock(path, () => {
        const keys = readForChange(path);
        if (!keys.delete(account)) return false;
        write(dir, path, keys);
        return true;
      }),
  };
}
