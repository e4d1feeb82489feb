// The data-folder lock across real processes: a live holder refuses everyone else, a holder killed
// with SIGKILL blocks no one, and losing the lock is logged rather than fatal.
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { acquireDataDirLock, DataDirLockedError } from '../../daemon/store/index.js';
import { captureLogger } from './store-child/logger.js';
import { runChild, type Child } from './store-child/spawn.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const dirs: string[] = [];
const children: Child[] = [];
const releases: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await c.exited;
  }
  for (const r of releases.splice(0)) await r().catch(() => undefined);
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-lock-'));
  dirs.push(dir);
  return dir;
}

async function lockInChild(dir: string): Promise<{ child: Child; pid: number }> {
  const child = runChild('lock-holder.ts', [dir]);
  children.push(child);
  const line = await child.waitFor(/^(locked|refused) /);
  expect(line).toMatch(/^locked \d+$/);
  return { child, pid: Number(line.split(' ')[1]) };
}

async function lockHere(dir: string, opts?: Parameters<typeof acquireDataDirLock>[1]) {
  const release = await acquireDataDirLock(dir, opts);
  releases.push(release);
  return release;
}

const snapshotOf = async (dir: string) => {
  const out: Record<string, string> = {};
  for (const name of await readdir(dir, { recursive: true })) {
    out[name] = await readFile(join(dir, name), 'utf8').catch(() => '<dir>');
  }
  return out;
};

test('a second process is refused while a live daemon holds the folder, naming its pid, and changes nothing', async () => {
  const dir = await tempDir();
  const { pid } = await lockInChild(dir);
  const before = await snapshotOf(dir);

  const err = await acquireDataDirLock(dir).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DataDirLockedError);
  expect((err as Error).message).toBe(`data folder ${dir} is in use by another svc daemon (pid ${pid})`);
  expect(await snapshotOf(dir)).toEqual(before);

  // And a second child is refused the same way.
  const other = runChild('lock-holder.ts', [dir]);
  children.push(other);
  expect(await other.waitFor(/^(locked|refused) /)).toBe(`refused data folder ${dir} is in use by another svc daemon (pid ${pid})`);
});

test('a lock left by a daemon killed with SIGKILL is taken over at once', async () => {
  const dir = await tempDir();
  const { child } = await lockInChild(dir);
  child.proc.kill('SIGKILL');
  expect((await child.exited).signal).toBe('SIGKILL');
  expect(await readdir(dir)).toContain('daemon.lock');

  const { logger, lines } = captureLogger();
  await lockHere(dir, { logger });
  expect(lines.map((l) => l.msg)).toContain('taking over the data folder lock of a daemon that is no longer running');
  const owner = JSON.parse(await readFile(join(dir, 'daemon.lock', 'owner.json'), 'utf8'));
  expect(owner.pid).toBe(process.pid);

  // The new holder is a live one: the next child is refused.
  const next = runChild('lock-holder.ts', [dir]);
  children.push(next);
  expect(await next.waitFor(/^(locked|refused) /)).toContain(`(pid ${process.pid})`);
});

test.runIf(process.platform === 'linux')('a killed holder not yet reaped by its parent (a zombie) blocks no one', async () => {
  const dir = await tempDir();
  // The holder's parent becomes `sleep` (exec), which never reaps it: after SIGKILL it stays a
  // zombie, which still answers signal 0, until the wrapper is gone.
  const holder = `'${process.execPath}' --import '${pathToFileURL(join(here, 'store-child', 'register.mjs')).href}' '${join(here, 'store-child', 'lock-holder.ts')}' '${dir}'`;
  const wrapper = spawn('sh', ['-c', `sleep 60 | ${holder} & exec sleep 60`], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      let out = '';
      wrapper.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /locked (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      wrapper.on('exit', () => reject(new Error(`wrapper exited: ${out}`)));
    });
    process.kill(pid, 'SIGKILL');
    const state = async () => (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1][0];
    for (let i = 0; i < 100 && (await state()) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await state()).toBe('Z');
    await lockHere(dir);
    expect(JSON.parse(await readFile(join(dir, 'daemon.lock', 'owner.json'), 'utf8')).pid).toBe(process.pid);
  } finally {
    // The whole group: the wrapper, and the sleep feeding the holder's stdin.
    process.kill(-wrapper.pid!, 'SIGKILL');
  }
});

