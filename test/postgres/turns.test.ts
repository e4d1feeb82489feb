// Turns of one session in flight on two daemons (CONTRACT §11): each daemon's turns are its own,
// so whichever daemon dies, exactly its turns are dropped, and the session ends with the last turn
// that lives on, never stuck `running`. Real daemon processes on one PostgreSQL database.
import { describe, expect } from 'vitest';
import { fleetTeam, fleetTest, type Fleet } from '../helpers/daemon-fleet.js';
import { sleep, until, webhookRuntime } from '../helpers/webhook-runtime.js';

const it = fleetTest();

/** Daemons A and B on a fresh database with a 2 s claim (polling needs no rate limit), and a team key. */
async function twoDaemons(fleet: Fleet, argsA: readonly string[], argsB: readonly string[] = argsA) {
  const { url: store, n } = await fleet.database('turns');
  const common = ['--lease-ttl', '2s', '--rate-limit', '100000'];
  const a = await fleet.start(store, `a${n}`, { args: [...argsA, ...common] });
  const b = await fleet.start(store, `b${n}`, { args: [...argsB, ...common] });
  const key = await fleetTeam(a);
  return { a, b, apiA: a.as(key), apiB: b.as(key) };
}

type Api = ReturnType<Awaited<ReturnType<typeof twoDaemons>>['a']['as']>;
const read = async (api: Api, id: string) => (await api('GET', `/teams/acme/sessions/${id}`)).body.data;
const contents = (s: { messages: { content: string }[] }) => s.messages.map((m) => m.content);

// Each test mostly waits for a claim to expire, on daemons and a database of its own: side by side.
describe.concurrent('turns of one session on two daemons, one of which dies', () => {
  for (const dies of ['A', 'B'] as const) {
    it(`webhook: a turn held on A, a follow-up held on B, ${dies} killed: the other's turn completes the session`, async ({ fleet }) => {
      const runtime = await webhookRuntime();
      try {
        const { a, b, apiA, apiB } = await twoDaemons(fleet, runtime.args);
        runtime.answer();
        const started = await apiA('POST', '/teams/acme/sessions', { prompt: 'first' });
        expect(started.body.data.status).toBe('completed');
        const id = started.body.data.session_id as string;
        // A's turn, then B's, both held by the runtime: two turns in flight on two daemons.
        runtime.hold();
        void apiA('POST', `/teams/acme/sessions/${id}/messages`, { message: 'via-a' }).catch(() => undefined);
        await until(async () => runtime.turnsOf(id), (n) => n === 2);
        void apiB('POST', `/teams/acme/sessions/${id}/messages`, { message: 'via-b' }).catch(() => undefined);
        await until(async () => runtime.turnsOf(id), (n) => n === 3);
        expect(runtime.turnsOf(id)).toBe(3);

        const [dead, live] = dies === 'A' ? [a, apiB] : [b, apiA];
        dead.process.kill();
        await dead.process.exited;
        // Its claim expires (2 s) and the survivor's next pass (every 1 s) takes up its turn.
        await sleep(4500);
        expect((await read(live, id)).status).toBe('running');

        // The survivor's turn is answered: it was the last in flight.
        runtime.answer();
        const done = await until(() => read(live, id), (s) => s.status !== 'running');
        expect(done.status).toBe('completed');
        expect(contents(done)).toEqual(['first', 'answered', 'via-a', 'via-b', 'answered']);
      } finally {
        await runtime.close();
      }
    }, 90_000);
  }

  it('exec: A\'s turn runs, a follow-up runs on B, A killed: B\'s turn lives on and completes the session', async ({ fleet }) => {
    const { a, apiA, apiB } = await twoDaemons(fleet, ['--runner', 'exec', '--runner-command', 'sleep 60; echo from-a'], ['--runner', 'exec', '--runner-command', 'sleep 8; echo from-b']);
    const started = await apiA('POST', '/teams/acme/sessions', { prompt: 'first' });
    expect(started.body.data.status).toBe('running');
    const id = started.body.data.session_id as string;
    expect((await apiB('POST', `/teams/acme/sessions/${id}/messages`, { message: 'second' })).status).toBe(202);
    a.process.kill();
    await a.process.exited;
    // A's turn died with it; B's runs on: not failed, still running once A's claim is taken up.
    await sleep(4500);
    expect((await read(apiB, id)).status).toBe('running');
    const done = await until(() => read(apiB, id), (s) => s.status !== 'running');
    expect(done.status).toBe('completed');
    expect(contents(done)).toEqual(['first', 'second', 'from-b']);
  }, 90_000);

  it('exec: A\'s turn runs, a follow-up runs on B, B killed: A\'s turn completes the session, not failed by B\'s death', async ({ fleet }) => {
    const { b, apiA, apiB } = await twoDaemons(fleet, ['--runner', 'exec', '--runner-command', 'sleep 8; echo from-a'], ['--runner', 'exec', '--runner-command', 'sleep 60; echo from-b']);
    const started = await apiA('POST', '/teams/acme/sessions', { prompt: 'first' });
    expect(started.body.data.status).toBe('running');
    const id = started.body.data.session_id as string;
    expect((await apiB('POST', `/teams/acme/sessions/${id}/messages`, { message: 'second' })).status).toBe(202);
    b.process.kill();
    await b.process.exited;
    // B's turn died with it and is dropped; A's, still running, keeps the session running.
    await sleep(4500);
    expect((await read(apiA, id)).status).toBe('running');
    const done = await until(() => read(apiA, id), (s) => s.status !== 'running');
    expect(done.status).toBe('completed');
    expect(contents(done)).toEqual(['first', 'second', 'from-a']);
  }, 90_000);
});
