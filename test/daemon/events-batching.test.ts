// Matched events of a team that arrive in the same turn of the event loop share one dispatch
// batch. In-process, so the events of a test are sure to share a batch; over a real journal store
// and a real webhook runtime. Each event of a batch is answered, stored and counted as if it had
// come alone, and reads back the same after a restart.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/logger.js';
import { MAX_BATCH_EVENTS } from '../../daemon/dispatch/service.js';
import { buildServices, type Services } from '../../daemon/services.js';
import { openStore, type JournalStore } from '../../daemon/store/index.js';
import type { TeamRow } from '../../daemon/store/tables.js';
import { generateMasterKey } from '../../daemon/secrets/secret-file.js';
import { makeDataDir } from '../helpers/daemon.js';

let runtime: Server;
let runtimeUrl: string;
let dataDir: string;
let store: JournalStore;
let services: Services;

// Refuses the turns of events whose id says so (after a while when it says `slow`), takes the others.
beforeAll(async () => {
  runtime = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const id = String((JSON.parse(body) as { event: { id: string } | null }).event?.id);
      const refuse = id.includes('refuse');
      const answer = () => res.writeHead(refuse ? 503 : 200, { 'content-type': 'application/json' }).end(refuse ? '{"error":"busy"}' : '{"message":"done"}');
      // A slow runtime: the answer comes after a later delivery of the same id has arrived.
      if (id.includes('slow')) setTimeout(answer, 300);
      else answer();
    });
  });
  await new Promise<void>((resolve) => runtime.listen(0, '127.0.0.1', resolve));
  runtimeUrl = `http://127.0.0.1:${(runtime.address() as AddressInfo).port}/turns`;
});
afterAll(() => new Promise((resolve) => runtime.close(resolve)));

const RETENTION_DAYS = 100 * 365;

/** Each reading of the clock is one second after the one before, so every event has its own time. */
function steppingClock() {
  let t = Date.parse('2026-06-01T00:00:00Z');
  return () => new Date((t += 1000));
}

async function open(runner: 'record' | 'webhook') {
  dataDir = await makeDataDir();
  await openIn(runner);
}

/** Opens the store in dataDir and builds the services over it. */
async function openIn(runner: 'record' | 'webhook') {
  const logger = createLogger('silent');
  // (steppingClock is in the past: retention at a compaction must not drop what it stored)
  store = await openStore({ dataDir, logger, retentionDays: RETENTION_DAYS });
  const options = { dataDir, masterKey: generateMasterKey(), runner, runnerUrl: runnerUrl(runner), runnerSecret: 's' };
  services = buildServices({ store, clock: steppingClock(), options, logger });
}

/** A restart: the services stop and the store closes (writing its snapshot), then both open again. */
async function reopen(runner: 'record' | 'webhook') {
  await services.stop();
  await store.close();
  await openIn(runner);
}

const runnerUrl = (runner: string) => (runner === 'webhook' ? runtimeUrl : undefined);

