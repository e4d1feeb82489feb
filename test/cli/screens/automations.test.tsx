import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { formatSlot, formatTime } from '../../../cli/screens/format.js';
import { createAutomation, fitsTerminal, type Harness, KEY, startHarness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const line = (frame: string, text: string) => frame.split('\n').find((l) => l.includes(text)) ?? '';

describe('automations list', () => {
  it('shows name, type, status, next run in local time and runs, and picks up new automations as it refreshes', async () => {
    const a = await createAutomation(h.api, {
      name: 'Nightly report',
      prompt: 'Summarise yesterday',
      triggers: [{ kind: 'schedule', cron_expression: '0 3 * * *', timezone: 'Europe/Berlin' }],
    });
    const ui = h.open({ area: 'automations' });
    const frame = await ui.waitFor('Nightly report');
    expect(frame).toMatch(/NAME\s+TYPE\s+STATUS\s+NEXT RUN\s+RUNS\s+ERR/);
    const row = line(frame, 'Nightly report');
    const got = (await h.api('GET', `/teams/acme/automations/${a.id}`)).body.data;
    expect(row).toContain('schedule');
    expect(row).toContain('active');
    expect(row).toContain(formatTime(got.next_run_at));
    expect(row).toMatch(/\s0\s*$/);

    await createAutomation(h.api, { name: 'On deploy', prompt: 'Check it', triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });
    const later = await ui.waitFor('On deploy');
    expect(line(later, 'On deploy')).toMatch(/event\s+active\s+-/);
    expect(later).toContain('2 automations');
    expect(fitsTerminal(later)).toBe(true);
    ui.unmount();
  });

  it('marks an automation whose last run failed with ! and shows the error in its detail view', async () => {
    const failing = await startHarness({ runner: 'exec', runnerCommand: 'echo "model quota exhausted" >&2; exit 3' });
    try {
      const a = await createAutomation(failing.api, { name: 'Flaky', prompt: 'x', triggers: [{ kind: 'event', event_type: 'never' }] });
      await failing.api('POST', `/teams/acme/automations/${a.id}/runs`);
      const ui = failing.open({ area: 'automations' });
      await ui.waitFor((f) => /Flaky.*!\s*$/m.test(f));
      await ui.press(KEY.enter);
      const detail = await ui.waitFor('Last error');
      expect(line(detail, 'Last error')).not.toContain('none');
      expect(line(detail, 'Recent runs') + detail).toContain('failed');
      ui.unmount();
    } finally {
      await failing.close();
    }
  });
});

describe('automation detail', () => {
  it('shows the triggers, the next 5 runs, recent runs and no last error', async () => {
    const a = await createAutomation(h.api, {
      name: 'Weekday standup',
      prompt: 'Post the standup notes',
      triggers: [
        { kind: 'schedule', cron_expression: '30 9 * * 1-5', timezone: 'America/New_York' },
        { kind: 'event', event_type: 'standup.skip', filters: [{ jsonPath: '$.data.team', operator: 'equals', value: 'core' }] },
      ],
    });
    await h.api('POST', `/teams/acme/automations/${a.id}/runs`);
    const ui = h.open({ area: 'automations' });
    await ui.waitFor('Weekday standup');
    await ui.select(/Weekday standup/);
    await ui.press(KEY.enter);
    const frame = await ui.waitFor('Next 5 runs');
    expect(frame).toContain('Automations › Weekday standup');
    expect(frame).toContain('schedule  30 9 * * 1-5  America/New_York');
    expect(frame).toContain('event     generic/standup.skip');
    expect(frame).toContain('$.data.team equals "core"');
    const got = (await h.api('GET', `/teams/acme/automations/${a.id}`)).body.data;
    expect(frame).toContain(formatSlot(new Date(got.next_run_at)));
    const slots = frame.split('\n').filter((l) => /^\s+(Mon|Tue|Wed|Thu|Fri) \d{4}-/.test(l));
    expect(slots).toHaveLength(5);
    await ui.waitFor(/›\s+completed\s+\d{4}-/);
    expect(line(frame, 'Last error')).toContain('none');
    expect(fitsTerminal(ui.frame())).toBe(true);
    ui.unmount();
  });

  it('keeps the selection on its automation when a refresh adds one above it, so p pauses the one picked', async () => {
    const picked = await createAutomation(h.api, { name: 'Picked one', prompt: 'p', triggers: [{ kind: 'event', event_type: 'picked.x' }] });
    const ui = h.open({ area: 'automations' });
    await ui.waitFor('Picked one');
    await ui.select(/Picked one/);
    // a newer automation lists above it
    await createAutomation(h.api, { name: 'Arrived meanwhile', prompt: 'p', triggers: [{ kind: 'event', event_type: 'arrived.x' }] });
    await ui.waitFor('Arrived meanwhile');
    expect(ui.frame().split('\n').find((l) => l.startsWith('›'))).toContain('Picked one');
    await ui.press('p');
    await ui.waitFor('✓ Paused Picked one');
    expect((await h.api('GET', `/teams/acme/automations/${picked.id}`)).body.data.status).toBe('paused');
    await h.api('POST', `/teams/acme/automations/${picked.id}/resume`);
    ui.unmount();
  });

  it('cuts a long name in the title line to fit beside the last refresh, a bidi override shown as an escape', async () => {
    // (control characters are refused in names; a right-to-left override is not)
    const name = `Long \u202e ${'name '.repeat(20)}end`;
    await createAutomation(h.api, { name, prompt: 'p', triggers: [{ kind: 'event', event_type: 'long.x' }] });
    const ui = h.open({ area: 'automations' });
    await ui.waitFor('Long');
    await ui.select(/Long/);
    await ui.press(KEY.enter);
    const frame = await ui.waitFor(/Automations › Long \\u202e name.*… +updated/);
    expect(fitsTerminal(frame)).toBe(true);
    ui.unmount();
  });

  it('pauses and resumes with p, runs now with r, and opens a run with enter', async () => {
    const a = await createAutomation(h.api, {
      name: 'Pausable',
      prompt: 'Do the pausable thing',
      triggers: [{ kind: 'schedule', cron_expression: '*/5 * * * *', timezone: 'UTC' }],
    });
    const ui = h.open({ area: 'automations' });
    await ui.waitFor('Pausable');
    await ui.select(/Pausable/);
    await ui.press(KEY.enter);
    await ui.waitFor('Next 5 runs');
    await ui.press('p');
    let frame = await ui.waitFor('✓ Paused Pausable');
    expect((await h.api('GET', `/teams/acme/automations/${a.id}`)).body.data.status).toBe('paused');
    frame = await ui.waitFor('none: the automation is paused');
    expect(line(frame, 'Status')).toContain('paused');
    await ui.press('p');
    await ui.waitFor('✓ Resumed Pausable');
    expect((await h.api('GET', `/teams/acme/automations/${a.id}`)).body.data.status).toBe('active');

    await ui.press('r');
    frame = await ui.waitFor(/✓ Started session [0-9a-f]{8} for Pausable/);
    await ui.waitFor(/›\s+completed/);
    await ui.press(KEY.enter);
    frame = await ui.waitFor('automation Pausable');
    expect(frame).toContain('Sessions ›');
    expect(frame).toContain('Do the pausable thing');
    await ui.press(KEY.esc);
    await ui.waitFor('Next 5 runs');
    ui.unmount();
  });

  it('deletes only after y, from the list', async () => {
    const a = await createAutomation(h.api, { name: 'Doomed', prompt: 'x', triggers: [{ kind: 'event', event_type: 'doom' }] });
    const ui = h.open({ area: 'automations' });
    await ui.waitFor('Doomed');
    await ui.select(/Doomed/);
    await ui.press('d');
    await ui.waitFor('? Delete automation "Doomed"? Its triggers stop at once (y/N)');
    await ui.press('n');
    await ui.waitFor((f) => !f.includes('(y/N)'));
    expect((await h.api('GET', `/teams/acme/automations/${a.id}`)).status).toBe(200);
    await ui.press('d');
    await ui.waitFor('(y/N)');
    await ui.press('y');
    await ui.waitFor('✓ Deleted Doomed');
    await ui.waitFor((f) => !/^. Doomed/m.test(f));
    expect((await h.api('GET', `/teams/acme/automations/${a.id}`)).status).toBe(404);
    ui.unmount();
  });
});

describe('wide names on a narrow terminal', () => {
  it('keeps the columns aligned with CJK and emoji names at 60 columns, and the delete question keeps its (y/N)', async () => {
    const cjk = await createAutomation(h.api, { name: '日本語の自動化タスクの名前はとても長いです', prompt: 'x', triggers: [{ kind: 'event', event_type: 'wide' }] });
    await createAutomation(h.api, { name: 'Deploy 🚀 with a really long name that goes on and on', prompt: 'x', triggers: [{ kind: 'event', event_type: 'wide' }] });
    const ui = h.open({ area: 'automations', size: { columns: 60, rows: 24 } });
    const frame = await ui.waitFor('Deploy 🚀');
    const status = (l: string) => stringWidth(l.slice(0, l.indexOf(' active')));
    const header = line(frame, 'NAME');
    const rows = [line(frame, '日本語'), line(frame, 'Deploy 🚀')];
    for (const r of rows) {
      expect(stringWidth(r)).toBeLessThanOrEqual(60);
      expect(status(r)).toBe(stringWidth(header.slice(0, header.indexOf(' STATUS'))));
      expect(r).not.toMatch(/[\uD800-\uDFFF]/u);
    }
    await ui.select(/日本語/);
    await ui.press('d');
    const asked = await ui.waitFor('(y/N)');
    expect(stringWidth(line(asked, '(y/N)'))).toBeLessThanOrEqual(60);
    expect(line(asked, '(y/N)')).toMatch(/^\? Delete automation "日本語.*… \(y\/N\)$/);
    await ui.press('n');
    await ui.waitFor((f) => !f.includes('(y/N)'));
    expect((await h.api('GET', `/teams/acme/automations/${cjk.id}`)).status).toBe(200);
    ui.unmount();
  });
});

describe('new automation form', () => {
  it('previews the next runs as the cron is typed and flags a bad cron or zone inline', async () => {
    const ui = h.open({ area: 'automations', now: () => new Date('2026-03-06T12:00:00Z') });
    await ui.waitFor('NAME');
    await ui.press('n');
    await ui.waitFor('Automations › New');
    await ui.press(KEY.tab, KEY.tab, KEY.tab); // name, prompt, trigger → cron
    await ui.type('0 9 * * 1');
    let frame = await ui.waitFor('Next runs (');
    // the zone field starts as this machine's zone: what is typed first replaces it
    await ui.press(KEY.tab);
    await ui.type('Europe/Berlin');
    frame = await ui.waitFor('Next runs (Europe/Berlin)');
    expect(frame).toMatch(/^› Time zone\s+Europe\/Berlin$/m);
    // 09:00 on the wall clock on each Monday, across the change to summer time on 29 March
    expect(frame).toContain(formatSlot(new Date('2026-03-09T08:00:00Z'), 'Europe/Berlin'));
    expect(frame).toContain(formatSlot(new Date('2026-03-30T07:00:00Z'), 'Europe/Berlin'));
    expect(frame).toContain('Mon 2026-03-30 09:00');

    await ui.type('x');
    frame = await ui.waitFor('✗ time zone "Europe/Berlinx" is not a known IANA zone');
    await ui.press(KEY.backspace, KEY.shiftTab, KEY.backspace);
    await ui.type('99');
    frame = await ui.waitFor(/✗ .*day-of-week/);
    expect(fitsTerminal(frame)).toBe(true);
    ui.unmount();
  });

  it('creates a schedule automation with a multi-line prompt and opens it', async () => {
    const ui = h.open({ area: 'automations' });
    await ui.waitFor('NAME');
    await ui.press('n');
    await ui.waitFor('› Name');
    await ui.type('Morning digest');
    await ui.press(KEY.enter); // next field
    await ui.type('Read the inbox');
    await ui.press(KEY.enter); // a new line inside the prompt
    await ui.type('Write a digest');
    await ui.press(KEY.tab, KEY.tab); // trigger → cron
    await ui.type('15 7 * * *');
    await ui.press(KEY.tab);
    for (let i = 0; i < 40; i++) await ui.press(KEY.backspace);
    await ui.type('UTC');
    await ui.waitFor('Next runs (UTC)');
    await ui.press(KEY.ctrlS);
    await ui.waitFor('✓ Created Morning digest');
    const frame = await ui.waitFor('schedule  15 7 * * *  UTC');
    expect(frame).toContain('Automations › Morning digest');
    const list = (await h.api('GET', '/teams/acme/automations')).body.data as { name: string; prompt: string }[];
    expect(list.find((a) => a.name === 'Morning digest')?.prompt).toBe('Read the inbox\nWrite a digest');
    await ui.press(KEY.esc);
    await ui.waitFor(/Morning digest\s+schedule\s+active/);
    ui.unmount();
  });

  // A paste reaches the screen as one input string; its line breaks are the prompt's lines, not
  // Enter keys, and a Windows line break (CRLF) is one line break, not two.
  for (const [eol, name] of [['\n', 'LF'], ['\r\n', 'CRLF'], ['\r', 'CR']] as const) {
    it(`keeps the lines of a block pasted into the prompt (${name} line breaks)`, async () => {
      const ui = h.open({ area: 'automations' });
      await ui.waitFor('NAME');
      await ui.press('n');
      await ui.waitFor('› Name');
      await ui.type(`Pasted ${name}`);
      await ui.press(KEY.tab);
      await ui.type(['line one', 'line two', '', 'line four'].join(eol));
      // the field shows its last rows, and how many lines it holds
      const frame = await ui.waitFor('line four');
      expect(frame).toMatch(/^\s+\(4 lines\)$/m);
      await ui.press(KEY.tab, KEY.right); // the paste left the prompt focused: trigger → event
      await ui.waitFor('Event type');
      await ui.press(KEY.tab);
      await ui.type('paste.test');
      await ui.press(KEY.ctrlS);
      await ui.waitFor(`✓ Created Pasted ${name}`);
      const list = (await h.api('GET', '/teams/acme/automations')).body.data as { name: string; prompt: string }[];
      expect(list.find((a) => a.name === `Pasted ${name}`)?.prompt).toBe('line one\nline two\n\nline four');
      ui.unmount();
    });
  }

  it('creates an event automation with filters, and shows a bad filter and a taken name as one line', async () => {
    const ui = h.open({ area: 'automations' });
    await ui.waitFor('NAME');
    await ui.press('n');
    await ui.waitFor('› Name');
    await ui.type('Nightly report');
    await ui.press(KEY.tab);
    await ui.type('Check the deploy');
    await ui.press(KEY.tab, KEY.right); // trigger: event
    await ui.waitFor('Event type');
    await ui.press(KEY.tab);
    await ui.type('deploy.finished');
    await ui.press(KEY.tab, KEY.tab); // provider stays generic → filters
    await ui.type('$.data.env equalz prod');
    await ui.waitFor('✗ filter line 1: no operator');
    for (let i = 0; i < 'equalz prod'.length; i++) await ui.press(KEY.backspace);
    await ui.type('equals prod');
    await ui.waitFor('Runs on generic events of type deploy.finished where 1 filter pass');

    await ui.press(KEY.ctrlS);
    const conflict = await ui.waitFor(/✗ CONFLICT: .*/);
    expect(line(conflict, 'CONFLICT')).not.toMatch(/at .*\.js/);
    await ui.press(KEY.shiftTab, KEY.shiftTab, KEY.shiftTab, KEY.shiftTab, KEY.shiftTab);
    await ui.waitFor('› Name');
    await ui.type(' 2');
    await ui.press(KEY.ctrlS);
    await ui.waitFor('✓ Created Nightly report 2');
    const frame = await ui.waitFor('event     generic/deploy.finished');
    expect(frame).toContain('$.data.env equals "prod"');
    ui.unmount();
  });
});
