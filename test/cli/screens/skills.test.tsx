import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGitHub } from '../../helpers/fake-github.js';
import { fitsTerminal, type Harness, KEY, startHarness } from './harness.js';

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

let fake: FakeGitHub;
let h: Harness;
beforeAll(async () => {
  fake = await FakeGitHub.start();
  fake.addRepo('acme/skills', {
    files: {
      'skills/pdf-tools/SKILL.md': skill('pdf-tools', 'Fill, merge and split PDF files.'),
      'skills/release-notes/SKILL.md': skill('release-notes', 'Draft release notes from merged pull requests.'),
      'skills/Broken/SKILL.md': skill('not-broken', 'Name and folder disagree.'),
      'skills/lower/skill.md': skill('lower', 'Wrong case of the file name.'),
      'README.md': '# skills\n',
    },
  });
  const many: Record<string, string> = {};
  for (let i = 1; i <= 14; i++) many[`s${String(i).padStart(2, '0')}/SKILL.md`] = skill(`s${String(i).padStart(2, '0')}`, `Skill number ${i}.`);
  fake.addRepo('acme/many', { files: many });
  h = await startHarness({ githubApiUrl: fake.apiUrl, githubRawUrl: fake.rawUrl });
});
afterAll(async () => {
  await h.close();
  await fake.close();
});

describe('skills screen', () => {
  it('scans a repository at a ref: a spinner meanwhile, then skills with path and size, and skipped files with reasons', async () => {
    // hold GitHub's first answer back so the spinner can be seen
    fake.intercept({ match: /^api \/repos\/acme\/skills$/, delayMs: 400, times: 1 });
    const ui = h.open({ area: 'skills' });
    await ui.waitFor('› Repository');
    await ui.type('https://github.com/acme/skills');
    await ui.press(KEY.tab); // Ref is "main" already
    await ui.press(KEY.enter);
    await ui.waitFor('Scanning https://github.com/acme/skills at main…');
    const frame = await ui.waitFor('SKILLS (2)');
    expect(frame).toMatch(/acme\/skills @ main \([0-9a-f]{7}\) · 2 skills · 2 skipped/);
    expect(frame).toMatch(/NAME\s+SIZE\s+PATH \/ DESCRIPTION/);
    expect(frame).toMatch(/pdf-tools\s+\d+ B\s+skills\/pdf-tools\/SKILL\.md\n\s+Fill, merge and split PDF files\./);
    expect(frame).toMatch(/release-notes\s+\d+ B\s+skills\/release-notes\/SKILL\.md\n\s+Draft release notes from merged pull requests\./);
    expect(frame).toContain('SKIPPED (2)');
    expect(frame).toMatch(/skills\/Broken\/SKILL\.md\n\s+name "not-broken" must equal/);
    expect(frame).toMatch(/skills\/lower\/skill\.md\n\s+file must be named exactly SKILL\.md/);
    expect(fitsTerminal(frame)).toBe(true);
    ui.unmount();
  });

  it('scrolls results longer than the screen with j/k and G', async () => {
    const ui = h.open({ area: 'skills' });
    await ui.waitFor('› Repository');
    await ui.type('https://github.com/acme/many');
    await ui.press(KEY.ctrlS);
    const first = await ui.waitFor('SKILLS (14)');
    expect(first).toContain('j/k scroll');
    expect(first).not.toContain('Skill number 14.');
    await ui.press('j', 'j');
    await ui.waitFor((f) => !f.includes('SKILLS (14)') && f.includes('s01'));
    await ui.press('G');
    const last = await ui.waitFor('Skill number 14.');
    expect(last).toContain('SKIPPED (0)');
    expect(fitsTerminal(last)).toBe(true);
    ui.unmount();
  });

  it('shows an unknown repository as a one-line daemon error', async () => {
    const ui = h.open({ area: 'skills' });
    await ui.waitFor('› Repository');
    await ui.type('https://github.com/acme/nothing-here');
    await ui.press(KEY.ctrlS);
    const frame = await ui.waitFor('✗ NOT_FOUND');
    expect(frame.split('\n').filter((l) => l.includes('NOT_FOUND'))).toHaveLength(1);
    ui.unmount();
  });

  it('asks for a repository before scanning', async () => {
    const ui = h.open({ area: 'skills' });
    await ui.waitFor('› Repository');
    await ui.press(KEY.ctrlS);
    await ui.waitFor('✗ Repository and ref are both needed');
    ui.unmount();
  });
});
