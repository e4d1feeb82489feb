// Event sessions a crash left queued (stored and counted by dispatch, never handed over) and the
// runner refuses when the next daemon start hands them over: the receipts must end as dispatch
// leaves them when the runner refuses at once. The daemon's store is put in the
// state such a crash leaves through the real store while no daemon runs, then a daemon with a
// webhook runner (a real local server) starts on it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WriteTx } from '../../daemon/store/store.js';
import type { EventRow } from '../../daemon/store/tables.js';
import { createTeam, makeDataDir, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { openTestStore } from '../helpers/test-store.js';

let runtime: Server;
let d: TestDaemon;
let api: Requester;
const automations: Record<'refused' | 'taken', string> = { refused: '', taken: '' };
const receivedAt: Record<string, string> = {};
const EARLIER = { name: 'gone; session start failed for "x"', message: 'environment_id is not an environment of this team' };
const EARLIER_FAILURE = `session start failed for ${JSON.stringify(EARLIER.name)}: ${EARLIER.message}`;

/**
 * Refuses the turns of the automation whose prompt says so, and every turn of events whose id has
 * `down`; answers the turns of events whose id has `slow` after a while.
 */
function startRuntime(): Promise<string> {
  runtime = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const turn = JSON.parse(body) as { prompt: string; event: { id: string } | null };
      const id = String(turn.event?.id);
      const refuse = turn.prompt.includes('refuse') || id.includes('down');
      const answer = () => res.writeHead(refuse ? 503 : 200, { 'content-type': 'application/json' }).end(refuse ? '{"error":"busy"}' : '{"message":"done"}');
      if (id.includes('slow')) setTimeout(answer, 800);
      else answer();
    });
  });
  return new Promise((resolve) => runtime.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(runtime.address() as AddressInfo).port}/turns`)));
}

/**
 * A data folder as a crash leaves it: `sent` event ids delivered (record runner) to two
 * automations, one whose prompt asks the runtime to refuse it; then the sessions of the events
 * `requeue` names set back to queued (stored and counted, never handed over). `edit` may change
 * each first receipt in the same write. Returns the team's key and each event id's first receipt time.
 */
async function crashedDataDir(sent: string[], requeue: (eventId: string) => boolean, edit?: (tx: WriteTx, receipt: EventRow) => void) {
  const dataDir = await makeDataDir();
  const first = await startTestDaemon({ dataDir });
  const team = await createTeam(first, 'acme');
  const ids: Record<'refused' | 'taken', string> = { refused: '', taken: '' };
  for (const [which, prompt] of [['refused', 'refuse this one'], ['taken', 'take this one']] as const) {
    const created = await team.api('POST', '/teams/acme/automations', { name: which, prompt, event_type: 'deploy' });
    ids[which] = created.body.data.id;
  }
  for (const id of sent) {
    const answer = await team.api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy', id });
    expect(answer.body.data.dispatched).toHaveLength(2);
  }
  await first.close();
  const firstAt: Record<string, string> = {};
  const store = await openTestStore(dataDir);
  await store.write(async (tx) => {
    for (const receipt of await tx.list('events')) {
      if (firstAt[receipt.event_id] !== undefined) continue; // a retry's receipt
      firstAt[receipt.event_id] = receipt.received_at;
      if (!requeue(receipt.event_id)) continue;
      edit?.(tx, receipt);
      for (const s of await tx.list('sessions', { team_id: receipt.team_id })) {
        if (s.event_row_id !== receipt.id) continue;
        for (const m of await tx.list('messages', { session_id: s.session_id })) tx.delete('messages', m.id);
        tx.put('sessions', { ...s, status: 'queued', started_at: null, completed_at: null, runner: null });
      }
    }
  });
  await store.close();
  return { dataDir, key: team.key, automations: ids, receivedAt: firstAt };
}

let runtimeUrl: string;
const startOnCrashed = (dataDir: string) => startTestDaemon({ dataDir, runner: 'webhook', runnerUrl: runtimeUrl, runnerSecret: 'test-secret' });

beforeAll(async () => {
  runtimeUrl = await startRuntime();
  // half-2 is delivered twice: the retry finds the sessions the first delivery started.
  const crashed = await crashedDataDir(['ok-1', 'half-2', 'half-2', 'down-3'], (id) => id !== 'ok-1', (tx, receipt) => {
    // A third automation whose session could not even be stored (its environment gone, say).
    if (receipt.event_id === 'half-2') tx.put('events', { ...receipt, reason: `${receipt.reason}; ${EARLIER_FAILURE}`, failures: [EARLIER] });
  });
  Object.assign(automations, crashed.automations);
  Object.assign(receivedAt, crashed.receivedAt);
  d = await startOnCrashed(crashed.dataDir);
  api = d.as(crashed.key);
  // Recovery runs as the daemon starts: wait until no session is left queued.
  const until = Date.now() + 20_000;
  while ((await api('GET', '/teams/acme/sessions?status=queued')).body.data.length > 0) {
    if (Date.now() > until) throw new Error('sessions still queued');
    await new Promise((r) => setTimeout(r, 25));
  }
}, 60_000);
afterAll(async () => {
  await d?.destroy();
  await new Promise((resolve) => runtime?.close(resolve));
});

describe('a retry of an event while the restart is still handing its sessions over', () => {
  it('waits for the runner, and is answered with the refusal', async () => {
    // slow-1's sessions are handed over first and the runtime takes 800 ms over them, so the
    // retry of down-2 arrives before recovery has even begun handing down-2's sessions over.
    const crashed = await crashedDataDir(['slow-1', 'down-2'], () => true);
    const restarted = await startOnCrashed(crashed.dataDir);
    const retry = await restarted.as(crashed.key)('POST', '/teams/acme/webhooks/events', { event_type: 'deploy', id: 'down-2' });
    await restarted.destroy();
    expect(retry.status).toBe(502);
    expect(retry.body.error.code).toBe('SESSION_START_FAILED');
    expect(retry.body.error.message).toMatch(/on an earlier delivery of event id "down-2"; send the event with a new id to try again/);
  }, 60_000);
});

type Receipt = { id: string; accepted: boolean; dispatched: { automationId: string }[]; reason: string };

/** The receipts of an event id, first delivery first. */
async function receipts(eventId: string): Promise<Receipt[]> {
  const list = (await api('GET', '/teams/acme/events')).body.data as Receipt[];
  return list.filter((e) => e.id === eventId).reverse();
}
const receipt = async (eventId: string) => (await receipts(eventId))[0];

async function trigger(which: 'refused' | 'taken') {
  const a = (await api('GET', `/teams/acme/automations/${automations[which]}`)).body.data;
  return { total_runs: a.triggers[0].total_runs as number, last_run_at: a.triggers[0].last_run_at as string | null, automation_runs: a.total_runs as number };
}

const refusal = (name: string) => `session start failed for "${name}": the runner could not start the session: [^;]* \\(handed over when the daemon restarted\\)`;

describe('event sessions refused when a restart hands them over', () => {
  it('leave the receipt naming only the automations the runner took, and why the others did not start', async () => {
    const half = await receipt('half-2');
    expect(half.accepted).toBe(true);
    expect(half.dispatched.map((x) => x.automationId)).toEqual([automations.taken]);
    expect(half.reason.startsWith(`dispatched to 1 automation; ${EARLIER_FAILURE}; `)).toBe(true);
    expect(half.reason.slice(`dispatched to 1 automation; ${EARLIER_FAILURE}; `.length)).toMatch(new RegExp(`^${refusal('refused')}$`));
  });

  it('leave a later delivery of the event id that found those sessions saying it started nothing for them', async () => {
    const [, retry] = await receipts('half-2');
    expect(retry.accepted).toBe(true);
    expect(retry.dispatched.map((x) => x.automationId)).toEqual([automations.taken]);
    expect(retry.reason).toMatch(
      new RegExp(
        '^dispatched to 1 automation \\(1 already dispatched for event id "half-2": no new session\\); ' +
          'session start failed for "refused": the runner could not start the session: [^;]* ' +
          '\\(on an earlier delivery of event id "half-2"; send the event with a new id to try again\\)$',
      ),
    );
  });

  it('leave a receipt whose every session was refused not accepted, with nothing dispatched', async () => {
    const down = await receipt('down-3');
    expect(down.accepted).toBe(false);
    expect(down.dispatched).toEqual([]);
    expect(down.reason).toMatch(new RegExp(`^nothing dispatched; ${refusal('refused')}; ${refusal('taken')}$`));
  });

  it('leave an event whose sessions were handed over before the crash as it was', async () => {
    const ok = await receipt('ok-1');
    expect(ok.accepted).toBe(true);
    expect(ok.dispatched).toHaveLength(2);
    expect(ok.reason).toBe('dispatched to 2 automations');
  });

  it('keep their runs counted: a refused session is a failed run, as a refused scheduled run is', async () => {
    // One session each for ok-1, half-2 (its retry found it) and down-3.
    expect(await trigger('refused')).toEqual({ total_runs: 3, last_run_at: receivedAt['down-3'], automation_runs: 3 });
    expect(await trigger('taken')).toEqual({ total_runs: 3, last_run_at: receivedAt['down-3'], automation_runs: 3 });
  });

  it('fail the refused sessions with the refusal, and count the failures against their automations', async () => {
    const failed = (await api('GET', `/teams/acme/sessions?status=failed`)).body.data as { automation_id: string; last_error: string }[];
    expect(failed.map((s) => s.automation_id).sort()).toEqual([automations.refused, automations.refused, automations.taken].sort());
    for (const s of failed) expect(s.last_error).toMatch(/^the runner could not start the session: /);
    const a = (await api('GET', `/teams/acme/automations/${automations.refused}`)).body.data;
    expect(a.last_error).toMatch(/^the runner could not start the session: /);
  });
});
