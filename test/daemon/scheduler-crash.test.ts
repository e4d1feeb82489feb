// kill -9 in the middle of firing a slot, then restart: the slot still starts exactly one
// session. The daemon runs as `svc daemon start` (built dist) and kills itself at the point
// SVC_FAULT names; the restart runs without it on the same data folder.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeSandbox, spawnSvc, type CliSandbox, type SvcProcess } from '../helpers/cli.js';
import { requester } from '../helpers/daemon.js';
import { openTestStore, testStoreArgs } from '../helpers/test-store.js';

const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
async function startDaemonProcess(s: CliSandbox, procs: SvcProcess[], dataDir: string, env: Record<string, string> = {}) {
  // A restart on PostgreSQL cannot tell that the daemon holding the slot's lease is dead (daemons
  // share a database by design): it takes the slot once the lease expires, so a short one.
  const args = ['daemon', 'start', '--data', dataDir, ...(await testStoreArgs(dataDir)), '--lease-ttl', '2s', '--port', '0', '--rate-limit', '100000'];
  const p = spawnSvc(s, args, { env });
  procs.push(p);
  const url = READY.exec(await p.waitForLine(READY))![1];
  const adminToken = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  return { p, url, admin: requester(url, adminToken) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 20_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What the killed daemon left in its store, read with the store itself (nothing is running). */
async function leftOnDisk(dataDir: string, triggerId: string) {
  const store = await openTestStore(dataDir);
  try {
    return await store.read(async (tx) => ({
      trigger: (await tx.get('triggers', triggerId))!,
      sessions: (await tx.list('sessions')).filter((x) => x.trigger_id === triggerId),
    }));
  } finally {
    await store.close();
  }
}

/** Runs `fn` with a sandbox and a list for the daemons it starts, and removes both when it ends. */
async function inSandbox<T>(fn: (s: CliSandbox, procs: SvcProcess[]) => Promise<T>): Promise<T> {
  const s = await makeSandbox();
  const procs: SvcProcess[] = [];
  try {
    return await fn(s, procs);
  } finally {
    for (const p of procs) p.kill();
    await s.cleanup();
  }
}

async function crashThenRestart(fault: 'crash-after-lease' | 'crash-after-start') {
  return inSandbox(async (s, procs) => {
    const dataDir = join(s.home, 'data-dir');
    const first = await startDaemonProcess(s, procs, dataDir, { SVC_FAULT: fault });
    expect((await first.admin('POST', '/admin/teams', { slug: 'acme' })).status).toBe(201);
    const key = (await first.admin('POST', '/admin/teams/acme/keys', {})).body.data.key as string;
    const slot = new Date(Date.now() + 3_000).toISOString();
    const created = await requester(first.url, key)('POST', '/teams/acme/automations', { name: 'Nightly', prompt: 'Do it', one_off_at: slot });
    expect(created.status).toBe(201);
    const automationId = created.body.data.id as string;
    const triggerId = created.body.data.triggers[0].id as string;

    // The daemon kills itself when it reaches the fault point for this slot.
    const exit = await first.p.exited;
    expect(exit.signal).toBe('SIGKILL');
    const before = await leftOnDisk(dataDir, triggerId);
    expect(before.trigger.lease_owner).not.toBeNull();
    expect(before.trigger.next_run_at).toBe(slot);
    expect(before.sessions).toHaveLength(fault === 'crash-after-lease' ? 0 : 1);

    const second = await startDaemonProcess(s, procs, dataDir);
    const api = requester(second.url, key);
    const automation = await until('the slot to be recorded after the restart', async () => {
      const a = (await api('GET', `/teams/acme/automations/${automationId}`)).body.data;
      return a.total_runs >= 1 ? a : undefined;
    });
    const runs = (await api('GET', `/teams/acme/automations/${automationId}/runs`)).body.data;
    return { slot, triggerId, automation, runs, sessionBefore: before.sessions[0] };
  });
}

// Each test waits for its slot and (on PostgreSQL) for a lease to expire, with a daemon and folder
// of its own: side by side.
describe.concurrent('scheduler across kill -9', () => {
  it('starts exactly one session for a slot when the daemon dies between lease and session start', async () => {
    const { slot, triggerId, automation, runs } = await crashThenRestart('crash-after-lease');
    expect(runs).toHaveLength(1);
    expect(runs[0].idempotency_key).toBe(`schedule:${triggerId}:${slot}`);
    expect(automation).toMatchObject({ total_runs: 1, next_run_at: null, lease_owner: null, lease_until: null });
    expect(automation.triggers[0]).toMatchObject({ status: 'completed', next_run_at: null });
  });

  it('starts no second session when the daemon dies after the session started but before the run was recorded', async () => {
    const { slot, triggerId, automation, runs, sessionBefore } = await crashThenRestart('crash-after-start');
    expect(runs.map((r: any) => r.session_id)).toEqual([sessionBefore!.session_id]);
    expect(runs[0].idempotency_key).toBe(`schedule:${triggerId}:${slot}`);
    expect(automation).toMatchObject({ total_runs: 1, next_run_at: null, lease_owner: null });
    expect(automation.triggers[0]).toMatchObject({ status: 'completed' });
  });
});
