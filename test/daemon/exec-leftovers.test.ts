// What an exec turn leaves running when its daemon is killed with SIGKILL: the next start ends
// it, whatever runner that start uses, and only it. Real daemon processes, real commands, /proc.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TURN_GROUPS_DIR, TurnGroupLedger, groupOf } from '../../daemon/runner/turn-groups.js';
import { makeSandbox, spawnSvc, type CliSandbox, type SvcProcess } from '../helpers/cli.js';
import { requester } from '../helpers/daemon.js';
import { processAlive } from '../helpers/process-alive.js';
import { testStoreArgs } from '../helpers/test-store.js';

const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
const procs: SvcProcess[] = [];
const sandboxes: CliSandbox[] = [];
const strays: number[] = [];

afterEach(async () => {
  for (const p of procs.splice(0)) p.kill();
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  for (const s of sandboxes.splice(0)) await s.cleanup();
});

/** A sandbox of its own, cleaned up after the test, and the data folder in it. */
async function sandbox(): Promise<{ s: CliSandbox; dir: string }> {
  const s = await makeSandbox();
  sandboxes.push(s);
  return { s, dir: join(s.home, 'data') };
}

/** A team `acme` on the daemon, and a key of it. */
async function teamKey(admin: ReturnType<typeof requester>): Promise<string> {
  await admin('POST', '/admin/teams', { slug: 'acme' });
  return (await admin('POST', '/admin/teams/acme/keys', {})).body.data.key;
}

async function start(s: CliSandbox, dir: string, runnerArgs: string[]) {
  const p = spawnSvc(s, ['daemon', 'start', '--data', dir, ...(await testStoreArgs(dir)), '--port', '0', ...runnerArgs]);
  procs.push(p);
  const url = READY.exec(await p.waitForLine(READY))![1];
  return { p, admin: requester(url, (await readFile(join(dir, 'admin-token'), 'utf8')).trim()), url };
}

/** The pids of processes that carry SVC_SESSION_ID=sessionId in their environment. */
async function processesOf(sessionId: string): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const environ = await readFile(`/proc/${name}/environ`, 'utf8').catch(() => '');
    if (environ.split('\0').includes(`SVC_SESSION_ID=${sessionId}`)) out.push(Number(name));
  }
  return out;
}

async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.runIf(existsSync('/proc/self/environ'))('exec turns left running by a killed daemon', () => {
  it('are killed at the next start (their background children too), and their session fails', async () => {
    const { s, dir } = await sandbox();
    // A command that starts a background process and waits: two processes in the turn's group.
    const first = await start(s, dir, ['--runner', 'exec', '--runner-command', 'sleep 300 & sleep 300']);
    const key = await teamKey(first.admin);
    const session = (await requester(first.url, key)('POST', '/teams/acme/sessions', { prompt: 'run on' })).body.data;
    expect(session.status).toBe('running');
    const pids = await until(() => processesOf(session.session_id), (p) => p.length >= 3);
    strays.push(...pids);
    expect(pids.length).toBeGreaterThanOrEqual(3); // the shell and its two sleeps
    expect(await readdir(join(dir, TURN_GROUPS_DIR))).toHaveLength(1);

    first.p.child.kill('SIGKILL');
    await first.p.exited;
    expect(pids.filter(processAlive)).toEqual(pids); // orphans now: nothing ended them

    // The next start ends them even though it runs another runner.
    const second = await start(s, dir, []);
    expect(await until(async () => pids.filter(processAlive), (left) => left.length === 0)).toEqual([]);
    // The record goes once the daemon has seen them gone, a moment after they die.
    expect(await until(() => readdir(join(dir, TURN_GROUPS_DIR)), (names) => names.length === 0)).toEqual([]);
    const api = requester(second.url, key);
    const after = await until(
      async () => (await api('GET', `/teams/acme/sessions/${session.session_id}`)).body.data,
      (d) => d.status === 'failed',
    );
    expect(after).toMatchObject({ status: 'failed', last_error: 'daemon restarted during the turn' });
  });

  it('leaves nothing recorded once a turn ends', async () => {
    const { s, dir } = await sandbox();
    const d = await start(s, dir, ['--runner', 'exec', '--runner-command', 'echo done']);
    const api = requester(d.url, await teamKey(d.admin));
    const { session_id } = (await api('POST', '/teams/acme/sessions', { prompt: 'p' })).body.data;
    await until(async () => (await api('GET', `/teams/acme/sessions/${session_id}`)).body.data.status, (st) => st === 'completed');
    expect(await until(() => readdir(join(dir, TURN_GROUPS_DIR)), (names) => names.length === 0)).toEqual([]);
  });
});

describe('TurnGroupLedger.endLeftovers', () => {
  it('kills only processes in a recorded group that carry its session id: a reused group id spares the rest', async () => {
    const { s } = await sandbox();
    const sleeper = () => {
      const child = spawn('sleep', ['300'], { stdio: 'ignore' });
      strays.push(child.pid!);
      return child.pid!;
    };
    const [ours, stranger] = [sleeper(), sleeper()];
    // A /proc of our making: both claim group 999, only one started with the turn's session id.
    const proc = join(s.home, 'proc');
    const fake = async (pid: number, environ: string) => {
      await mkdir(join(proc, String(pid)), { recursive: true });
      await writeFile(join(proc, String(pid), 'stat'), `${pid} (sleep) S 1 999 999 0 -1 0`);
      await writeFile(join(proc, String(pid), 'environ'), `PATH=/bin\0${environ}\0`);
    };
    await fake(ours, 'SVC_SESSION_ID=s1');
    await fake(stranger, 'SVC_SESSION_ID=s10');
    const ledger = new TurnGroupLedger(join(s.home, 'data'), undefined, proc);
    await ledger.record(999, 's1');
    expect(await ledger.endLeftovers()).toBe(1);
    expect(await until(async () => processAlive(ours), (a) => !a)).toBe(false);
    expect(processAlive(stranger)).toBe(true);
    expect(await readdir(join(s.home, 'data', TURN_GROUPS_DIR))).toEqual([]);
  });
});

describe('groupOf', () => {
  it('reads the process group after the command name, whatever that name holds', () => {
    expect(groupOf('4242 (sleep) S 4200 4242 4242 0 -1 4194560 85 0 0 0')).toBe(4242);
    expect(groupOf('77 (a) b (c) d) R 1 70 70 0 -1')).toBe(70);
    expect(groupOf('garbage')).toBeUndefined();
  });
});