test('two daemons starting together after a SIGKILL: exactly one takes the folder over', async () => {
  const dir = await tempDir();
  const { child } = await lockInChild(dir);
  child.proc.kill('SIGKILL');
  await child.exited;
  const racers = [runChild('lock-holder.ts', [dir]), runChild('lock-holder.ts', [dir])];
  children.push(...racers);
  const outcomes = await Promise.all(racers.map((r) => r.waitFor(/^(locked|refused) /)));
  expect(outcomes.filter((o) => o.startsWith('locked'))).toHaveLength(1);
  const winner = outcomes.find((o) => o.startsWith('locked'))!.split(' ')[1];
  expect(outcomes.find((o) => o.startsWith('refused'))).toMatch(new RegExp(`in use by another svc daemon \\(pid (${winner}|unknown)\\)`));
});

test('a released lock can be taken by another process, and a child that exits cleanly leaves none behind', async () => {
  const dir = await tempDir();
  const release = await acquireDataDirLock(dir);
  await release();
  expect(await readdir(dir)).not.toContain('daemon.lock');

  const { child } = await lockInChild(dir);
  child.proc.stdin.end();
  expect((await child.exited).code).toBe(0);
  expect(await readdir(dir)).not.toContain('daemon.lock');
  await lockHere(dir);
});

test('the same process asking twice for one folder is refused too', async () => {
  const dir = await tempDir();
  await lockHere(dir);
  await expect(acquireDataDirLock(dir)).rejects.toThrow(`in use by another svc daemon (pid ${process.pid})`);
});

test('a live holder keeps the folder however long it has not refreshed the lock (paused: Ctrl-Z, SIGSTOP, a suspended VM)', async () => {
  const dir = await tempDir();
  const { child, pid } = await lockInChild(dir);
  child.proc.kill('SIGSTOP');
  try {
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(dir, 'daemon.lock'), hourAgo, hourAgo);
    await expect(acquireDataDirLock(dir)).rejects.toThrow(`in use by another svc daemon (pid ${pid})`);
  } finally {
    child.proc.kill('SIGCONT');
  }
});

test('a lock folder without an owner file is taken over only once it is old (a crash between mkdir and writing the owner)', async () => {
  const dir = await tempDir();
  await mkdir(join(dir, 'daemon.lock'));
  await expect(acquireDataDirLock(dir)).rejects.toThrow('in use by another svc daemon (pid unknown)');
  const old = new Date(Date.now() - 60_000);
  await utimes(join(dir, 'daemon.lock'), old, old);
  await lockHere(dir);
});

test.runIf(process.platform === 'linux')('a lock whose pid now belongs to another process (pid reuse) is taken over', async () => {
  const dir = await tempDir();
  const other = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    await mkdir(join(dir, 'daemon.lock'));
    // the pid is alive, but that process did not start when the owner file says its holder did
    await writeFile(join(dir, 'daemon.lock', 'owner.json'), JSON.stringify({ pid: other.pid, started: Date.now() - 86_400_000, startTicks: 1 }));
    await lockHere(dir);
    expect(JSON.parse(await readFile(join(dir, 'daemon.lock', 'owner.json'), 'utf8')).pid).toBe(process.pid);
  } finally {
    other.kill('SIGKILL');
  }
});

test.runIf(process.platform === 'linux')('a live holder is not taken for a reused pid when the wall clock was stepped since it locked', async () => {
  const dir = await tempDir();
  const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    const stat = await readFile(`/proc/${holder.pid}/stat`, 'utf8');
    const startTicks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    await mkdir(join(dir, 'daemon.lock'));
    // its wall-clock start is a day off (the clock moved), its start in ticks since boot is its own
    await writeFile(join(dir, 'daemon.lock', 'owner.json'), JSON.stringify({ pid: holder.pid, started: Date.now() - 86_400_000, startTicks }));
    await expect(acquireDataDirLock(dir)).rejects.toThrow(`in use by another svc daemon (pid ${holder.pid})`);
  } finally {
    holder.kill('SIGKILL');
  }
});

test('losing the lock (its directory removed under us) is logged, said to the holder, and does not crash the process', async () => {
  const dir = await tempDir();
  const { logger, lines } = captureLogger();
  let lost: Error | undefined;
  await lockHere(dir, { logger, updateMs: 1_000, onLost: (err) => (lost = err) });
  await rm(join(dir, 'daemon.lock'), { recursive: true, force: true });
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (lines.some((l) => l.level === 'error')) {
        clearInterval(poll);
        resolve();
      }
    }, 100);
  });
  expect(lines.find((l) => l.level === 'error')?.msg).toBe(`lost the lock on data folder ${dir}; another process may now use it, so this daemon writes nothing more`);
  expect(lost).toBeInstanceOf(Error);
});
