// The exec runner with real child processes: stdin, environment, stdout, failures, timeouts,
// the concurrency limit, turn order within a session, and shutdown.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecRunner } from '../../daemon/runner/exec.js';
import { RunnerRefused, type Turn, type TurnReporter } from '../../daemon/runner/runner.js';
import { createTeam, makeDataDir, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { processAlive } from '../helpers/process-alive.js';

// One agent script; the turn's message says what it does: "<verb> <arg>".
const AGENT = String.raw`
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const { spawn } = require('node:child_process');
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const turn = JSON.parse(input);
  const [verb, arg] = turn.message.split(' ');
  switch (verb) {
    case 'echo':
      process.stdout.write(JSON.stringify(turn));
      break;
    case 'env':
      process.stdout.write(JSON.stringify({
        keys: Object.keys(process.env),
        session: process.env.SVC_SESSION_ID,
        plain: process.env.PLAIN_VAR,
        plainSha: createHash('sha256').update(process.env.PLAIN_VAR || '').digest('hex'),
        secret: process.env.SECRET_VAR,
        secretSha: createHash('sha256').update(process.env.SECRET_VAR || '').digest('hex'),
      }));
      break;
    case 'fail':
      process.stdout.write('partial answer');
      process.stderr.write('something broke near ' + (process.env[arg] || 'nothing') + '\n');
      process.exit(3);
    case 'trimmed':
      // as $(printenv NAME) would print it: without its trailing newline
      process.stdout.write(process.env[arg].trimEnd());
      break;
    case 'straddle': {
      // the value crosses the 1 MiB cut of stdout, or the start of the stderr tail
      const value = process.env[arg];
      process.stdout.write('x'.repeat(1048576 - 10) + value + 'y'.repeat(100));
      process.stderr.write(value + 'z'.repeat(4096 - 10));
      process.exitCode = 4; // not exit(): that would cut the pipes short
      break;
    }
    case 'hang': {
      const grandchild = spawn('sleep', ['60'], { stdio: 'ignore' });
      fs.writeFileSync(arg, process.pid + ' ' + grandchild.pid);
      setInterval(() => {}, 1000);
      break;
    }
    case 'detach': {
      // left running in the background, its output sent elsewhere, as \`cmd >/dev/null 2>&1 &\` does
      const background = spawn('sleep', ['60'], { stdio: 'ignore' });
      fs.writeFileSync(arg, String(background.pid));
      background.unref();
      process.stdout.write('parent done');
      break;
    }
    case 'wait': {
      const poll = () => (fs.existsSync(arg) ? process.stdout.write('released ' + arg) : setTimeout(poll, 20));
      poll();
      break;
    }
    case 'log':
      fs.appendFileSync(arg, 'start ' + turn.session.session_id + '\n');
      setTimeout(() => {
        fs.appendFileSync(arg, 'end ' + turn.session.session_id + '\n');
        process.stdout.write('logged');
      }, 200);
      break;
    default:
      process.stdout.write('ok: ' + turn.message + '\n\n');
  }
});
`;

let scratch: string;
let command: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-exec-'));
  await writeFile(join(scratch, 'agent.cjs'), AGENT);
  command = `"${process.execPath}" "${join(scratch, 'agent.cjs')}"`;
});
afterAll(() => rm(scratch, { recursive: true, force: true }));

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, deadlineMs = 20_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function settled(api: Requester, slug: string, id: string) {
  return waitFor(`session ${id} to finish`, async () => {
    const res = await api('GET', `/teams/${slug}/sessions/${id}`);
    return TERMINAL.has(res.body.data.status) ? res.body.data : undefined;
  });
}