afterEach(async () => {
  await services.stop();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function team(slug: string): Promise<TeamRow> {
  const t = await services.teams.createTeam({ slug });
  return (await store.read((tx) => tx.get('teams', t.id)))!;
}
const automation = (t: TeamRow, name: string) =>
  services.automations.create(t.id, { name, prompt: `React (${name})`, triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });
const send = (t: TeamRow, id: string) => services.events.send(t, { event_type: 'deploy.finished', id });
const triggerOf = async (automationId: string) => (await store.read((tx) => tx.list('triggers', { automation_id: automationId })))[0];
const settle = <T>(promises: Promise<T>[]) => Promise.allSettled(promises);

describe.each(['record', 'webhook'] as const)('dispatch batches (%s runner)', (runner) => {
  beforeEach(() => open(runner));

  it('answers each event of a batch for itself, and counts every run on the triggers', async () => {
    const acme = await team('acme');
    const a = await automation(acme, 'A');
    const b = await automation(acme, 'B');
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => send(acme, `e${i}`)));
    results.forEach((r, i) => {
      expect(r.accepted).toBe(true);
      expect(r.dispatched.map((d) => d.idempotencyKey)).toEqual([`event:${a.id}:e${i}`, `event:${b.id}:e${i}`]);
      expect(r.reason).toBe('dispatched to 2 automations');
    });
    const events = await store.read((tx) => tx.list('events', { team_id: acme.id }));
    expect(events).toHaveLength(20);
    const latest = events.map((e) => e.received_at).sort().at(-1);
    for (const auto of [a, b]) {
      expect(await triggerOf(auto.id)).toMatchObject({ total_runs: 20, last_run_at: latest });
      expect((await services.sessions.listRuns(acme.id, auto.id, {})).data).toHaveLength(20);
    }
  });

  it('keeps what each receipt of a batch dispatched, the same after a compaction and a restart', async () => {
    const acme = await team('acme');
    const a = await automation(acme, 'A');
    const b = await automation(acme, 'B');
    await Promise.all(Array.from({ length: 5 }, (_, i) => send(acme, `e${i}`)));
    const read = () => store.read((tx) => tx.list('events', { team_id: acme.id }));
    const events = await read();
    expect(events.map((e) => e.event_id)).toEqual(['e0', 'e1', 'e2', 'e3', 'e4']);
    for (const e of events) expect(e.dispatched).toEqual([expect.objectContaining({ automationId: a.id }), expect.objectContaining({ automationId: b.id })]);
    await store.compact();
    expect(await read()).toEqual(events);
    await reopen(runner);
    expect(await read()).toEqual(events);
  });

  it(`answers and stores every event of a turn of more than ${MAX_BATCH_EVENTS}, matched or not, and reads them back after a restart`, async () => {
    const acme = await team('acme');
    const a = await automation(acme, 'A');
    const n = MAX_BATCH_EVENTS * 2 + 5;
    const matched = await Promise.all(Array.from({ length: n }, (_, i) => send(acme, `m${i}`)));
    expect(matched.every((r) => r.accepted)).toBe(true);
    const unmatched = await Promise.all(Array.from({ length: n }, (_, i) => services.events.send(acme, { event_type: 'other', id: `u${i}` })));
    expect(unmatched.every((r) => !r.accepted)).toBe(true);
    const read = () =>
      store.read(async (tx) => ({
        events: (await tx.list('events', { team_id: acme.id })).map((e) => e.event_id).sort(),
        sessions: await tx.count('sessions', { automation_id: a.id }),
        runs: (await tx.list('triggers', { automation_id: a.id }))[0].total_runs,
      }));
    const expected = {
      events: [...Array.from({ length: n }, (_, i) => `m${i}`), ...Array.from({ length: n }, (_, i) => `u${i}`)].sort(),
      sessions: n,
      runs: n,
    };
    expect(await read()).toEqual(expected);
    await reopen(runner);
    expect(await read()).toEqual(expected);
  });
});

describe('dispatch batches', () => {
  beforeEach(() => open('record'));

  it('lists the events of one moment newest first by receipt, though matched and unmatched ones are stored by different writes', async () => {
    const acme = await team('acme');
    await automation(acme, 'A');
    await settle(Array.from({ length: 10 }, (_, i) => services.events.send(acme, { event_type: i % 2 ? 'deploy.finished' : 'nobody.listens', id: `mix-${i}` })));
    const listed = (await services.events.list(acme.id, {})).data.map((e) => e.id);
    expect(listed).toEqual(Array.from({ length: 10 }, (_, i) => `mix-${9 - i}`));
  });

  it('stores the events of a turn that match nothing, each answered for itself, in the order they came', async () => {
    const acme = await team('acme');
    await automation(acme, 'A');
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => services.events.send(acme, { event_type: i % 2 ? 'other.thing' : 'another.thing', id: `n${i}` })),
    );
    results.forEach((r, i) => {
      expect(r).toMatchObject({ accepted: false, dispatched: [] });
      expect(r.reason).toContain(i % 2 ? 'other.thing' : 'another.thing');
    });
    const stored = await store.read((tx) => tx.list('events', { team_id: acme.id }));
    expect(stored.map((e) => e.event_id)).toEqual(Array.from({ length: 12 }, (_, i) => `n${i}`));
  });

  it("keeps the receipts of two teams' events of one turn apart, and reads them back the same after a restart", async () => {
    const acme = await team('acme');
    const beta = await team('beta');
    // interleaved: the unmatched events of a turn share one write, whatever their team
    await Promise.all(Array.from({ length: 8 }, (_, i) => services.events.send(i % 2 ? beta : acme, { event_type: 'nobody.listens', id: `x${i}` })));
    const read = () => store.read(async (tx) => [await tx.list('events', { team_id: acme.id }), await tx.list('events', { team_id: beta.id })]);
    const [ofAcme, ofBeta] = await read();
    expect(ofAcme.map((e) => e.event_id)).toEqual(['x0', 'x2', 'x4', 'x6']);
    expect(ofBeta.map((e) => e.event_id)).toEqual(['x1', 'x3', 'x5', 'x7']);
    const before = await read();
    await reopen('record');
    expect(await read()).toEqual(before);
  });

  it('starts the sessions of an event id sent twice in one batch once, and says so to the second', async () => {
    const acme = await team('acme');
    const a = await automation(acme, 'A');
    const [first, second, other] = await Promise.all([send(acme, 'same'), send(acme, 'same'), send(acme, 'other')]);
    expect(first.reason).toBe('dispatched to 1 automation');
    expect(second.reason).toBe('dispatched to 1 automation (1 already dispatched for event id "same": no new session)');
    expect(other.reason).toBe('dispatched to 1 automation');
    expect((await services.sessions.listRuns(acme.id, a.id, {})).data).toHaveLength(2);
    expect((await triggerOf(a.id)).total_runs).toBe(2);
  });

  it('keeps teams apart: a team that is not admitted fails only its own events', async () => {
    const acme = await team('acme');
    const idle = await team('idle');
    await automation(acme, 'A');
    const i = await automation(idle, 'I');
    await services.teams.updateTeam('idle', { execution_admitted: false });
    const [ok, denied] = await settle([send(acme, 'x1'), send(idle, 'y1')]);
    expect(ok).toMatchObject({ status: 'fulfilled', value: { accepted: true } });
    expect(denied).toMatchObject({ status: 'rejected', reason: { code: 'EXECUTION_DENIED' } });
    expect(await store.read((tx) => tx.count('events', { team_id: idle.id }))).toBe(0);
    expect((await triggerOf(i.id)).total_runs).toBe(0);
  });
});

