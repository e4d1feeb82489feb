// This daemon's claim on the sessions it holds (CONTRACT §11). On a shared database each live
// daemon keeps an `instances` row whose `alive_until` it pushes forward every third of the claim
// time; a session's `claimed_by` names the daemon whose process holds its turns. Once a daemon's
// `alive_until` has passed, another takes up its sessions (recovery.ts); until then none touches
// them. A data folder is locked to one daemon (exclusive): every other claim in it is a dead
// process's, so no row is kept there.
//
// A daemon on a database also has a folder of its own (`--data`: its admin token, master key and
// exec turn records). The id of the process that ran from it last is kept there: when a daemon
// restarts (after `kill -9` too), it takes up what its previous process left at once, as a
// restart on a data folder does, rather than once that claim expires.
import { randomUUID } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { DEFAULT_LEASE_TTL_MS } from '../config.js';
import type { Store } from '../store/store.js';

export interface ClaimLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface InstanceClaimsOptions {
  store: Store;
  clock: Clock;
  /** this daemon's id (`/health` says it); a fresh one when not given */
  instanceId?: string;
  claimMs?: number;
  /** a data folder locked to this daemon: no row, and every other claim is a dead process's */
  exclusive: boolean;
  /** the id of the process that ran from this daemon's folder before (see lastInstanceOf) */
  previous?: string;
  log?: ClaimLog;
}

export class InstanceClaims {
  readonly instanceId: string;
  readonly claimMs: number;
  readonly exclusive: boolean;
  /** this daemon's previous process, over whatever its row says */
  readonly previous: string | undefined;
  private readonly store: Store;
  private readonly clock: Clock;
  private readonly log: ClaimLog | undefined;
  private startedAt: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private renewal: Promise<void> | undefined;
  private stopped = false;

  constructor(opts: InstanceClaimsOptions) {
    this.store = opts.store;
    this.clock = opts.clock;
    this.instanceId = opts.instanceId ?? randomUUID();
    this.claimMs = opts.claimMs ?? DEFAULT_LEASE_TTL_MS;
    this.exclusive = opts.exclusive;
    this.previous = opts.previous;
    this.log = opts.log;
  }

  /**
   * Writes this daemon's row before it stores any session (so none of its claims is ever without
   * one), then renews it on a timer that keeps no process alive.
   */
  async start(): Promise<void> {
    if (this.exclusive) return;
    this.startedAt = this.clock().toISOString();
    await this.renew();
    this.schedule();
  }

  /**
   * The daemon has stopped its work: its claim ends now rather than when it would expire, so the
   * others take up what it leaves (sessions left queued, webhook turns) at their next pass, and
   * delete the row once it holds nothing.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.renewal;
    if (this.exclusive || this.startedAt === undefined) return;
    try {
      await this.store.write(async (tx) => {
        const row = await tx.get('instances', this.instanceId);
        if (row) tx.put('instances', { ...row, alive_until: this.clock().toISOString() });
      });
    } catch (err) {
      this.log?.warn({ err }, 'could not end this daemon\'s claim; its sessions are taken up once it expires');
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.renewal = this.renew()
        .catch((err: unknown) => this.log?.error({ err }, 'could not renew this daemon\'s claim on its sessions; retrying'))
        .finally(() => this.schedule());
    }, Math.max(1, Math.floor(this.claimMs / 3)));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const aliveUntil = new Date(this.clock().getTime() + this.claimMs).toISOString();
    const startedAt = this.startedAt!;
    const had = await this.store.write(async (tx) => {
      const row = await tx.get('instances', this.instanceId);
      tx.put('instances', { id: this.instanceId, started_at: startedAt, alive_until: aliveUntil });
      return row !== undefined;
    });
    if (!had && this.renewal !== undefined) {
      // Only a daemon that let its claim expire (paused, or cut off from the database) loses its row.
      this.log?.warn({ instance: this.instanceId }, 'this daemon\'s claim had expired: other daemons may have taken up its sessions');
    }
  }
}

/** The file in a daemon's folder naming the process that last ran from it. */
export const LAST_INSTANCE_FILE = 'last-instance';

/**
 * Records `instanceId` as the process running from `dir`, and returns the one recorded before
 * (undefined when none was). A folder is one daemon's, as its exec turn records are (runner/turn-groups.ts).
 */
export async function lastInstanceOf(dir: string, instanceId: string): Promise<string | undefined> {
  const path = join(dir, LAST_INSTANCE_FILE);
  const previous = (await readFile(path, 'utf8').catch(() => '')).trim() || undefined;
  // (a torn file would name no process: written aside, then moved into place)
  await writeFile(`${path}.tmp`, instanceId + '\n', { mode: 0o600 });
  await rename(`${path}.tmp`, path);
  return previous;
}
