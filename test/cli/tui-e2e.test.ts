// The screens in a real terminal: `svc` alone in a tmux pane, driven by send-keys and read back
// with capture-pane, walking through creating an event automation and sending an event that
// dispatches it. tmux comes with .ci/run; without it this fails where the run
// requires it (SVC_TEST_TERMINAL=required) and is skipped (saying why) elsewhere. Runs the built CLI (bin/svc.js loads dist/): `npm test` builds first.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliSandbox, envFor, makeSandbox, REPO_ROOT, runSvc, SVC_BIN } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { checkPrerequisite } from '../helpers/prerequisites.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

describe('screens terminal test prerequisites', () => {
  it('tmux is installed when the run requires it (SVC_TEST_TERMINAL=required, as .ci/run sets)', () => {
    checkPrerequisite('terminal', hasTmux, 'tmux is not installed');
  });
});

describe('svc ui without a terminal', () => {
  it('refuses with a usage error (exit 2) naming what the screens need', async () => {
    const sb = await makeSandbox();
    try {
      const r = await runSvc(sb, ['ui'], { env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'svc_team_x', SVC_TEAM: 'acme' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('the screens need a terminal');
      expect(r.stdout).toBe('');
    } finally {
      await sb.cleanup();
    }
  });

  it('refuses a --refresh under a second (each refresh spends the key\'s rate limit)', async () => {
    const sb = await makeSandbox();
    try {
      const r = await runSvc(sb, ['ui', '--refresh', '1ms'], { env: { SVC_BASE_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'svc_team_x', SVC_TEAM: 'acme' } });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("Lists refresh at most once a second (each refresh spends the key's rate limit): give 1s or more.");
    } finally {
      await sb.cleanup();
    }
  });
});

describe.skipIf(!hasTmux)(hasTmux ? 'svc on a terminal' : 'svc on a terminal (skipped: no tmux)', () => {
  let daemon: TestDaemon;
  let team: Awaited<ReturnType<typeof createTeam>>;
  let sb: CliSandbox;
  // A socket inside the sandbox: it goes when the sandbox does.
  const socket = () => join(sb.home, 'tmux.sock');

  // A person at a terminal: CI unset, or the CLI would (rightly) refuse to open screens.
  const terminalEnv = () => {
    const env: NodeJS.ProcessEnv = { ...sb.env, ...envFor({ url: daemon.url, key: team.key, team: 'acme' }), TERM: 'xterm-256color' };
    delete env.CI;
    return env;
  };
  const tmux = (...args: string[]) => execFileSync('tmux', ['-S', socket(), ...args], { env: terminalEnv(), encoding: 'utf8' });
  const pane = () => tmux('capture-pane', '-p', '-t', 'ui');
  const keys = (...k: string[]) => tmux('send-keys', '-t', 'ui', ...k);
  const text = (t: string) => tmux('send-keys', '-t', 'ui', '-l', t);
  async function waitFor(pattern: RegExp | string, timeoutMs = 20_000): Promise<string> {
    const test = (s: string) => (typeof pattern === 'string' ? s.includes(pattern) : pattern.test(s));
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = pane();
      if (test(screen)) return screen;
      if (Date.now() > until) throw new Error(`timed out waiting for ${pattern} on the terminal:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'cli', 'screens', 'app.js'))) throw new Error('dist/ has no screens: run `npm run build` first');
    daemon = await startTestDaemon();
    team = await createTeam(daemon, 'acme');
    sb = await makeSandbox();
    // Keeps the tmux server up between the sessions the tests open and close.
    tmux('new-session', '-d', '-s', 'keep', 'sleep 600');
  });
  afterAll(async () => {
    spawnSync('tmux', ['-S', socket(), 'kill-server']);
    await daemon.destroy();
    await sb.cleanup();
  });

  it('creates an event automation and sends an event that dispatches it, with keys only', async () => {
    tmux('new-session', '-d', '-s', 'ui', '-x', '100', '-y', '30', `node ${SVC_BIN}; echo "EXIT=$?"; sleep 60`);
    const home = await waitFor('● connected');
    expect(home).toContain('team acme');
    expect(home).toContain(daemon.url);

    // Automations › New: name, prompt, event trigger with one filter
    await waitFor('› 1 Automations');
    keys('Enter');
    await waitFor('no automations yet');
    keys('n');
    await waitFor('› Name');
    text('Deploy watcher');
    await waitFor('Deploy watcher');
    keys('Tab');
    text('Check the production deploy');
    await waitFor('Check the production deploy');
    keys('Tab', 'Right');
    await waitFor('(•) event');
    keys('Tab');
    text('deploy.finished');
    await waitFor('Runs on generic events of type deploy.finished');
    keys('Tab', 'Tab');
    text('$.data.env equals prod');
    await waitFor('where 1 filter pass');
    keys('C-s');
    await waitFor('✓ Created Deploy watcher');
    const created = await waitFor('event     generic/deploy.finished');
    const automation = (await team.api('GET', '/teams/acme/automations')).body.data[0];
    expect(automation.name).toBe('Deploy watcher');
    expect(created).toContain('Automations › Deploy watcher');

    // back home, then Events › Compose: dry run, then send
    keys('Escape');
    await waitFor(/Deploy watcher\s+event\s+active/);
    keys('Escape');
    await waitFor('› 1 Automations');
    keys('Down');
    await waitFor('› 2 Events');
    keys('Enter');
    await waitFor('no events received yet');
    keys('n');
    await waitFor('› Type');
    text('deploy.finished');
    keys('Tab', 'Tab');
    text('e2e-1');
    await waitFor('e2e-1');
    keys('Tab', 'BSpace', 'BSpace');
    text('{"env": "prod"}');
    await waitFor('✓ data is a JSON object');
    keys('C-r');
    const dry = await waitFor('Dry run:');
    expect(dry).toMatch(/✓ Deploy watcher\s+would dispatch/);
    keys('C-s');
    const sent = await waitFor('Sent: dispatched to 1 automation');
    expect(sent).toMatch(new RegExp(`→ Deploy watcher\\s+key event:${automation.id}:e2e-1`));

    // the event and the session it started, as the daemon has them
    const events = (await team.api('GET', '/teams/acme/events')).body.data;
    expect(events[0]).toMatchObject({ id: 'e2e-1', accepted: true });
    const runs = (await team.api('GET', `/teams/acme/automations/${automation.id}/runs`)).body.data;
    expect(runs).toHaveLength(1);
    expect(runs[0].idempotency_key).toBe(`event:${automation.id}:e2e-1`);

    // the list shows it; q leaves and gives the terminal back
    keys('Escape');
    await waitFor(/deploy\.finished\s+generic\s+e2e-1\s+1/);
    keys('q');
    const after = await waitFor('EXIT=0');
    expect(after).not.toContain('Events');
    tmux('kill-session', '-t', 'ui');
  });

  it('gives the terminal back when killed by a signal, and exits with that signal\'s status', async () => {
    const pidFile = join(sb.home, 'ui.pid');
    tmux('new-session', '-d', '-s', 'ui', '-x', '100', '-y', '30', `sh -c 'echo $$ > ${pidFile}; exec node ${SVC_BIN} ui'; echo "EXIT=$?"; sleep 60`);
    await waitFor('● connected');
    const alternate = () => tmux('display-message', '-p', '-t', 'ui', '#{alternate_on}').trim();
    expect(alternate()).toBe('1');
    process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
    const after = await waitFor('EXIT=');
    expect(after).toContain('EXIT=143');
    expect(alternate()).toBe('0');
    expect(tmux('display-message', '-p', '-t', 'ui', '#{cursor_flag}').trim()).toBe('1');
    tmux('kill-session', '-t', 'ui');
  });

  it('opens no screen when CI is set, even on a terminal: svc prints its help and svc ui refuses', async () => {
    tmux('new-session', '-d', '-s', 'ui', '-x', '100', '-y', '30', `CI=1 node ${SVC_BIN}; echo "EXIT=$?"; sleep 60`);
    const help = await waitFor('EXIT=');
    tmux('kill-session', '-t', 'ui');
    expect(help).toContain('EXIT=0');
    expect(help).toMatch(/Commands:[\s\S]*\n\s+ui\s+Open the interactive screens/);
    tmux('new-session', '-d', '-s', 'ui', '-x', '100', '-y', '30', `CI=1 node ${SVC_BIN} ui; echo "EXIT=$?"; sleep 60`);
    const refused = await waitFor('EXIT=');
    tmux('kill-session', '-t', 'ui');
    expect(refused).toContain('EXIT=2');
    expect(refused).toContain('the screens need a terminal');
  });

  it('draws in colour on a terminal, and without any colour under NO_COLOR', async () => {
    const styled = () => tmux('capture-pane', '-p', '-e', '-t', 'ui'); // -e keeps the escapes
    // A colour is any SGR parameter 30-38, 40-48, 90-97 or 100-107 (39 and 49 reset to the default).
    const hasColour = (screen: string) =>
      // eslint-disable-next-line no-control-regex
      [...screen.matchAll(/\u001b\[([0-9;]*)m/g)].some((m) =>
        m[1].split(';').some((p) => /^(3[0-8]|4[0-8]|9[0-7]|10[0-7])$/.test(p)),
      );
    for (const [command, coloured] of [
      [`node ${SVC_BIN}`, true],
      [`NO_COLOR=1 node ${SVC_BIN}`, false],
      [`node ${SVC_BIN} --no-color`, false],
    ] as const) {
      tmux('new-session', '-d', '-s', 'ui', '-x', '80', '-y', '24', `${command}; echo "EXIT=$?"; sleep 60`);
      await waitFor('● connected');
      const screen = styled();
      keys('q');
      await waitFor('EXIT=0');
      tmux('kill-session', '-t', 'ui');
      expect(hasColour(screen), command).toBe(coloured);
      expect(screen).toMatch(/› (\u001b\[[0-9;]*m)*1 Automations/); // the selection shows without colour
    }
  });
});
