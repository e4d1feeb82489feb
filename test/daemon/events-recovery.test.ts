// Event sessions a crash left queued (stored and counted by dispatch, never handed over) and the
// runner refuses when the next daemon start hands them over: the receipt and the trigger counters
// must end as dispatch leaves them when the runner refuses at once. The data folder is put in the
// state such a crash leaves through the real store while no daemon runs, then a daemon with a
// webhook runner (a real local server) starts on it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../daemon/logger.js';
import { openStore } from '../../daemon/store/index.js';
import { createTeam, makeDataDir, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';

let runtime: Server;
let d: TestDaemon;
let api: Requester;
const automations: Record<'refused' | 'taken', string> = { refused: '', taken: '' };
const receivedAt: Record<string, string> = {};
const EARLIER_FAILURE = 'session start failed for "gone; odd \\"name\\"": environment_id is not an environment of this team';

/** Refuses the turns of the automation whose prompt says so, and every turn of events whose id has `down`. */
function startRuntime(): Promise<string> {
  runtime = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const turn = JSON.parse(body) as { prompt: string; event: { id: string } | null };
      const refuse = turn.prompt.includes('refuse') || String(turn.event?.id).includes('down');
      res.writeHead(refuse ? 503 : 200, { 'content-type': 'application/json' }).end(refuse ? '{"error":"busy"}' : '{"message":"done"}');
    });
  });
  return new Promise((resolve) => runtime.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(runtime.address() as AddressInfo).port}/turns`)));
}

beforeAll(async () => {
  const dataDir = await makeDataDir();
  const first = await startTestDaemon({ dataDir });
  const team = await createTeam(first, 'acme');
  for (const [which, prompt] of [['refused', 'refuse this one'], ['taken', 'take this one']] as const) {
    const created = await team.api('POST', '/teams/acme/automations', { name: which, prompt, event_type: 'deploy' });
    automations[which] = created.body.data.id;
  }
  for (const id of ['ok-1', 'half-2', 'down-3']) {
    const sent = await team.api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy', id });
    expect(sent.body.data.dispatched).toHaveLength(2);
  }
  await first.close();

  // The crash: the sessions of the last two events are stored and counted, never handed over.
  const store = await openStore({ dataDir, logger: createLogger('silent') });
  await store.write(async (tx) => {
    for (const receipt of await tx.list('events')) {
      receivedAt[receipt.event_id] = receipt.received_at;
      if (receipt.event_id === 'ok-1') continue;
      // A third automation whose session could not even be stored (its environment gone, say).
      if (receipt.event_id === 'half-2') tx.put('events', { ...receipt, reason: `${receipt.reason}; ${EARLIER_FAILURE}` });
      for (const s of await tx.list('sessions', { team_id: receipt.team_id })) {
        if (s.event_row_id !== receipt.id) continue;
        for (const m of await tx.list('messages', { session_id: s.session_id })) tx.delete('messages', m.id);
        tx.put('sessions', { ...s, status: 'queued', started_at: null, completed_at: null, runner: null });
      }
    }
  });
  await store.close();

  d = await startTestDaemon({ dataDir, runner: 'webhook', runnerUrl: await startRuntime(), runnerSecret: 'test-secret' });
  api = d.as(team.key);
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

async function receipt(eventId: string) {
  const list = (await api('GET', '/teams/acme/events')).body.data as { id: string; accepted: boolean; dispatched: { automationId: string }[]; reason: string }[];
  return list.find((e) => e.id === eventId)!;
}

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

  it('take their runs back from the triggers, last_run_at going back to the last run the runner took', async () => {
    expect(await trigger('refused')).toEqual({ total_runs: 1, last_run_at: receivedAt['ok-1'], automation_runs: 1 });
    expect(await trigger('taken')).toEqual({ total_runs: 2, last_run_at: receivedAt['half-2'], automation_runs: 2 });
  });

  it('fail the refused sessions with the refusal, and count the failures against their automations', async () => {
    const failed = (await api('GET', `/teams/acme/sessions?status=failed`)).body.data as { automation_id: string; last_error: string }[];
    expect(failed.map((s) => s.automation_id).sort()).toEqual([automations.refused, automations.refused, automations.taken].sort());
    for (const s of failed) expect(s.last_error).toMatch(/^the runner could not start the session: /);
    const a = (await api('GET', `/teams/acme/automations/${automations.refused}`)).body.data;
    expect(a.last_error).toMatch(/^the runner could not start the session: /);
  });
});
