// `svc sessions ...` as the real bin/svc.js against a real daemon whose exec runner runs a small
// agent script: it answers each turn with the turn's message, fails when the prompt asks it to,
// and, when asked to be slow, holds its answer until the test lets it go (so a watcher sees the
// session running, however busy the machine).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINAL_STATUSES } from '../../cli/lib/transcript.js';
import { type CliSandbox, envFor, makeSandbox, runSvc, spawnSvc } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { plainText, ptyAvailable, runInPty, spawnInPty } from '../helpers/pty.js';

/** A slow turn answers once this file, beside the agent, exists: see releaseSlowTurns. */
const RELEASE_FILE = 'release';

const AGENT = `
const { existsSync } = require('node:fs');
const { join } = require('node:path');
let input = '';
process.stdin.on('data', (d) => (input += d)).on('end', () => {
  const turn = JSON.parse(input);
  if (turn.prompt.includes('please-fail')) {
    process.stderr.write('the agent gave up');
    process.exit(3);
  }
  const answer = () => process.stdout.write('answer to: ' + turn.message);
  if (!turn.message.includes('slow')) return answer();
  const released = setInterval(() => {
    if (existsSync(join(__dirname, '${RELEASE_FILE}'))) {
      clearInterval(released);
      answer();
    }
  }, 20);
});
`;

let d: TestDaemon;
let sb: CliSandbox;
let api: Requester;
let key: string;
let agentDir: string;

const svc = (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}) => runSvc(sb, args, opts);

/** A session started through the API (the tests of `svc sessions start` run the CLI). */
async function startSession(prompt: string): Promise<string> {
  const r = await api('POST', '/teams/acme/sessions', { prompt });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data.session_id;
}

/** Lets the slow turns answer: those under way, and any later one at once. */
async function releaseSlowTurns(): Promise<void> {
  await writeFile(join(agentDir, RELEASE_FILE), '');
}

/** Makes slow turns wait again for releaseSlowTurns. */
async function holdSlowTurns(): Promise<void> {
  await rm(join(agentDir, RELEASE_FILE), { force: true });
}

/** The session with its messages once it has a final status, polled through the API as `svc sessions watch` polls. */
async function waitUntilFinal(id: string) {
  for (;;) {
    const session = (await api('GET', `/teams/acme/sessions/${id}`)).body.data;
    if (FINAL_STATUSES.has(session.status)) return session;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  agentDir = await mkdtemp(join(tmpdir(), 'svc-agent-'));
  const agent = join(agentDir, 'agent.cjs');
  await writeFile(agent, AGENT);
  d = await startTestDaemon({ runner: 'exec', runnerCommand: `'${process.execPath}' '${agent}'` });
  ({ key, api } = await createTeam(d, 'acme'));
  sb = await makeSandbox({ env: envFor({ url: d.url, key, team: 'acme' }) });
});
afterAll(async () => {
  await d.destroy();
  await sb.cleanup();
  await rm(agentDir, { recursive: true, force: true });
});

