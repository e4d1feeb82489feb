// The CLI on a real terminal (a tmux pane): the key prompt of `svc login` hides what is typed,
// and output on a TTY is a coloured table. tmux comes with .ci/run; without it these tests fail
// where the run requires them (SVC_TEST_TERMINAL=required) and are skipped (saying why) elsewhere.
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliSandbox, makeSandbox, SVC_BIN } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { checkPrerequisite } from '../helpers/prerequisites.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

describe('terminal tests prerequisites', () => {
  it('tmux is installed when the run requires it (SVC_TEST_TERMINAL=required, as .ci/run sets)', () => {
    checkPrerequisite('terminal', hasTmux, 'tmux is not installed');
  });
});

describe.skipIf(!hasTmux)(hasTmux ? 'on a terminal' : 'on a terminal (skipped: no tmux)', () => {
  let daemon: TestDaemon;
  let team: Awaited<ReturnType<typeof createTeam>>;
  let sb: CliSandbox;
  const socket = `svc-test-${process.pid}`;

  // A person at a terminal: CI unset (under CI the CLI would refuse to prompt, by design).
  const terminalEnv = () => {
    const env: NodeJS.ProcessEnv = { ...sb.env, TERM: 'xterm-256color' };
    delete env.CI;
    return env;
  };
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { env: terminalEnv(), encoding: 'utf8' });
  // One session per command, all left open until afterAll: killing the last session stops the
  // tmux server, and the next command could race its shutdown.
  let session = '';
  const pane = (styled = false) => tmux('capture-pane', '-p', ...(styled ? ['-e'] : []), '-J', '-t', session);
  async function waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const text = pane();
      if (pattern.test(text)) return text;
      if (Date.now() > until) throw new Error(`timed out waiting for ${pattern} on the terminal:\n${text}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  let runs = 0;
  function run(command: string) {
    session = `svc${++runs}`;
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40', `${command}; echo "EXIT=$?"; sleep 60`);
  }

  beforeAll(async () => {
    daemon = await startTestDaemon();
    team = await createTeam(daemon, 'tty');
    sb = await makeSandbox();
  });
  afterAll(async () => {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    await daemon.destroy();
    await sb.cleanup();
  });

  it('svc login asks for the key without echoing it, then stores it', async () => {
    run(`node ${SVC_BIN} login --url ${daemon.url} --team tty`);
    await waitFor(/Paste the team key for 'tty'/);
    tmux('send-keys', '-t', session, '-l', team.key);
    tmux('send-keys', '-t', session, 'Enter');
    const text = await waitFor(/EXIT=\d+/);
    expect(text).toContain('EXIT=0');
    expect(text).toContain('Logged in to');
    expect(text).not.toContain(team.key);
  });

  it('auth status on a terminal prints bold labels, and none with --no-color or NO_COLOR', async () => {
    run(`node ${SVC_BIN} auth status`);
    await waitFor(/EXIT=\d+/);
    const coloured = pane(true); // with the escapes
    expect(coloured).toMatch(/\u001b\[1mTeam key:/);

    for (const command of [`node ${SVC_BIN} auth status --no-color`, `NO_COLOR=1 node ${SVC_BIN} auth status`]) {
      run(command);
      await waitFor(/EXIT=\d+/);
      const plain = pane(true);
      expect(plain).toMatch(/Team key:\s+svc_team_/);
      expect(plain).not.toContain('\u001b[1m');
    }
  });
});
