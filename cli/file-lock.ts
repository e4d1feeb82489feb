// Read-modify-write of the CLI's own files (config.json, credentials.json) under a lock file, so
// that parallel runs (CI jobs each doing `svc login --profile jobN`) do not overwrite each
// other's changes. proper-lockfile does the locking: an atomic mkdir of `FILE.lock`, kept fresh
// while held and taken over once stale (a run killed while holding it does not block the next).
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Runs `change` while holding the lock of `path` (the file need not exist yet). */
export async function withFileLock<T>(path: string, change: () => Promise<T> | T): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const { lock } = await import('proper-lockfile');
  const release = await lock(path, {
    realpath: false,
    stale: 10_000,
    // Holders finish in milliseconds: a few seconds of retries cover dozens of parallel runs.
    retries: { retries: 60, factor: 1.2, minTimeout: 10, maxTimeout: 200, randomize: true },
    // The default throws from a timer, taking the command down mid-write; a change held past
    // the stale time (a machine frozen for 10 s) finishes instead.
    onCompromised: () => undefined,
  });
  try {
    return await change();
  } finally {
    await release().catch(() => undefined);
  }
}
