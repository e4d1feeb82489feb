// The sessions one delivery starts, and the receipts of the events one batch stores, are stored
// together. Over HTTP each reads back whole, a follow-up changes only its session, and the lists,
// runs and sessions read the same after a kill -9 (the journal alone holds them) and after a
// graceful stop (the snapshot written at close holds them). The daemon runs as
// `svc daemon start`, so it can be killed.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, spawnSvc, type CliSandbox, type SvcProcess } from '../helpers/cli.js';
import { makeDataDir, requester, type Requester } from '../helpers/daemon.js';
import { dropTestStores, testStoreArgs } from '../helpers/test-store.js';

const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
let sandbox: CliSandbox;
let dataDir: string;
let daemon: SvcProcess;
let url: string;
let api: Requester;
let teamKey: string;
const automations: string[] = [];

async function start(): Promise<void> {
  daemon = spawnSvc(sandbox, ['daemon', 'start', '--data', dataDir, ...(await testStoreArgs(dataDir)), '--port', '0', '--rate-limit', '100000']);
  url = READY.exec(await daemon.waitForLine(READY))![1];
  if (teamKey) api = requester(url, teamKey);
}

async function stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  daemon.child.kill(signal);
  await daemon.exited;
}

/** Everything a client can read of the team's sessions, in the order the API gives it. */
async function readAll() {
  const list = await api('GET', '/teams/acme/sessions?limit=200');
  expect(list.status).toBe(200);
  const sessions = [];
  for (const s of list.body.data) sessions.push((await api('GET', `/teams/acme/sessions/${s.session_id}`)).body.data);
  const runs = [];
  for (const a of automations) runs.push((await api('GET', `/teams/acme/automations/${a}/runs`)).body.data.map((s: { session_id: string }) => s.session_id));
  const events = await api('GET', '/teams/acme/events?limit=200');
  expect(events.status).toBe(200);
  return { list: list.body.data, sessions, runs, events: events.body.data };
}

beforeAll(async () => {
  sandbox = await makeSandbox();
  dataDir = await makeDataDir();
  await start();
  const admin = requester(url, (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim());
  expect((await admin('POST', '/admin/teams', { slug: 'acme' })).status).toBe(201);
  teamKey = (await admin('POST', '/admin/teams/acme/keys', {})).body.data.key;
  api = requester(url, teamKey);
  for (let i = 0; i < 4; i++) {
    const res = await api('POST', '/teams/acme/automations', { name: `listener ${i}`, prompt: `prompt ${i}`, event_type: 'deploy.finished' });
    expect(res.status).toBe(201);
    automations.push(res.body.data.id);
  }
});

afterAll(async () => {
  daemon?.kill();
  await daemon?.exited;
  await sandbox?.cleanup();
  await dropTestStores(dataDir);
});

describe('sessions started together', () => {
  it('read back whole, each with its own automation, prompt and key, and take a follow-up alone', async () => {
    // several deliveries at once
    const sends = await Promise.all(['e1', 'e2', 'e3'].map((id) => api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy.finished', id, data: { n: id } })));
    for (const s of sends) expect(s.body.data.dispatched).toHaveLength(4);
    // and several that match nothing
    const misses = await Promise.all(['m1', 'm2', 'm3'].map((id) => api('POST', '/teams/acme/webhooks/events', { event_type: 'nobody.listens', id, data: { n: id } })));
    for (const m of misses) expect(m.body.data.accepted).toBe(false);
    const { list, events } = await readAll();
    expect(list).toHaveLength(12);
    expect(events.map((e: { id: string }) => e.id).sort()).toEqual(['e1', 'e2', 'e3', 'm1', 'm2', 'm3']);
    for (const e of events) {
      expect(e.data).toEqual({ n: e.id });
      expect(e.dispatched).toHaveLength(e.id.startsWith('e') ? 4 : 0);
    }
    for (const s of list) {
      const i = automations.indexOf(s.automation_id);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(s.prompt).toBe(`prompt ${i}`);
      expect(s.status).toBe('completed');
      expect(s.idempotency_key).toBe(`event:${s.automation_id}:${s.event.id}`);
    }
    const target = list[5];
    const followUp = await api('POST', `/teams/acme/sessions/${target.session_id}/messages`, { message: 'one more thing' });
    expect(followUp.status).toBe(202);
    const after = await readAll();
    const changed = after.sessions.filter((s, i) => JSON.stringify(s) !== JSON.stringify({ ...list[i], messages: s.messages }) || s.messages.length !== 2);
    expect(changed.map((s) => s.session_id)).toEqual([target.session_id]);
    expect(changed[0].messages.map((m: { content: string }) => m.content)).toEqual([target.prompt, expect.any(String), 'one more thing', expect.any(String)]);
  });

  it('read the same after a kill -9 and a restart that replays the journal', async () => {
    const before = await readAll();
    await stop('SIGKILL');
    await start();
    expect(await readAll()).toEqual(before);
  });

  it('read the same after a restart that loads the snapshot written at close', async () => {
    const before = await readAll();
    await stop('SIGTERM');
    await start();
    expect(await readAll()).toEqual(before);
    // and a retried delivery still finds every session it started
    const again = await api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy.finished', id: 'e2', data: { n: 'e2' } });
    expect(again.body.data.reason).toMatch(/4 already dispatched/);
  });
});
