// A daemon start hands the sessions a crash left queued to the runner many at once, as live
// starts are, and a stop during that recovery starts no more hand-overs: it waits only for those
// under way, and leaves the rest queued for the next start. The runner is a webhook whose server
// holds every turn until the test lets go, so what is in flight can be counted without timing.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionRow } from '../../daemon/store/tables.js';
import { createTeam, makeDataDir, startTestDaemon } from '../helpers/daemon.js';
import { openTestStore } from '../helpers/test-store.js';

/** more than the groups a start hands over at once (RECOVERY_GROUPS_IN_FLIGHT, 64) */
const LEFT_QUEUED = 70;

let runtime: Server;
let runtimeUrl: string;
let held: ServerResponse[] = [];
let holding = true;
let received = 0;

const answer = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"message":"done"}');

beforeAll(async () => {
  runtime = createServer((req: IncomingMessage, res) => {
    req.resume().on('end', () => {
      received++;
      if (holding) held.push(res);
      else answer(res);
    });
  });
  await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
  runtimeUrl = `http://127.0.0.1:${(runtime.address() as AddressInfo).port}/turns`;
});
afterAll(() => new Promise<void>((resolve) => runtime.close(() => resolve())));

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function statuses(dataDir: string): Promise<Record<string, number>> {
  const store = await openTestStore(dataDir);
  try {
    const rows = await store.read((tx) => tx.list('sessions'));
    const out: Record<string, number> = {};
    for (const s of rows) out[s.status] = (out[s.status] ?? 0) + 1;
    return out;
  } finally {
    await store.close();
  }
}

describe('sessions left queued by a crash', () => {
  it('are handed over many at once; a stop meanwhile hands over no more, and the next start the rest', async () => {
    const dataDir = await makeDataDir();
    const first = await startTestDaemon({ dataDir });
    const { team } = await createTeam(first, 'acme');
    await first.close();

    const store = await openTestStore(dataDir);
    const at = new Date().toISOString();
    await store.write((tx) => {
      for (let i = 0; i < LEFT_QUEUED; i++) {
        const row: SessionRow = {
          session_id: randomUUID(), team_id: team.id, kind: 'conversational', persona: 'main', status: 'queued', prompt: `left ${i}`,
          parent_session_id: null, automation_id: null, trigger_id: null, idempotency_key: null, environment_id: null, event_row_id: null,
          created_at: at, updated_at: at, started_at: null, completed_at: null, last_error: null, runner: null,
        };
        tx.put('sessions', row);
      }
    });
    await store.close();

    const webhook = { runner: 'webhook' as const, runnerUrl: runtimeUrl, runnerSecret: 'test-secret' };
    const second = await startTestDaemon({ dataDir, ...webhook });
    // One after another, the first turn would be held alone; many at once, 64 wait together.
    await until('64 turns are held', () => held.length === 64);
    const stopping = second.close();
    // The port closes after the stop has told recovery to hand over no more (a preClose hook).
    await until('the stopping daemon refuses connections', async () => !(await accepts(second.url)));
    holding = false;
    for (const res of held.splice(0)) answer(res);
    await stopping;
    expect(received).toBe(64);
    expect(await statuses(dataDir)).toEqual({ completed: 64, queued: LEFT_QUEUED - 64 });

    const third = await startTestDaemon({ dataDir, ...webhook });
    await until('the rest are handed over', () => received === LEFT_QUEUED);
    await third.close();
    expect(received).toBe(LEFT_QUEUED);
    expect(await statuses(dataDir)).toEqual({ completed: LEFT_QUEUED });
  });
});
