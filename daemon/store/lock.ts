// The data-folder lock: one daemon per folder, across processes. proper-lockfile holds a lock
// directory DIR/daemon.lock (atomic mkdir, mtime kept fresh); we add an owner file inside it with
// the holder's pid, so a lock left by a killed daemon is taken over at once instead of after the
// staleness timeout, while a live holder is always refused.
import * as fs from 'node:fs';
import { readFile, rm, mkdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import type { StoreLogger } from './logger.js';

export class DataDirLockedError extends Error {
  readonly code = 'DATA_DIR_LOCKED';
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
  ) {
    super(`data folder ${dataDir} is in use by another svc daemon (pid ${pid ?? 'unknown'})`);
  }
}

export interface DataDirLockOptions {
  logger?: StoreLogger;
  /** how often the holder refreshes the lock's mtime */
  updateMs?: number;
  /** told when the lock was taken away (its folder removed or replaced): stop writing */
  onLost?: (err: Error) => void;
}

interface Owner {
  pid: number;
  /** when the holding process started (ms since epoch): tells our own earlier incarnation from us */
  started: number;
  /**
   * when it started in clock ticks since boot (/proc, Linux): tells a reused pid from the holder.
   * Ticks, not wall-clock time, so a clock stepped while the daemon runs changes nothing.
   */
  startTicks?: number;
}

const LOCK_NAME = 'daemon.lock';
const OWNER_FILE = 'owner.json';
/**
 * proper-lockfile's own staleness rule (an mtime not refreshed for this long) is never met: a
 * daemon paused for a while (Ctrl-Z, SIGSTOP, a suspended VM) is alive and keeps its lock.
 * Whether a holder is gone is decided here, by its pid and start time (ownerIsDead).
 */
const NEVER_STALE_MS = 10 * 365 * 24 * 3_600_000;
/** A lock folder without an owner file this old was left by a crash between mkdir and writing it. */
const OWNERLESS_STALE_MS = 30_000;
/** A takeover marker older than this was left by a crash mid-takeover. */
const TAKEOVER_STALE_MS = 10_000;
const TAKEOVER_WAIT_MS = 2_000;
const MAX_TAKEOVER_ROUNDS = 3;

const processStarted = () => Math.round(Date.now() - process.uptime() * 1000);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: alive, just not ours to signal.
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  return !isZombie(pid);
}

/**
 * The fields of /proc/PID/stat after the command name (Linux), from field 3 (the state) on; null
 * where there is no such file. The name is in parentheses and may itself hold ") ".
 */
function procStat(pid: number | 'self'): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * A process killed with kill -9 whose parent has not reaped it yet still answers signal 0, but it
 * is dead and holds nothing (Linux: state Z). Elsewhere this cannot be told.
 */
const isZombie = (pid: number): boolean => procStat(pid)?.[0] === 'Z';

async function readOwner(lockDir: string): Promise<Owner | null> {
  try {
    const owner = JSON.parse(await readFile(join(lockDir, OWNER_FILE), 'utf8')) as Partial<Owner>;
    if (Number.isInteger(owner.pid) && (owner.pid as number) > 0) {
      const started = Number(owner.started) || 0;
      return Number.isFinite(owner.startTicks) ? { pid: owner.pid as number, started, startTicks: owner.startTicks } : { pid: owner.pid as number, started };
    }
  } catch {
    // no owner file yet (the holder is between mkdir and writing it) or a damaged one
  }
  return null;
}

/**
 * When process `pid` (or this one) started, in clock ticks since boot, from /proc on Linux;
 * undefined where that cannot be read. Tells a holder from another process given its pid later.
 */
