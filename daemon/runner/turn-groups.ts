// The exec runner's record of the process groups its turns run in, kept in the data folder, so
// a daemon started after a `kill -9` can end the commands the killed one left running: their
// sessions fail at that start (`daemon restarted during the turn`), and a command that ran on
// unseen could repeat or contradict what a retry does. Each running turn is one small file,
// written once its command has spawned and removed when the turn ends.
//
// A recorded group id may have been reused by an unrelated process since (the machine rebooted,
// say), so a process is killed only when it is in the recorded group AND carries the turn's
// `SVC_SESSION_ID` in its environment, which only the exec runner sets. That check reads /proc:
// where there is none (macOS), leftovers are reported, not killed.
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const TURN_GROUPS_DIR = 'exec-turns';
const PROC = '/proc';

interface RecordedTurn {
  pgid: number;
  session_id: string;
}

export interface TurnGroupLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export class TurnGroupLedger {
  private readonly dir: string;

  constructor(
    dataDir: string,
    private readonly log?: TurnGroupLog,
    /** where process information is read (a test may point it elsewhere) */
    private readonly procDir = PROC,
  ) {
    this.dir = join(dataDir, TURN_GROUPS_DIR);
  }

  /** Notes that `sessionId`'s turn runs in process group `pgid` (its command's pid). */
  async record(pgid: number, sessionId: string): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const turn: RecordedTurn = { pgid, session_id: sessionId };
    await writeFile(this.fileOf(pgid, sessionId), JSON.stringify(turn), { mode: 0o600 });
  }

  /** The turn in group `pgid` is over, and its group killed. */
  async forget(pgid: number, sessionId: string): Promise<void> {
    await rm(this.fileOf(pgid, sessionId), { force: true });
  }

  /**
   * At start, before any turn runs: kills what the turns recorded by an earlier daemon process
   * left running, then forgets them. Returns how many processes were killed.
   */
  async endLeftovers(): Promise<number> {
    const turns = await this.recorded();
    if (turns.length === 0) return 0;
    const processes = await this.processes();
    let killed = 0;
    if (processes === undefined) {
      this.log?.warn(
        { sessions: turns.map((t) => t.session_id) },
        'exec turns of a daemon that was killed may still be running; without /proc they cannot be told from other processes, so they were left alone',
      );
    } else {
      for (const turn of turns) {
        for (const p of processes) {
          if (p.pgid !== turn.pgid || !(await this.carries(p.pid, turn.session_id))) continue;
          try {
            process.kill(p.pid, 'SIGKILL');
            killed++;
          } catch {
            // it ended meanwhile
          }
        }
      }
      if (killed > 0) {
        this.log?.info({ killed, sessions: turns.map((t) => t.session_id) }, 'killed the processes exec turns of a daemon that was killed had left running');
      }
    }
    await Promise.all(turns.map((t) => this.forget(t.pgid, t.session_id)));
    return killed;
  }

  private fileOf(pgid: number, sessionId: string): string {
    return join(this.dir, `${pgid}.${sessionId}.json`);
  }

  private async recorded(): Promise<RecordedTurn[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: RecordedTurn[] = [];
    for (const name of names) {
      try {
        const turn = JSON.parse(await readFile(join(this.dir, name), 'utf8')) as RecordedTurn;
        if (Number.isInteger(turn.pgid) && turn.pgid > 1 && typeof turn.session_id === 'string') out.push(turn);
        else await rm(join(this.dir, name), { force: true });
      } catch {
        // Half written when the daemon died (its command had only just spawned): nothing to go on.
        await rm(join(this.dir, name), { force: true });
      }
    }
    return out;
  }

  /** Every process's pid and process group, or undefined where /proc cannot tell. */
  private async processes(): Promise<{ pid: number; pgid: number }[] | undefined> {
    let names: string[];
    try {
      names = await readdir(this.procDir);
    } catch {
      return undefined;
    }
    const out: { pid: number; pgid: number }[] = [];
    for (const name of names) {
      if (!/^\d+$/.test(name)) continue;
      const stat = await readFile(join(this.procDir, name, 'stat'), 'utf8').catch(() => undefined);
      const pgid = stat === undefined ? undefined : groupOf(stat);
      if (pgid !== undefined) out.push({ pid: Number(name), pgid });
    }
    return out;
  }

  /** Whether process `pid` started with the turn's session id in its environment. */
  private async carries(pid: number, sessionId: string): Promise<boolean> {
    const environ = await readFile(join(this.procDir, String(pid), 'environ'), 'utf8').catch(() => '');
    return environ.split('\0').includes(`SVC_SESSION_ID=${sessionId}`);
  }
}

/**
 * The process group in a /proc/PID/stat line: `pid (comm) state ppid pgrp ...`. The command
 * name may hold spaces and parentheses, so the fields are counted from its last `)`.
 */
export function groupOf(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const pgid = Number(fields[2]);
  return Number.isInteger(pgid) ? pgid : undefined;
}