describe('svc sessions start', () => {
  it('--interval without --watch is a usage error (exit 2), and nothing starts', async () => {
    const before = (await api('GET', '/teams/acme/sessions?limit=200')).body.data as unknown[];
    for (const args of [['sessions', 'start', '--prompt', 'not started', '--interval', '1'], ['sessions', 'message', '00000000-0000-4000-8000-000000000000', 'hi', '--interval', '1']]) {
      const r = await svc(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--interval goes with --watch');
    }
    expect((await api('GET', '/teams/acme/sessions?limit=200')).body.data).toHaveLength(before.length);
  });

  it('starts a session from --prompt and prints its fields, with how to follow it on stderr', async () => {
    const r = await svc(['sessions', 'start', '--prompt', 'Say hello']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ID:\s+[0-9a-f-]{36}$/m);
    expect(r.stdout).toMatch(/^Status:\s+(running|completed)$/m);
    expect(r.stderr).toMatch(/svc sessions watch [0-9a-f-]{36}/);
  });

  it('--json prints only the session', async () => {
    const r = await svc(['sessions', 'start', '--prompt', 'json please', '--json']);
    const s = r.json();
    expect(s).toMatchObject({ prompt: 'json please', kind: 'conversational', persona: 'main', automation_id: null });
    expect(['running', 'completed']).toContain(s.status);
  });

  it('reads the prompt from --prompt-file, or from stdin with --prompt-file -', async () => {
    const file = join(agentDir, 'prompt.md');
    await writeFile(file, 'From a file\nwith two lines\n');
    const fromFile = await svc(['sessions', 'start', '--prompt-file', file, '--json']);
    expect(fromFile.json().prompt).toBe('From a file\nwith two lines');
    const fromStdin = await svc(['sessions', 'start', '--prompt-file', '-', '--json'], { input: 'From stdin\n' });
    expect(fromStdin.json().prompt).toBe('From stdin');
  });

  it('usage errors (2): no prompt, both sources, a missing file; an empty prompt is invalid (5)', async () => {
    const none = await svc(['sessions', 'start']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--prompt');
    expect((await svc(['sessions', 'start', '--prompt', 'a', '--prompt-file', 'b'])).code).toBe(2);
    const empty = join(agentDir, 'empty.md');
    await writeFile(empty, '\n');
    expect((await svc(['sessions', 'start', '--prompt-file', empty])).code).toBe(5);
    const missing = await svc(['sessions', 'start', '--prompt-file', join(agentDir, 'nope.md')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });

  it('--environment takes a slug or an id; an unknown slug is refused as the daemon would (5)', async () => {
    const env = await d.admin('POST', '/admin/teams/acme/environments', { name: 'Staging', slug: 'staging' });
    const bySlug = await svc(['sessions', 'start', '--prompt', 'in staging', '--environment', 'staging', '--json']);
    expect(bySlug.json().environment_id).toBe(env.body.data.id);
    const byId = await svc(['sessions', 'start', '--prompt', 'by id', '--environment', env.body.data.id, '--json']);
    expect(byId.json().environment_id).toBe(env.body.data.id);
    const unknown = await svc(['sessions', 'start', '--prompt', 'x', '--environment', 'nowhere']);
    expect(unknown.code).toBe(5);
    expect(unknown.stderr).toContain("no environment 'nowhere'");
  });

  it('exits 8 for a team that is not admitted, and starts nothing', async () => {
    const closed = await createTeam(d, 'closed');
    await d.admin('PATCH', '/admin/teams/closed', { execution_admitted: false });
    const r = await svc(['sessions', 'start', '--prompt', 'not allowed'], { env: { SVC_API_KEY: closed.key, SVC_TEAM: 'closed' } });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/EXECUTION_DENIED, HTTP 402/);
    expect(r.stdout).toBe('');
    expect((await closed.api('GET', '/teams/closed/sessions')).body.data).toEqual([]);
  });

  it('--watch follows the new session to its end', async () => {
    const r = await svc(['sessions', 'start', '--prompt', 'watch me', '--watch', '--interval', '0.1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('answer to: watch me');
    expect(r.stderr).toMatch(/Session [0-9a-f-]{36} completed\./);
  });
});

describe('svc sessions watch', () => {
  it('prints the transcript as plain lines, prompt first, and exits 0 when the session completes', async () => {
    await holdSlowTurns();
    const id = await startSession('slow and steady');
    const watch = spawnSvc(sb, ['sessions', 'watch', id, '--interval', '0.1']);
    try {
      await watch.waitForStderr(/status: running/);
    } finally {
      await releaseSlowTurns();
    }
    const exit = await watch.exited;
    const r = { code: exit.code, stdout: watch.stdout(), stderr: watch.stderr() };
    expect(r.code, r.stderr).toBe(0);
    const prompt = r.stdout.indexOf('slow and steady');
    const answer = r.stdout.indexOf('answer to: slow and steady');
    expect(prompt).toBeGreaterThan(-1);
    expect(answer).toBeGreaterThan(prompt);
    expect(r.stdout).toMatch(/^── user · \S+ ──$/m);
    expect(r.stdout).toMatch(/^── assistant · \S+ ──$/m);
    expect(r.stdout).not.toContain('\u001b[');
    expect(r.stderr).toContain('status: completed');
    expect(r.stderr).toContain(`Session ${id} completed.`);
  });

  it('--json prints only the final session with its messages', async () => {
    const id = await startSession('json watch');
    const r = await svc(['sessions', 'watch', id, '--interval', '0.1', '--json']);
    expect(r.code).toBe(0);
    const s = r.json();
    expect(s.status).toBe('completed');
    expect(s.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  });

  it('exits 7 when the session fails, naming its error; --json still prints the session', async () => {
    const id = await startSession('please-fail now');
    const r = await svc(['sessions', 'watch', id, '--interval', '0.1']);
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`session ${id} failed: the runner command exited with code 3: the agent gave up`);
    const json = await svc(['sessions', 'watch', id, '--json']);
    expect(json.code).toBe(7);
    expect(json.json().status).toBe('failed');
  });

  it('an unknown session exits 4; a bad --interval is a usage error', async () => {
    expect((await svc(['sessions', 'watch', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
    expect((await svc(['sessions', 'watch', '00000000-0000-4000-8000-000000000000', '--interval', 'soon'])).code).toBe(2);
    expect((await svc(['sessions', 'watch', '00000000-0000-4000-8000-000000000000', '--interval', '0'])).code).toBe(2);
  });

  it('an empty id (a command substitution that printed nothing) is a usage error, before any request', async () => {
    const r = await svc(['sessions', 'watch', '']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the ID argument is empty');
  });

  it.skipIf(!ptyAvailable())('on a terminal shows a spinner while the session runs, then the transcript', async () => {
    await holdSlowTurns();
    const id = await startSession('slow on a terminal');
    const watch = spawnInPty(sb, ['sessions', 'watch', id, '--interval', '0.1']);
    try {
      await watch.waitFor(/Session [0-9a-f-]{36} is running…/);
    } finally {
      await releaseSlowTurns();
    }
    const r = await watch.exited;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Session [0-9a-f-]{36} is running…/);
    const text = plainText(r.output);
    expect(text).toContain('answer to: slow on a terminal');
    expect(text).toContain(`✓ Session ${id} completed.`);
  });
});

describe('svc sessions get', () => {
  it('shows the fields, then the transcript with the prompt first', async () => {
    const id = await startSession('tell me things');
    await waitUntilFinal(id);
    const r = await svc(['sessions', 'get', id]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^ID:\\s+${id}$`, 'm'));
    expect(r.stdout).toMatch(/^Status:\s+completed$/m);
    const user = r.stdout.indexOf('── user');
    const assistant = r.stdout.indexOf('── assistant');
    expect(user).toBeGreaterThan(-1);
    expect(assistant).toBeGreaterThan(user);
    expect(r.stdout.slice(user)).toContain('tell me things');
  });

  it('shows the event payload of a session an event started, before the messages', async () => {
    await api('POST', '/teams/acme/automations', {
      name: 'on deploy',
      prompt: 'Check the deploy',
      triggers: [{ kind: 'event', event_type: 'deploy.finished' }],
    });
    const sent = await api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy.finished', id: 'evt-42', data: { env: 'prod' } });
    expect(sent.status).toBeLessThan(300);
    const list = await svc(['sessions', 'list', '--json']);
    const session = (list.json() as { session_id: string; event: unknown }[]).find((s) => s.event !== null)!;
    const r = await svc(['sessions', 'get', session.session_id]);
    expect(r.code).toBe(0);
    const event = r.stdout.indexOf('── event ──');
    expect(event).toBeGreaterThan(-1);
    expect(r.stdout.indexOf('── user')).toBeGreaterThan(event);
    expect(r.stdout).toContain('"id": "evt-42"');
    expect(r.stdout).toContain('"env": "prod"');
  });

  it('--json prints only the session with its messages', async () => {
    const id = await startSession('json get');
    await waitUntilFinal(id);
    const s = (await svc(['sessions', 'get', id, '--json'])).json();
    expect(s.session_id).toBe(id);
    expect(s.messages[0]).toMatchObject({ role: 'user', content: 'json get' });
  });

  it('an unknown session exits 4; an id that is not a UUID exits 5', async () => {
    const unknown = await svc(['sessions', 'get', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(4);
    expect(unknown.stdout).toBe('');
    const malformed = await svc(['sessions', 'get', 'not-a-uuid']);
    expect(malformed.code).toBe(5);
    // The daemon names the route's parameter; the CLI says what on its command line that was.
    expect(malformed.stderr).toContain('(sessionId is the session id (a UUID: `svc sessions list` shows them) given on the command line.)');
  });
});

describe('svc sessions message', () => {
  it('sends a follow-up from --message (202: accepted) and the session answers it', async () => {
    const id = await startSession('first turn');
    await waitUntilFinal(id);
    const r = await svc(['sessions', 'message', id, '--message', 'second turn', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ accepted: true, session_id: id });
    const s = await waitUntilFinal(id);
    expect(s.messages.map((m: { content: string }) => m.content)).toEqual([
      'first turn',
      'answer to: first turn',
      'second turn',
      'answer to: second turn',
    ]);
  });

  it('takes the message as an argument, from stdin with -, or from --message-file', async () => {
    const id = await startSession('many ways');
    await waitUntilFinal(id);
    expect((await svc(['sessions', 'message', id, 'as an argument'])).code).toBe(0);
    await waitUntilFinal(id);
    expect((await svc(['sessions', 'message', id, '-'], { input: 'from stdin\n' })).code).toBe(0);
    await waitUntilFinal(id);
    const file = join(agentDir, 'message.txt');
    await writeFile(file, 'from a file\n');
    expect((await svc(['sessions', 'message', id, '--message-file', file])).code).toBe(0);
    const s = await waitUntilFinal(id);
    const users = s.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content);
    expect(users).toEqual(['many ways', 'as an argument', 'from stdin', 'from a file']);
  });

  it('refuses a blank message with exit 5, as the daemon would, naming where it came from', async () => {
    const id = await startSession('blank follow-ups');
    await waitUntilFinal(id);
    const arg = await svc(['sessions', 'message', id, '   ']);
    expect([arg.code, arg.stderr]).toEqual([5, expect.stringContaining('the text from the TEXT argument is empty')]);
    const flag = await svc(['sessions', 'message', id, '--message', ' ']);
    expect([flag.code, flag.stderr]).toEqual([5, expect.stringContaining('the text from --message is empty')]);
  });

  it('--watch prints only the new turn', async () => {
    const id = await startSession('original prompt');
    await waitUntilFinal(id);
    const r = await svc(['sessions', 'message', id, '--message', 'the follow-up', '--watch', '--interval', '0.1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('the follow-up');
    expect(r.stdout).toContain('answer to: the follow-up');
    expect(r.stdout).not.toContain('original prompt');
  });

  it('usage errors (2): no message, two sources; an empty message is invalid (5)', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const none = await svc(['sessions', 'message', id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('give the message: as an argument (TEXT, or - to read stdin), --message TEXT or --message-file PATH');
    expect((await svc(['sessions', 'message', id, 'text', '--message', 'again'])).code).toBe(2);
    expect((await svc(['sessions', 'message', id, '--message', '   '])).code).toBe(5);
  });

  it('a failed session refuses follow-ups (409: exit 5); an unknown one exits 4', async () => {
    const id = await startSession('please-fail first');
    await waitUntilFinal(id);
    const r = await svc(['sessions', 'message', id, '--message', 'still there?']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/CONFLICT, HTTP 409/);
    expect((await svc(['sessions', 'message', '00000000-0000-4000-8000-000000000000', '--message', 'x'])).code).toBe(4);
  });

  it('exits 8 when the team is no longer admitted', async () => {
    const t = await createTeam(d, 'paused-team');
    const env = { SVC_API_KEY: t.key, SVC_TEAM: 'paused-team' };
    const started = await svc(['sessions', 'start', '--prompt', 'before the pause', '--json'], { env });
    const id = started.json().session_id;
    await svc(['sessions', 'watch', id, '--interval', '0.1'], { env });
    await d.admin('PATCH', '/admin/teams/paused-team', { execution_admitted: false });
    const r = await svc(['sessions', 'message', id, '--message', 'after the pause'], { env });
    expect(r.code).toBe(8);
  });
});

describe('svc sessions list', () => {
  it('lists sessions newest first in aligned columns', async () => {
    const older = await startSession('older one');
    const newer = await startSession('newer one');
    const r = await svc(['sessions', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+CREATED\s+AUTOMATION\s+PROMPT$/);
    const at = (id: string) => lines.findIndex((l) => l.startsWith(id));
    expect(at(newer)).toBeGreaterThan(0);
    expect(at(older)).toBeGreaterThan(at(newer));
  });

  it('--status, --automation and --limit filter; --json prints only the array', async () => {
    const failed = await svc(['sessions', 'list', '--status', 'failed', '--json']);
    const rows = failed.json<{ status: string }[]>();
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((s) => s.status === 'failed')).toBe(true);

    const limited = await svc(['sessions', 'list', '--limit', '2', '--json']);
    expect(limited.json()).toHaveLength(2);
    const page = await svc(['sessions', 'list', '--limit', '2']);
    expect(page.stderr).toMatch(/^There are more: pass --all for every page, or --cursor \S+ for the next one\.$/m);

    const automations = (await api('GET', '/teams/acme/automations')).body.data as { id: string; name: string }[];
    const onDeploy = automations.find((a) => a.name === 'on deploy')!;
    const byAutomation = await svc(['sessions', 'list', '--automation', onDeploy.id, '--json']);
    const started = byAutomation.json<{ automation_id: string }[]>();
    expect(started.length).toBeGreaterThan(0);
    expect(started.every((s) => s.automation_id === onDeploy.id)).toBe(true);
  });

  it('pages under --json too: the cursor on stderr continues the same filters, and --all gets every page', async () => {
    const all = (await svc(['sessions', 'list', '--all', '--json'])).json<{ session_id: string; status: string }[]>();
    const completed = all.filter((s) => s.status === 'completed').map((s) => s.session_id);
    expect(completed.length).toBeGreaterThan(2);

    const first = await svc(['sessions', 'list', '--status', 'completed', '-L', '2', '--json']);
    const cursor = /--cursor (\S+) for the next one/.exec(first.stderr)?.[1];
    expect(cursor, first.stderr).toBeDefined();
    const second = await svc(['sessions', 'list', '--status', 'completed', '-L', '2', '--cursor', cursor!, '--json']);
    const ids = [...first.json<{ session_id: string }[]>(), ...second.json<{ session_id: string }[]>()].map((s) => s.session_id);
    expect(ids).toEqual(completed.slice(0, ids.length));
    expect((await svc(['sessions', 'list', '--status', 'completed', '--all', '--json'])).json<{ session_id: string }[]>().map((s) => s.session_id)).toEqual(completed);
    const both = await svc(['sessions', 'list', '--all', '--cursor', cursor!]);
    expect(both.code).toBe(2);
  });

  it('--automation also takes the automation\'s name', async () => {
    const byName = await svc(['sessions', 'list', '--automation', 'On Deploy', '--json']);
    expect(byName.code, byName.stderr).toBe(0);
    expect(byName.json().length).toBeGreaterThan(0);
    const unknown = await svc(['sessions', 'list', '--automation', 'no such automation']);
    expect(unknown.code).toBe(4);
  });

  it('--automation with an id: a mistyped one exits 4; one deleted since still lists its sessions', async () => {
    const mistyped = await svc(['sessions', 'list', '--automation', '00000000-0000-4000-8000-000000000000', '--json']);
    expect(mistyped.code).toBe(4);
    expect(mistyped.stdout).toBe('');
    expect(mistyped.stderr).toContain('no automation with id 00000000-0000-4000-8000-000000000000 in team acme, and no sessions that one started');

    const created = await api('POST', '/teams/acme/automations', { name: 'short-lived', prompt: 'p', triggers: [{ kind: 'event', event_type: 'never.sent' }] });
    const id = (created.body.data as { id: string }).id;
    expect((await api('POST', `/teams/acme/automations/${id}/runs`)).status).toBe(201);
    expect((await api('DELETE', `/teams/acme/automations/${id}`)).status).toBe(200);
    const deleted = await svc(['sessions', 'list', '--automation', id, '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.json<{ automation_id: string }[]>().map((s) => s.automation_id)).toEqual([id]);
  });

  it.skipIf(!ptyAvailable())('on a 100-column terminal keeps session ids whole, names automations and cuts prompts to fit', async () => {
    await startSession(`a long prompt ${'that goes on '.repeat(20)}`);
    const r = await runInPty(sb, ['sessions', 'list', '--limit', '200'], { columns: 100 });
    expect(r.code, r.output).toBe(0);
    const lines = plainText(r.output).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+CREATED\s+AUTOMATION\s+PROMPT$/);
    for (const line of lines.slice(1)) {
      expect(line).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s/);
      expect(Array.from(line).length).toBeLessThanOrEqual(100);
    }
    expect(lines.some((l) => /\son deploy\s/.test(l)), plainText(r.output)).toBe(true);
    // Where the prompt is cut depends on the CREATED column: 'just now', or '1 minute ago' for
    // sessions of a test file slowed down by a busy machine.
    expect(lines.some((l) => /\sa long prompt.*…$/.test(l)), plainText(r.output)).toBe(true);
  });

  it.skipIf(!ptyAvailable())('on a terminal shows the whole id of an automation deleted since, never a cut one', async () => {
    const a = (await api('POST', '/teams/acme/automations', { name: 'gone soon', prompt: 'p', event_type: 'never.sent' })).body.data;
    await api('POST', `/teams/acme/automations/${a.id}/runs`);
    await api('DELETE', `/teams/acme/automations/${a.id}`);
    const r = await runInPty(sb, ['sessions', 'list', '--automation', a.id, '--limit', '5'], { columns: 200 });
    expect(r.code, r.output).toBe(0);
    expect(plainText(r.output)).toContain(` ${a.id} `);
  });

  it('--cursor continues where the previous page ended', async () => {
    const first = await svc(['sessions', 'list', '--limit', '1']);
    const cursor = /--cursor (\S+)/.exec(first.stderr)![1];
    const firstId = (await svc(['sessions', 'list', '--limit', '1', '--json'])).json()[0].session_id;
    const next = await svc(['sessions', 'list', '--limit', '1', '--cursor', cursor, '--json']);
    expect(next.json()[0].session_id).not.toBe(firstId);
  });

  it('a bad --status or --limit is a usage error (2)', async () => {
    expect((await svc(['sessions', 'list', '--status', 'sleeping'])).code).toBe(2);
    expect((await svc(['sessions', 'list', '--limit', '0'])).code).toBe(2);
    expect((await svc(['sessions', 'list', '--limit', '201'])).code).toBe(2);
  });

  it('without a key exits 3', async () => {
    const r = await svc(['sessions', 'list'], { env: { SVC_API_KEY: undefined } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/svc login/);
  });
});