function startTicksOf(pid: number | 'self'): number | undefined {
  // field 22 (starttime)
  const ticks = Number(procStat(pid)?.[19]);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/** True only when the owner is certainly gone; unknown owners count as alive. */
function ownerIsDead(owner: Owner | null): boolean {
  if (!owner) return false;
  if (owner.pid === process.pid) {
    // Same pid: our own earlier incarnation (e.g. pid 1 in a restarted container) unless the
    // start times match, which means this very process holds it.
    return Math.abs(owner.started - processStarted()) > 2_000;
  }
  if (!isAlive(owner.pid)) return true;
  // Alive, but perhaps another process that was given the dead holder's pid.
  const ticks = owner.startTicks === undefined ? undefined : startTicksOf(owner.pid);
  return ticks !== undefined && ticks !== owner.startTicks;
}

/** A lock folder with no owner file, old enough that no starting daemon is still writing one. */
async function ownerlessAndOld(lockDir: string): Promise<boolean> {
  const st = await stat(lockDir).catch(() => null);
  return st !== null && Date.now() - st.mtimeMs > OWNERLESS_STALE_MS && (await readOwner(lockDir)) === null;
}

/**
 * The filesystem proper-lockfile uses, changed in two ways: the lock directory is created with the
 * owner file inside, and removing it removes its content.
 */
function lockFs(owner: Owner): typeof fs {
  return {
    ...fs,
    mkdir: ((path: string, cb: (err: NodeJS.ErrnoException | null) => void) => {
      fs.mkdir(path, (err) => {
        if (err) return cb(err);
        fs.writeFile(join(path, OWNER_FILE), JSON.stringify(owner), (werr) => {
          if (!werr) return cb(null);
          fs.rm(path, { recursive: true, force: true }, () => cb(werr));
        });
      });
    }) as unknown as typeof fs.mkdir,
    rmdir: ((path: string, cb: (err: NodeJS.ErrnoException | null) => void) =>
      fs.rm(path, { recursive: true }, cb)) as unknown as typeof fs.rmdir,
    rmdirSync: ((path: string) => fs.rmSync(path, { recursive: true })) as unknown as typeof fs.rmdirSync,
  };
}

/**
 * Removes a dead owner's lock. A short-lived marker directory keeps two starting daemons from
 * both clearing the lock, one of them the other's fresh one.
 */
async function takeOver(lockDir: string, dead: Owner | null): Promise<void> {
  const marker = `${lockDir}.takeover`;
  try {
    await mkdir(marker);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const st = await stat(marker).catch(() => null);
    if (st && Date.now() - st.mtimeMs < TAKEOVER_STALE_MS) {
      // Another starter is clearing it; let it finish, then the caller looks again.
      for (let waited = 0; waited < TAKEOVER_WAIT_MS && (await stat(marker).catch(() => null)); waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return;
    }
    await rm(marker, { recursive: true, force: true });
    await mkdir(marker);
  }
  try {
    const now = await readOwner(lockDir);
    const same = dead === null ? now === null : now !== null && now.pid === dead.pid && now.started === dead.started;
    if (same) await rm(lockDir, { recursive: true, force: true });
  } finally {
    await rmdir(marker).catch(() => undefined);
  }
}

/**
 * Locks `dataDir` for this process. Resolves with the release function; rejects with
 * DataDirLockedError (having changed nothing) when a live daemon holds it.
 */
export async function acquireDataDirLock(dataDir: string, opts: DataDirLockOptions = {}): Promise<() => Promise<void>> {
  const lockDir = join(dataDir, LOCK_NAME);
  const owner: Owner = { pid: process.pid, started: processStarted(), startTicks: startTicksOf('self') };
  const lockOptions: lockfile.LockOptions = {
    lockfilePath: lockDir,
    realpath: false,
    stale: NEVER_STALE_MS,
    update: opts.updateMs ?? 5_000,
    retries: 0,
    fs: lockFs(owner),
    onCompromised: (err) => {
      // proper-lockfile's default throws from a timer, which would take the daemon down.
      opts.logger?.error(
        { err: { message: err.message, code: (err as NodeJS.ErrnoException).code } },
        `lost the lock on data folder ${dataDir}; another process may now use it, so this daemon writes nothing more`,
      );
      opts.onLost?.(err);
    },
  };

  let release: (() => Promise<void>) | undefined;
  for (let round = 0; !release; round++) {
    try {
      release = await lockfile.lock(dataDir, lockOptions);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ELOCKED') throw err;
      const holder = await readOwner(lockDir);
      const abandoned = holder === null && (await ownerlessAndOld(lockDir));
      if (!(abandoned || ownerIsDead(holder)) || round >= MAX_TAKEOVER_ROUNDS) throw new DataDirLockedError(dataDir, holder?.pid ?? null);
      if (round === 0) opts.logger?.warn({ pid: holder?.pid ?? null }, 'taking over the data folder lock of a daemon that is no longer running');
      await takeOver(lockDir, holder);
    }
  }

  let released: Promise<void> | null = null;
  return () =>
    (released ??= release().catch((err: NodeJS.ErrnoException) => {
      // Already released or compromised: nothing of ours is left to remove.
      if (err.code !== 'ERELEASED' && err.code !== 'ENOTACQUIRED') throw err;
    }));
}