describe('dispatch batches with runner refusals', () => {
  beforeEach(() => open('webhook'));

  it('counts the session the runner refused as a run, as a refused scheduled run counts', async () => {
    const acme = await team('acme');
    const a = await automation(acme, 'A');
    const [one, two, refused] = await settle([send(acme, 'k1'), send(acme, 'k2'), send(acme, 'k3-refuse')]);
    expect(one).toMatchObject({ status: 'fulfilled', value: { accepted: true } });
    expect(two).toMatchObject({ status: 'fulfilled', value: { accepted: true } });
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'SESSION_START_FAILED' } });
    const events = await store.read((tx) => tx.list('events', { team_id: acme.id }));
    const latest = events.map((e) => e.received_at).sort().at(-1);
    expect(events.find((e) => e.event_id === 'k3-refuse')).toMatchObject({ accepted: false, dispatched: [] });
    // total_runs is the number of runs the automation lists: the refused one is there, `failed`.
    const runs = (await services.sessions.listRuns(acme.id, a.id, {})).data;
    expect(runs.map((r) => r.status).sort()).toEqual(['completed', 'completed', 'failed']);
    expect(await triggerOf(a.id)).toMatchObject({ total_runs: 3, last_run_at: latest });
  });

  /** Both deliveries of `id` answered with the refusal of the one session they share, and stored so. */
  async function expectBothRefused(teamId: string, automationId: string, id: string, results: PromiseSettledResult<unknown>[]) {
    const [first, second] = results;
    expect(first).toMatchObject({ status: 'rejected', reason: { code: 'SESSION_START_FAILED' } });
    expect(second).toMatchObject({
      status: 'rejected',
      reason: { code: 'SESSION_START_FAILED', message: expect.stringContaining(`(on an earlier delivery of event id "${id}"; send the event with a new id to try again)`) },
    });
    const receipts = await store.read((tx) => tx.list('events', { team_id: teamId }));
    expect(receipts.map((e) => [e.accepted, e.dispatched])).toEqual([
      [false, []],
      [false, []],
    ]);
    expect((await services.sessions.listRuns(teamId, automationId, {})).data).toHaveLength(1);
  }

  it('answers every copy of an event id in a batch with the refusal of the one session they share', async () => {
    const acme = await team('acme');
    const a = await automation(acme, 'A');
    await expectBothRefused(acme.id, a.id, 'twice-refuse', await settle([send(acme, 'twice-refuse'), send(acme, 'twice-refuse')]));
    expect((await triggerOf(a.id)).total_runs).toBe(1);
  });

  it('answers a retry that arrives while the first delivery is still being handed over with the refusal too', async () => {
    const acme = await team('acme');
    const a = await automation(acme, 'A');
    const first = send(acme, 'slow-refuse');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expectBothRefused(acme.id, a.id, 'slow-refuse', await settle([first, send(acme, 'slow-refuse')]));
    // A slow runtime that takes the turn: the retry is the usual "already dispatched".
    const took = send(acme, 'slow-ok');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const [ok, again] = await Promise.all([took, send(acme, 'slow-ok')]);
    expect(ok.reason).toBe('dispatched to 1 automation');
    expect(again.reason).toBe('dispatched to 1 automation (1 already dispatched for event id "slow-ok": no new session)');
  });

  it('waits for a refusal to be on disk before answering it, so a restart cannot hand the session over again', async () => {
    const acme = await team('acme');
    await automation(acme, 'A');
    const waits: (string | undefined)[] = [];
    const write = store.write.bind(store);
    store.write = (fn, opts) => {
      waits.push(opts?.wait);
      return write(fn, opts);
    };
    await send(acme, 'd0');
    // Taken: the hand-over's outcome only needs applying (a restart would hand it over again).
    expect(waits.at(-1)).toBe('applied');
    await expect(send(acme, 'd1-refuse')).rejects.toMatchObject({ code: 'SESSION_START_FAILED' });
    expect(waits.at(-1) ?? 'durable').toBe('durable');
  });
});
