// The fallback for hosts without a keychain: keys in `credentials.json` of the config folder,
// readable by the owner only (mode 0600, folder 0700). Written to a temp file and renamed, so a
// crash never leaves half a file, and the file never exists with a wider mode.
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock } from '../file-lock.js';

export const CREDENTIALS_FILE = 'credentials.json';

export interface FileStore {
  readonly path: string;
  get(account: string): string | null;
  set(account: string, secret: string): Promise<void>;
  /** true when something was removed */
  delete(account: string): Promise<boolean>;
}

function read(path: string): Record<string, string> {
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as { keys?: unknown };
    const out: Record<string, string> = {};
    if (raw?.keys && typeof raw.keys === 'object' && !Array.isArray(raw.keys)) {
      for (const [k, v] of Object.entries(raw.keys as Record<string, unknown>)) {
        if (typeof v === 'string' && v.length > 0) out[k] = v;
      }
    }
    return out;
  } catch {
    return {};
  }
}

function write(dir: string, path: string, keys: Record<string, string>): void {
  if (Object.keys(keys).length === 0) {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir leaves a folder that already existed as it was: the key file's folder is ours alone.
  if (process.platform !== 'win32') chmodSync(dir, 0o700);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ version: 1, keys }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600); // a umask cannot widen it, but an existing tmp file keeps its old mode
  renameSync(tmp, path);
}

/**
 * `warn` hears, once, that the file is readable by others (someone copied it, or widened its
 * mode): its keys are still used, as refusing would break every command at once, but the user
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
  return {
    path,
    get: (account) => {
      checkMode();
      return read(path)[account] ?? null;
    },
    // Under the lock, so parallel logins each keep their key (see file-lock.ts).
    set: (account, secret) => withFileLock(path, () => write(dir, path, { ...read(path), [account]: secret })),
    delete: (account) =>
      withFileLock(path, () => {
        const keys = read(path);
        if (!(account in keys)) return false;
        delete keys[account];
        write(dir, path, keys);
        return true;
      }),
  };
}
