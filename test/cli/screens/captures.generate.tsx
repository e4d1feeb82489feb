// Writes docs/screens.md: a text capture of every screen at 80x24, drawn by the real screens
// against a real daemon. Not a test: the `captures` project of vitest.config.ts, which exists only
// when asked for, runs it:
//   SVC_SCREEN_CAPTURES=docs/screens.md npx vitest run --project captures
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'vitest';
import { FakeGitHub } from '../../helpers/fake-github.js';
import { REPO_ROOT } from '../../helpers/cli.js';
import { createAutomation, type Harness, KEY, type Screens, startHarness } from './harness.js';

const target = process.env.SVC_SCREEN_CAPTURES;
if (!target) throw new Error('SVC_SCREEN_CAPTURES names the file to write, e.g. docs/screens.md');

describe('screen captures for docs/screens.md', () => {
  it('captures every screen', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-captures-'));
    const hold = join(dir, 'hold');
    const fake = await FakeGitHub.start();
    const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
    fake.addRepo('acme/agent-skills', {
      files: {
        'skills/pdf-tools/SKILL.md': skill('pdf-tools', 'Fill, merge and split PDF files. Use when the user hands over a PDF.'),
        'skills/release-notes/SKILL.md': skill('release-notes', 'Draft release notes from the pull requests merged since the last tag.'),
        'skills/Incident/SKILL.md': skill('incident-notes', 'Write incident reports in the house style.'),
        'skills/triage/skill.md': skill('triage', 'Label new issues.'),
      },
    });
    const h: Harness = await startHarness({
      runner: 'exec',
      // fails a turn whose prompt says FAIL; holds turns while the file `hold` exists
      runnerCommand: `if grep -q FAIL; then echo "model quota exhausted" >&2; exit 3; fi; while [ -f '${hold}' ]; do sleep 0.05; done; echo "Done: 3 checks passed, nothing to report."`,
      githubApiUrl: fake.apiUrl,
      githubRawUrl: fake.rawUrl,
    });
    const sections: string[] = [];
    const port = new URL(h.daemon.url).port;
    const shot = (title: string, note: string, ui: Screens) => {
      const frame = ui.frame().replaceAll(`127.0.0.1:${port}`, '127.0.0.1:8787').replace(/[ \t]+$/gm, '');
      if (process.env.DBG) console.error('shot', title);
      sections.push(`## ${title}\n\n${note}\n\n\`\`\`text\n${frame}\n\`\`\`\n`);
    };
    const pick = async (ui: Screens, row: RegExp) => {
      await ui.press('g');
      await ui.waitFor((f) => f.split('\n').findIndex((l) => l.startsWith('›')) === f.split('\n').findIndex((l) => /^\s+[A-Z]{2,}/.test(l)) + 1);
      await ui.select(row);
    };

    try {
      const nightly = await createAutomation(h.api, {
        name: 'Nightly report',
        prompt: 'Summarise yesterday: merged pull requests, failed builds, open incidents.',
        triggers: [{ kind: 'schedule', cron_expression: '0 7 * * 1-5', timezone: 'Europe/Berlin' }],
      });
      await createAutomation(h.api, {
        name: 'Prod deploy check',
        prompt: 'Smoke-test production after a deploy and report anything odd.',
        triggers: [{ kind: 'event', event_type: 'deploy.finished', filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }] }],
      });
      await createAutomation(h.api, { name: 'Any deploy', prompt: 'Note the deploy in the changelog.', triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });
      const flaky = await createAutomation(h.api, { name: 'Weekly FAIL digest', prompt: 'FAIL on purpose', triggers: [{ kind: 'schedule', cron_expression: '0 16 * * 5', timezone: 'UTC' }] });
      await h.api('PATCH', `/teams/acme/automations/${flaky.id}`, {});
      await h.api('POST', `/teams/acme/automations/${flaky.id}/runs`);
      await h.api('POST', `/teams/acme/automations/${nightly.id}/runs`);
      await h.api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy.finished', id: 'deploy-1841', data: { env: 'prod', service: 'api', version: '2.14.0' } });
      await h.api('POST', '/teams/acme/webhooks/events', { event_type: 'deploy.finished', id: 'deploy-1842', data: { env: 'staging', service: 'web' } });
      await h.api('POST', '/teams/acme/sessions', { prompt: 'Draft the Q3 roadmap from the planning notes.' });
      await h.daemon.admin('POST', '/admin/teams/acme/environments', { name: 'Staging', slug: 'staging' });
      await h.api('PUT', '/teams/acme/env-vars/OPENAI_API_KEY', { value: 'x', is_secret: true });
      await h.api('PUT', '/teams/acme/env-vars/LOG_LEVEL', { value: 'info', is_secret: false });
      await h.api('PUT', '/teams/acme/env-vars/LOG_LEVEL?environment_slug=staging', { value: 'debug', is_secret: false });

      let ui = h.open({ refreshMs: 60_000 });
      await ui.waitFor(/svc \d+\.\d+\.\d+ · ok/);
      await ui.waitFor('works for team');
      shot('Home', '`svc` on a terminal (or `svc ui`). The header says which profile, team and daemon the screens use, whether the daemon answers, and whether it takes the key: `● connected`, `○ connecting`, `✗ connection lost · retrying`, or `✗ key refused` (a 401: a wrong key, or one revoked while the screens are open).', ui);
      await ui.press('?');
      await ui.waitFor('This screen');
      shot('Help', '`?` on any screen: its keys, then the keys that work everywhere. Any key closes it.', ui);
      await ui.press('x', KEY.enter);
      await ui.waitFor('Weekly FAIL digest');
      shot('Automations', 'Every automation with its next run in local time; `!` marks one whose last run failed. The list refreshes by itself (`--refresh` sets how often).', ui);
      await pick(ui, /Nightly report/);
      await ui.press(KEY.enter);
      await ui.waitFor(/›\s+completed/);
      shot('Automation detail', 'Triggers, the next five runs (computed from the triggers, in local time), recent runs (enter opens a transcript) and the last error. `p` pauses or resumes, `r` runs now, `d` deletes.', ui);
      await ui.press(KEY.esc);
      await pick(ui, /Weekly FAIL digest/);
      await ui.press('d');
      await ui.waitFor('(y/N)');
      shot('Deleting asks first', 'Only `y` deletes; any other key keeps the automation.', ui);
      await ui.press('n', 'n');
      await ui.waitFor('› Name');
      await ui.type('Standup notes');
      await ui.press(KEY.tab);
      await ui.type('Collect what everyone wrote in #standup');
      await ui.press(KEY.enter);
      await ui.type('and post a summary.');
      await ui.press(KEY.tab, KEY.tab);
      await ui.type('30 9 * * 1-5');
      await ui.press(KEY.tab);
      for (let i = 0; i < 40; i++) await ui.press(KEY.backspace);
      await ui.type('America/New_York');
      await ui.waitFor('Next runs (America/New_York)');
      shot('New automation: schedule', 'The next runs show as the cron expression and zone are typed. Enter in Prompt starts a new line; tab moves on; ctrl+s creates.', ui);
      await ui.press(KEY.shiftTab, KEY.backspace);
      await ui.type('8');
      await ui.waitFor('✗');
      shot('New automation: a bad cron', 'Problems show inline as they are typed, before anything is sent.', ui);
      await ui.press(KEY.shiftTab, KEY.right, KEY.tab);
      await ui.type('issue.opened');
      await ui.press(KEY.tab);
      for (let i = 0; i < 7; i++) await ui.press(KEY.backspace);
      await ui.type('github');
      await ui.press(KEY.tab);
      await ui.type('$.data.labels contains bug');
      await ui.press(KEY.enter);
      await ui.type('$.data.repo equals acme/api');
      await ui.waitFor('where 2 filters pass');
      shot('New automation: event', 'An event trigger: type, provider and filters, one per line (`JSONPATH OPERATOR VALUE`).', ui);
      ui.unmount();

      ui = h.open({ area: 'events', refreshMs: 60_000 });
      await ui.waitFor('deploy-1842');
      shot('Events', 'Received events, newest first, with how many automations each dispatched. `n` composes one.', ui);
      await pick(ui, /deploy-1841/);
      await ui.press(KEY.enter);
      await ui.waitFor('Dispatched');
      shot('Event detail', 'What came in, what it dispatched (with idempotency keys) and why.', ui);
      await ui.press(KEY.esc, 'n');
      await ui.waitFor('› Type');
      await ui.type('deploy.finished');
      await ui.press(KEY.tab, KEY.tab);
      await ui.type('deploy-1843');
      await ui.press(KEY.tab, KEY.backspace, KEY.backspace);
      await ui.type('{"env": "staging",');
      await ui.waitFor('✗ data is not valid JSON');
      shot('Event composer: data checked as typed', 'Data must be a JSON object; the line under it says what is wrong.', ui);
      await ui.press(KEY.enter);
      await ui.type(' "service": "api"}');
      await ui.press(KEY.ctrlR);
      await ui.waitFor('Dry run:');
      shot(
        'Event composer: dry run',
        '`ctrl+r`: which automations would match, and for each other one the condition that fails. Nothing is started or stored.\n' +
          'With the Id left blank the composer picks one (a UUID) and keeps it until the event is sent, so the\n' +
          'keys a dry run shows are the ones the send after it uses (and a send retried after an error is the\n' +
          'same event); each send after that is a new event with a new id.',
        ui,
      );
      for (let i = 0; i < 60; i++) await ui.press(KEY.backspace);
      await ui.type('{"env": "prod", "service": "api"}');
      await ui.press(KEY.ctrlS);
      await ui.waitFor('Sent:');
      shot('Event composer: sent', '`ctrl+s`: the automations dispatched, each with its idempotency key (sending the same id again dispatches nothing new).', ui);
      ui.unmount();

      ui = h.open({ area: 'skills' });
      fake.intercept({ match: /^api \/repos\/acme\/agent-skills$/, delayMs: 1500, times: 1 });
      await ui.waitFor('› Repository');
      await ui.type('https://github.com/acme/agent-skills');
      await ui.press(KEY.tab, KEY.enter);
      await ui.waitFor('Scanning');
      shot('Skills: scanning', 'Repository and ref, then a spinner while the daemon reads the repository.', ui);
      await ui.waitFor('SKILLS (');
      shot('Skills: results', 'Each skill with its name, size, path and description; each skipped file with the reason. `j`/`k` scroll when the list is longer than the screen.', ui);
      ui.unmount();

      ui = h.open({ area: 'env-vars', refreshMs: 60_000 });
      await ui.waitFor('3 variables');
      shot('Env vars', 'Names per environment, secret or plain. Values are write-only: there is nothing to show but that one is set. `e` shows one environment at a time.', ui);
      await ui.press('n');
      await ui.waitFor('› Name');
      await ui.type('GITHUB_TOKEN');
      await ui.press(KEY.tab, KEY.right, KEY.tab, KEY.tab);
      await ui.type('ghp_not_a_real_token');
      await ui.waitFor('••••');
      shot(
        'Setting an env var',
        "The value field shows • for each character; after saving, the value is never shown again. An\nempty value is refused, as at `svc env set`'s prompt (`svc env set NAME --value \"\"` sets one).",
        ui,
      );
      await ui.press(KEY.esc);
      await pick(ui, /LOG_LEVEL.*staging/);
      await ui.press('d');
      await ui.waitFor('(y/N)');
      shot('Unsetting asks first', 'Only `y` unsets.', ui);
      ui.unmount();

      ui = h.open({ area: 'sessions', refreshMs: 60_000 });
      await ui.waitFor('Draft the Q3 roadmap');
      shot('Sessions', 'Every session with its status and the automation that started it. `s` shows one status at a time.', ui);
      await pick(ui, /Prod deploy check/);
      await ui.press(KEY.enter);
      await ui.waitFor('automation Prod deploy check');
      shot('Transcript', 'The prompt, the event that started the session (with its payload) and every message.', ui);
      await writeFile(hold, '');
      await ui.press('f');
      await ui.type('Also check the p95 latency of /checkout.');
      await ui.press(KEY.enter);
      await ui.waitFor('● running');
      await ui.waitFor('Messages (3)');
      shot('Follow-up', 'A follow-up goes to the session, which runs again; the transcript follows it as it answers.', ui);
      await rm(hold);
      await ui.waitFor('Messages (4)');
      ui.unmount();

      const repo = (await h.api('POST', '/teams/acme/connections', { provider: 'github', name: 'acme/api' })).body.data as { id: string; secret: string; webhook_url: string };
      await h.api('POST', '/teams/acme/connections', { provider: 'linear', name: 'Product board' });
      const { signedDelivery } = await import('../../../cli/connections/sign.js');
      const { sampleDelivery } = await import('../../../cli/connections/samples.js');
      for (const [secret, eventType] of [[repo.secret, 'pull_request.opened'], [repo.secret, 'push'], ['an-old-secret-from-before-the-rotation', 'push']] as const) {
        const signed = await signedDelivery('github', secret, JSON.stringify(await sampleDelivery('github', eventType)), { now: new Date(), eventType, deliveryId: randomUUID() });
        await fetch(repo.webhook_url.replace(/^https?:\/\/[^/]+/, h.daemon.url.replace(/\/api\/v1$/, '')), { method: 'POST', headers: signed.headers, body: signed.body });
      }
      ui = h.open({ area: 'connections', refreshMs: 60_000, secrets: { save: async () => 'in the keychain' } });
      await ui.waitFor('Product board');
      shot('Connections', 'Each connection a provider delivers to, and when it last did. `n` connects another.', ui);
      await pick(ui, /acme\/api/);
      await ui.press(KEY.enter);
      await ui.waitFor('1 rejected');
      shot(
        'Connection deliveries',
        'The recent deliveries, newest first: accepted, duplicate or rejected (marked ✗), each with its reason; the selected one\'s whole reason shows below. A rejected one says what to fix in the provider\'s settings.',
        ui,
      );
      await ui.press(KEY.esc);
      await ui.press('n');
      await ui.waitFor('‹ github ›');
      await ui.press(KEY.tab);
      await ui.type('acme/web');
      shot('New connection', 'Provider (← → to change), name, and optionally the provider\'s account or installation id.', ui);
      await ui.press(KEY.ctrlS);
      await ui.waitFor('Secret (shown once)');
      shot(
        'New connection: created',
        'The webhook URL and the secret, shown this once; `svc ui` keeps the secret where the profile\'s key is, for `svc connections test`.',
        ui,
      );
      ui.unmount();

      const client = (await import('../../../shared/client.js')).createClient({ baseUrl: 'http://127.0.0.1:9', token: 'svc_team_x', tries: 1 });
      const { renderScreens } = await import('./harness.js');
      ui = renderScreens({ client, team: 'acme', profile: 'default', url: 'http://127.0.0.1:8787/api/v1', color: false, size: { columns: 80, rows: 24 }, refreshMs: 60_000, area: 'automations' });
      await ui.waitFor('Connection lost');
      sections.push(
        `## A lost connection\n\nThe header and the message line say so, and the screen keeps retrying; rows already on screen stay. (Here the daemon was never up, so there are none.)\n\n\`\`\`text\n${ui
          .frame()
          .replace(/127\.0\.0\.1:9\b/g, '127.0.0.1:8787')
          .replace(/[ \t]+$/gm, '')}\n\`\`\`\n`,
      );
      ui.unmount();
    } finally {
      await h.close();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }

    const intro = `# The screens

\`svc\` with no command on a terminal (or \`svc ui [AREA]\`) opens these screens. They do what the
commands do, without flags to remember. They open only when stdin and stdout are terminals, \`CI\` is
unset and \`--json\` is not given; elsewhere \`svc\` prints its help.

Keys: \`↑\`/\`↓\` or \`j\`/\`k\` move, \`enter\` opens, \`esc\` goes back, \`q\` quits (\`ctrl+c\` from
anywhere), \`?\` shows the keys of the screen. In forms, \`tab\`/\`shift+tab\` move between fields and
\`ctrl+s\` submits; while a text field has focus, letters (\`q\` and \`?\` too) are typed into it. A
field that opens with a default (Time zone, Provider, Data, Ref) is replaced by what is typed into
it first, as a selected field in a browser is; an arrow or backspace first edits the default instead.
Colour follows \`NO_COLOR\` and \`--no-color\`; the selection is also marked with \`›\`, so nothing
depends on colour. Lists refresh every 5 s (\`svc ui --refresh 2s\`); a list of more than 200
automations takes one request per 200, so it refreshes that many times less often, to leave the
key's rate limit (60 requests a minute by default) to the commands typed elsewhere. Errors from the daemon show as
one line with their code; a lost connection says so and retries. A request that meets the rate
limit waits for the window to reset (unless \`--no-wait\`) and says so on the message line for as
long as it waits, over whatever the screen showed there (a form's \`Creating…\` included).

Areas: \`svc ui automations\`, \`events\`, \`skills\`, \`env-vars\`, \`sessions\`, \`connections\`.

The captures below are the screens' own output at 80x24 with colour off, against a daemon with
the \`exec\` runner, regenerated with
\`SVC_SCREEN_CAPTURES=docs/screens.md npx vitest run --project captures\`.
Times are shown in the local time zone of the machine that made them.

`;
    await writeFile(resolve(REPO_ROOT, target), intro + sections.join('\n'));
  });
});