describe('exec runner turns', () => {
  let d: TestDaemon;
  let api: Requester;
  const slug = 'exec';
  const sessions = `/teams/${slug}/sessions`;

  beforeAll(async () => {
    process.env.SVC_ADMIN_TOKEN_LEAK_PROBE = 'must-not-leak';
    d = await startTestDaemon({ runner: 'exec', runnerCommand: command, runnerTimeoutMs: 20_000 });
    ({ api } = await createTeam(d, slug));
    await api('PUT', `/teams/${slug}/env-vars/PLAIN_VAR`, { value: 'plain-value-123', is_secret: false });
    await api('PUT', `/teams/${slug}/env-vars/SECRET_VAR`, { value: 'hunter2-very-secret' });
  });
  afterAll(async () => {
    delete process.env.SVC_ADMIN_TOKEN_LEAK_PROBE;
    await d.destroy();
  });

  it('answers 201 running once the command started, then completes with stdout as the assistant message', async () => {
    const res = await api('POST', sessions, { prompt: 'hello there' });
    expect(res.status).toBe(201);
    expect(['running', 'completed']).toContain(res.body.data.status);
    const s = await settled(api, slug, res.body.data.session_id);
    expect(s.status).toBe('completed');
    expect(s.last_error).toBeNull();
    expect(s.messages.map((m: any) => [m.role, m.content])).toEqual([
      ['user', 'hello there'],
      ['assistant', 'ok: hello there'],
    ]);
  });

  it('writes the turn JSON {session, prompt, message, event} to stdin', async () => {
    const res = await api('POST', sessions, { prompt: 'echo' });
    const s = await settled(api, slug, res.body.data.session_id);
    const turn = JSON.parse(s.messages[1].content);
    expect(Object.keys(turn).sort()).toEqual(['event', 'message', 'prompt', 'session']);
    expect(turn).toMatchObject({ prompt: 'echo', message: 'echo', event: null });
    expect(turn.session).toMatchObject({ session_id: s.session_id, kind: 'conversational', persona: 'main', status: 'running' });
    expect(turn.session.started_at).toEqual(expect.any(String));
  });

  it("gives the command SVC_SESSION_ID and the environment's decrypted variables, nothing of the daemon's own, and redacts every value from the answer", async () => {
    const res = await api('POST', sessions, { prompt: 'env' });
    const s = await settled(api, slug, res.body.data.session_id);
    expect(s.status).toBe('completed');
    const seen = JSON.parse(s.messages[1].content);
    expect(seen.session).toBe(s.session_id);
    // The command had both values; the stored answer holds neither (CONTRACT §7: no route ever
    // returns a value, is_secret or not).
    expect(seen.plainSha).toBe(createHash('sha256').update('plain-value-123').digest('hex'));
    expect(seen.plain).toBe('[redacted]');
    expect(JSON.stringify(s)).not.toContain('plain-value-123');
    expect(seen.secretSha).toBe(createHash('sha256').update('hunter2-very-secret').digest('hex'));
    expect(seen.secret).toBe('[redacted]');
    expect(seen.keys).toEqual(expect.arrayContaining(['PATH', 'HOME', 'SVC_SESSION_ID', 'PLAIN_VAR', 'SECRET_VAR']));
    expect(seen.keys).not.toContain('SVC_ADMIN_TOKEN_LEAK_PROBE');
    expect(seen.keys.filter((k: string) => /^SVC_/.test(k))).toEqual(['SVC_SESSION_ID']);
  });

  it('fails the session on a non-zero exit with the stderr tail in last_error, every env value redacted', async () => {
    for (const which of ['SECRET_VAR', 'PLAIN_VAR']) {
      const res = await api('POST', sessions, { prompt: `fail ${which}` });
      const s = await settled(api, slug, res.body.data.session_id);
      expect(s.status).toBe('failed');
      expect(s.last_error).toContain('exited with code 3');
      expect(s.last_error).toContain('something broke near [redacted]');
      expect(s.last_error).not.toContain('hunter2');
      expect(s.last_error).not.toContain('plain-value-123');
      expect(s.completed_at).not.toBeNull();
      // what it printed before failing is kept as the answer
      expect(s.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'partial answer' });
    }
  });

  it('masks a value printed without its trailing newline (a PEM key through $(...))', async () => {
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n';
    await api('PUT', `/teams/${slug}/env-vars/PEM_KEY`, { value: pem });
    const res = await api('POST', sessions, { prompt: 'trimmed PEM_KEY' });
    const s = await settled(api, slug, res.body.data.session_id);
    expect(s.status).toBe('completed');
    expect(s.messages[1].content).toBe('[redacted]');
    expect(JSON.stringify(s)).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
  });

  it('masks a value that crosses the 1 MiB cut of the answer or the start of the stderr tail', async () => {
    const res = await api('POST', sessions, { prompt: 'straddle SECRET_VAR' });
    const s = await settled(api, slug, res.body.data.session_id);
    expect(s.status).toBe('failed');
    const answer: string = s.messages.at(-1).content;
    // (its tail only: a failing match would print the whole megabyte)
    expect(answer.slice(-60)).toBe(`xxxx[redacted]\n[output truncated at 1048576 bytes]`.padStart(60, 'x'));
    expect(answer.includes('hunter2')).toBe(false);
    expect(s.last_error).not.toContain('hunter2');
    expect(s.last_error).toMatch(/exited with code 4: z+$/);
  });

  it('answers 502 SESSION_START_FAILED when the command cannot be spawned at hand-over, and keeps the session failed', async () => {
    const { api: bad } = await createTeam(d, 'exec-big');
    // More than Linux lets a process start with (at most 6 MiB of arguments and environment,
    // whatever the stack limit): each value is allowed, all of them together are not.
    const value = `before${'v'.repeat(65_536 - 'before'.length)}`;
    for (let i = 0; i < 100; i++) expect((await bad('PUT', `/teams/exec-big/env-vars/BIG_${i}`, { value })).status).toBe(200);
    const res = await bad('POST', '/teams/exec-big/sessions', { prompt: 'hello' });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('SESSION_START_FAILED');
    expect(res.body.error.message).toMatch(/^the runner could not start the session: could not start the runner command \(E2BIG: the session environment's variables, \d+ bytes in all, are more than the system lets a process start with; make them smaller or fewer\)$/);
    expect(res.body.error.message).not.toContain('before');
    const [failed] = (await bad('GET', '/teams/exec-big/sessions')).body.data;
    expect(failed).toMatchObject({ status: 'failed', prompt: 'hello' });
    expect(failed.last_error).toContain('could not start the runner command');
  });

  it('answers 409 to a follow-up on a failed session', async () => {
    const res = await api('POST', sessions, { prompt: 'fail X' });
    await settled(api, slug, res.body.data.session_id);
    const follow = await api('POST', `${sessions}/${res.body.data.session_id}/messages`, { message: 'again' });
    expect(follow.status).toBe(409);
    expect(follow.body.error.code).toBe('CONFLICT');
  });

  it('makes a completed session running again for a follow-up, and completed when that turn ends', async () => {
    const first = await api('POST', sessions, { prompt: 'hi' });
    const id = first.body.data.session_id;
    await settled(api, slug, id);
    const release = join(scratch, 'release-followup');
    const follow = await api('POST', `${sessions}/${id}/messages`, { message: `wait ${release}` });
    expect(follow.status).toBe(202);
    const during = await api('GET', `${sessions}/${id}`);
    expect(during.body.data.status).toBe('running');
    expect(during.body.data.completed_at).toBeNull();
    await writeFile(release, '');
    const s = await settled(api, slug, id);
    expect(s.status).toBe('completed');
    expect(s.messages.map((m: any) => m.content)).toEqual(['hi', 'ok: hi', `wait ${release}`, `released ${release}`]);
  });

  it('accepts follow-ups while a turn runs and runs them after it, in order', async () => {
    const release = join(scratch, 'release-queue');
    const res = await api('POST', sessions, { prompt: `wait ${release}` });
    const id = res.body.data.session_id;
    expect(res.body.data.status).toBe('running');
    expect((await api('POST', `${sessions}/${id}/messages`, { message: 'second' })).status).toBe(202);
    expect((await api('POST', `${sessions}/${id}/messages`, { message: 'third' })).status).toBe(202);
    await writeFile(release, '');
    const s = await waitFor('three answers', async () => {
      const got = (await api('GET', `${sessions}/${id}`)).body.data;
      return got.status === 'completed' ? got : undefined;
    });
    expect(s.messages.filter((m: any) => m.role === 'assistant').map((m: any) => m.content)).toEqual([
      `released ${release}`,
      'ok: second',
      'ok: third',
    ]);
  });

  it('fails the session on a failed turn and runs none of the follow-ups queued behind it, saying how many', async () => {
    const release = join(scratch, 'release-dropped');
    const id = (await api('POST', sessions, { prompt: `wait ${release}` })).body.data.session_id;
    expect((await api('POST', `${sessions}/${id}/messages`, { message: 'fail NOTHING' })).status).toBe(202);
    expect((await api('POST', `${sessions}/${id}/messages`, { message: 'never run' })).status).toBe(202);
    expect((await api('POST', `${sessions}/${id}/messages`, { message: 'nor this' })).status).toBe(202);
    await writeFile(release, '');
    const s = await settled(api, 'exec', id);
    expect(s.status).toBe('failed');
    expect(s.last_error).toMatch(/^the runner command exited with code 3: something broke near nothing \(2 follow-up turns queued behind it did not run\)$/);
    expect(s.messages.filter((m: any) => m.role === 'assistant').map((m: any) => m.content)).toEqual([`released ${release}`, 'partial answer']);
  });
});

describe('exec runner limits', () => {
  it('kills the whole process group when a turn runs past the timeout and fails the session', async () => {
    const d = await startTestDaemon({ runner: 'exec', runnerCommand: command, runnerTimeoutMs: 1500 });
    try {
      const { api } = await createTeam(d, 'slow');
      const pidFile = join(scratch, 'hang-timeout');
      const res = await api('POST', '/teams/slow/sessions', { prompt: `hang ${pidFile}` });
      expect(res.status).toBe(201);
      const s = await settled(api, 'slow', res.body.data.session_id);
      expect(s.status).toBe('failed');
      expect(s.last_error).toMatch(/timed out after 1500 ms/);
      const [child, grandchild] = (await readFile(pidFile, 'utf8')).split(' ').map(Number);
      await waitFor('the process group to be gone', async () => (!processAlive(child) && !processAlive(grandchild) ? true : undefined), 5000);
    } finally {
      await d.destroy();
    }
  });

  it('ends what a turn left running in the background once the turn is over', async () => {
    const d = await startTestDaemon({ runner: 'exec', runnerCommand: command });
    try {
      const { api } = await createTeam(d, 'bg');
      const pidFile = join(scratch, 'detached');
      const res = await api('POST', '/teams/bg/sessions', { prompt: `detach ${pidFile}` });
      const s = await settled(api, 'bg', res.body.data.session_id);
      expect(s.status).toBe('completed');
      const background = Number(await readFile(pidFile, 'utf8'));
      await waitFor('the background process to be gone', async () => (!processAlive(background) ? true : undefined), 5000);
    } finally {
      await d.destroy();
    }
  });

  it('runs at most runnerConcurrency commands at once; the others wait and still complete', async () => {
    const d = await startTestDaemon({ runner: 'exec', runnerCommand: command, runnerConcurrency: 1 });
    try {
      const { api } = await createTeam(d, 'one');
      const log = join(scratch, 'concurrency.log');
      const started = await Promise.all([1, 2, 3].map(() => api('POST', '/teams/one/sessions', { prompt: `log ${log}` })));
      expect(started.map((r) => r.status)).toEqual([201, 201, 201]);
      // a turn waiting for a slot is already handed over: the session shows running
      expect(started.every((r) => r.body.data.status === 'running')).toBe(true);
      for (const r of started) expect((await settled(api, 'one', r.body.data.session_id)).status).toBe('completed');
      const lines = (await readFile(log, 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(6);
      for (let i = 0; i < 6; i += 2) {
        expect(lines[i]).toMatch(/^start /);
        expect(lines[i + 1]).toBe(lines[i].replace('start', 'end'));
      }
    } finally {
      await d.destroy();
    }
  });

  it('ends running commands when the daemon stops; the session is failed for that turn, as seen after a restart', async () => {
    const dataDir = await makeDataDir();
    const opts = { dataDir, runner: 'exec' as const, runnerCommand: command };
    let d = await startTestDaemon(opts);
    const { api, key } = await createTeam(d, 'stopper');
    const pidFile = join(scratch, 'hang-stop');
    const res = await api('POST', '/teams/stopper/sessions', { prompt: `hang ${pidFile}` });
    const id = res.body.data.session_id;
    await waitFor('the command to start', async () => (existsSync(pidFile) ? true : undefined));
    const [child, grandchild] = (await readFile(pidFile, 'utf8')).split(' ').map(Number);
    // a follow-up waiting behind the running turn: the session's error is still about the running one
    expect((await api('POST', `/teams/stopper/sessions/${id}/messages`, { message: 'queued' })).status).toBe(202);
    await d.close();
    // Both die of the group's signal; the command (under the runner's shell) closes its output as
    // it exits, a moment before the kernel lists it as gone.
    await waitFor('the command to be gone', async () => (!processAlive(child) ? true : undefined), 5000);
    await waitFor('the grandchild to be gone', async () => (!processAlive(grandchild) ? true : undefined), 5000);

    d = await startTestDaemon(opts);
    try {
      const s = (await d.as(key)('GET', `/teams/stopper/sessions/${id}`)).body.data;
      expect(s.status).toBe('failed');
      expect(s.last_error).toBe('the daemon shut down during the turn (1 follow-up turn queued behind it did not run)');
    } finally {
      await d.destroy();
    }
  });
});

describe('exec runner options', () => {
  it('refuses to start the daemon without --runner-command', async () => {
    const dataDir = await makeDataDir();
    try {
      await expect(startTestDaemon({ dataDir, runner: 'exec' })).rejects.toThrow(/--runner-command/);
      // the data folder is not left locked
      const d = await startTestDaemon({ dataDir });
      await d.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('ExecRunner hand-over', () => {
  const reporter: TurnReporter = { turnCompleted: async () => {}, turnFailed: async () => {} };
  const turn = {
    session: { session_id: '00000000-0000-4000-8000-000000000001', environment_id: null, team_id: 'x' },
    prompt: 'p',
    message: 'p',
    event: null,
  } as unknown as Turn;

  it('refuses the turn (RunnerRefused) when the command cannot be spawned', async () => {
    const runner = new ExecRunner({
      command: 'true',
      shell: join(scratch, 'no-such-shell'),
      timeoutMs: 5000,
      concurrency: 1,
      reporter,
      environment: async () => ({ vars: {} }),
    });
    await expect(runner.take(turn)).rejects.toBeInstanceOf(RunnerRefused);
    await expect(runner.take(turn)).rejects.toThrow(/could not start the runner command \(ENOENT\)/);
    await runner.stop();
  });

  it('refuses new turns once stopped', async () => {
    const runner = new ExecRunner({
      command: 'true',
      timeoutMs: 5000,
      concurrency: 1,
      reporter,
      environment: async () => ({ vars: {} }),
    });
    await runner.stop();
    await expect(runner.take(turn)).rejects.toThrow(/shutting down/);
  });
});
