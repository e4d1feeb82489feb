import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAutomation, fitsTerminal, type Harness, KEY, startHarness } from './harness.js';

// A runner that holds each turn while the file `hold` exists, so a test can see a session
// running and then let it finish, with no timing involved.
let dir: string;
let hold: string;
let h: Harness;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-screens-'));
  hold = join(dir, 'hold');
  h = await startHarness({
    runner: 'exec',
    // A prompt with FAILME fails its turn (exit 3).
    runnerCommand: `case "$(cat)" in *FAILME*) exit 3;; esac; while [ -f '${hold}' ]; do sleep 0.05; done; echo "turn done"`,
  });
});
afterAll(async () => {
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sessions screen', () => {
  it('lists sessions with status and automation, and filters by status with s', async () => {
    const a = await createAutomation(h.api, { name: 'Triage', prompt: 'Triage the new issue', triggers: [{ kind: 'event', event_type: 'issue.opened' }] });
    await h.api('POST', '/teams/acme/webhooks/events', { event_type: 'issue.opened', id: 'issue-7', data: { number: 7, title: 'Crash on start' } });
    await h.api('POST', '/teams/acme/sessions', { prompt: 'Say hello' });
    const ui = h.open({ area: 'sessions' });
    // The two turns end in either order: the list polls until both show completed.
    await ui.waitFor(/completed.*Triage\s+Triage the new issue/);
    const frame = await ui.waitFor(/completed\s+\S+ \S+\s+-\s+Say hello/);
    expect(frame).toMatch(/STATUS\s+CREATED\s+AUTOMATION\s+PROMPT/);
    expect(frame).toMatch(/completed.*Triage\s+Triage the new issue/);
    await ui.press('s');
    await ui.waitFor('status running');
    await ui.waitFor('no sessions with status running');
    expect(fitsTerminal(ui.frame())).toBe(true);
    expect(a.id).toBeTruthy();
    ui.unmount();
  });

  it("shows a transcript with the prompt, the messages and the event's payload", async () => {
    const ui = h.open({ area: 'sessions' });
    await ui.waitFor('Triage the new issue');
    await ui.select(/completed.*Triage/);
    await ui.press(KEY.enter);
    const frame = await ui.waitFor('automation Triage');
    expect(frame).toContain('● completed');
    expect(frame).toMatch(/Prompt\n\s+Triage the new issue/);
    expect(frame).toContain('Event  issue.opened · generic · id issue-7');
    expect(frame).toContain('data {"number":7,"title":"Crash on start"}');
    expect(frame).toMatch(/Messages \(2\)\n\s+user · .*\n\s+Triage the new issue\n\s+assistant · .*\n\s+turn done/);
    expect(fitsTerminal(frame)).toBe(true);
    ui.unmount();
  });

  it('sends a follow-up: the session runs again, then shows the new turn', async () => {
    const s = (await h.api('POST', '/teams/acme/sessions', { prompt: 'Plan the release' })).body.data;
    const ui = h.open({ area: 'sessions' });
    await ui.waitFor('Plan the release');
    await ui.select(/Plan the release/);
    await ui.press(KEY.enter);
    await ui.waitFor('● completed');
    await ui.press('f');
    await ui.waitFor('› Follow-up');
    await writeFile(hold, '');
    await ui.type('Add the migration notes');
    await ui.press(KEY.enter);
    let frame = await ui.waitFor('✓ Follow-up sent: the session is running again');
    frame = await ui.waitFor('● running');
    expect(frame).toContain('Add the migration notes');
    expect((await h.api('GET', `/teams/acme/sessions/${s.session_id}`)).body.data.status).toBe('running');
    await rm(hold);
    frame = await ui.waitFor('● completed');
    frame = await ui.waitFor(/Messages \(4\)/);
    expect(frame).toMatch(/user · .*\n\s+Add the migration notes\n\s+assistant · .*\n\s+turn done/);
    // The turn is over: "running again" is no longer shown as news.
    expect(frame).not.toContain('Follow-up sent');
    ui.unmount();
  });

  it('offers no follow-up on a failed session, and says why when f is pressed', async () => {
    await h.api('POST', '/teams/acme/sessions', { prompt: 'FAILME on purpose' });
    const ui = h.open({ area: 'sessions' });
    await ui.waitFor('FAILME on purpose');
    await ui.select(/FAILME on purpose/);
    await ui.press(KEY.enter);
    let frame = await ui.waitFor('● failed');
    frame = await ui.waitFor('Follow-up: none (failed sessions take no follow-ups)');
    expect(frame).not.toContain('f follow-up');
    await ui.press('f');
    frame = await ui.waitFor('A failed session takes no follow-ups: only running and completed ones do');
    expect(frame).not.toContain('› Follow-up');
    ui.unmount();
  });

  it('shows why a follow-up was refused as one line', async () => {
    const s = (await h.api('POST', '/teams/acme/sessions', { prompt: 'Short one' })).body.data;
    const ui = h.open({ area: 'sessions' });
    await ui.waitFor('Short one');
    await ui.select(/Short one/);
    await ui.press(KEY.enter);
    await ui.waitFor('● completed');
    await ui.press(KEY.tab);
    await ui.type('x'.repeat(10001));
    await ui.press(KEY.enter);
    const frame = await ui.waitFor('✗ VALIDATION_ERROR');
    expect(frame.split('\n').filter((l) => l.includes('VALIDATION_ERROR'))).toHaveLength(1);
    expect(s.session_id).toBeTruthy();
    ui.unmount();
  });

  it('prints outside text inert: a prompt with control codes and a name with a bidi override show them as escapes, never send them', async () => {
    const evil = 'Evil \x1b[31mRED\x1b]0;TITLE\x07 reversed\r overwrite';
    const a = await createAutomation(h.api, { name: 'Evil \u202e name', prompt: evil, triggers: [{ kind: 'event', event_type: 'evil.sent' }] });
    await h.api('POST', '/teams/acme/webhooks/events', { event_type: 'evil.sent', id: 'evil-1' });
    const ui = h.open({ area: 'sessions' });
    await ui.waitFor('Evil');
    await ui.select(/Evil/);
    await ui.press(KEY.enter);
    const frame = await ui.waitFor('· automation Evil');
    expect(frame).toContain('· automation Evil \\u202e name');
    expect(frame).toContain('Evil \\x1b[31mRED\\x1b]0;TITLE\\x07 reversed\\x0d overwrite');
    for (const drawn of ui.frames()) expect(drawn).not.toMatch(/\x1b\]0;|\u202e|\r/);
    expect(a.id).toBeTruthy();
    ui.unmount();
  });
});
