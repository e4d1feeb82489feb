// `svc skills scan` as the real bin/svc.js against a real daemon that reads a local fake GitHub
// (the REST endpoints and the raw host), holding a repository with every case the scanner tells
// apart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_DESCRIPTION, VALID, everyCase, skillMd } from '../fixtures/skills/repos.js';
import { type CliSandbox, envFor, makeSandbox, runSvc } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { FakeGitHub } from '../helpers/fake-github.js';
import { plainText, ptyAvailable, runInPty } from '../helpers/pty.js';

let d: TestDaemon;
let fake: FakeGitHub;
let sb: CliSandbox;

const REPO = 'https://github.com/acme/skills';
const svc = (args: string[], env?: Record<string, string | undefined>) => runSvc(sb, args, { env });

beforeAll(async () => {
  fake = await FakeGitHub.start();
  const repo = fake.addRepo('Acme/Skills', { files: everyCase() });
  repo.tag('v1.0.0', repo.commit({ 'tools/lint/SKILL.md': skillMd('name: lint\ndescription: Lint the code base.') }));
  fake.addRepo('acme/wide', {
    files: { 'skills/wide/SKILL.md': skillMd(`name: wide\ndescription: "${LONG_DESCRIPTION.slice(0, 600).trim()}"`) },
  });
  fake.intercept({ match: /^api \/repos\/acme\/flaky/, status: 500, body: { message: 'Server Error' } });
  d = await startTestDaemon({ githubApiUrl: fake.apiUrl, githubRawUrl: fake.rawUrl });
  const { key } = await createTeam(d, 'acme');
  sb = await makeSandbox({ env: envFor({ url: d.url, key, team: 'acme' }) });
});
afterAll(async () => {
  await d.destroy();
  await fake.close();
  await sb.cleanup();
});

/** The rows of the table that starts with `header` (up to the first blank line). */
function tableAfter(stdout: string, header: RegExp): string[] {
  const lines = stdout.split('\n');
  const start = lines.findIndex((l) => header.test(l));
  expect(start, `no table headed ${header} in:\n${stdout}`).toBeGreaterThan(-1);
  const end = lines.findIndex((l, i) => i > start && l.trim() === '');
  return lines.slice(start + 1, end === -1 ? undefined : end);
}

describe('svc skills scan', () => {
  it('scans main by default: a table of skills, then the skipped files with their reasons', async () => {
    const r = await svc(['skills', 'scan', REPO]);
    expect(r.code, r.stderr).toBe(0);
    const skills = tableAfter(r.stdout, /^NAME\s+PATH\s+SIZE\s+DESCRIPTION$/);
    expect(skills).toHaveLength(Object.keys(VALID).length);
    expect(skills).toContainEqual(
      expect.stringMatching(/^pdf-tools\s+skills\/pdf-tools\/SKILL\.md\s+\d+ B\s+Fill, merge and split PDF files\. Use when the user hands over a PDF\.$/),
    );
    // without a terminal, descriptions are printed whole, line breaks folded
    expect(skills).toContainEqual(expect.stringMatching(/api-guide\s.*Reference for the widget API\. TRIGGER when the user names the API\.$/));

    expect(r.stdout).toMatch(/\nSkipped:\n/);
    const skipped = tableAfter(r.stdout.slice(r.stdout.indexOf('Skipped:')), /^PATH\s+REASON$/);
    expect(skipped).toContainEqual(expect.stringMatching(/^skills\/no-description\/SKILL\.md\s+description is missing$/));
    expect(skipped).toContainEqual(expect.stringMatching(/^skills\/linked\/SKILL\.md\s+\S.*$/));

    expect(r.stderr).toMatch(/^Acme\/Skills at main \([0-9a-f]{7}\): 7 skills, \d+ files skipped\.$/m);
    expect(r.stdout).not.toContain('\u001b[');
  });

  it('--json prints only the scan result', async () => {
    const r = await svc(['skills', 'scan', REPO, '--json']);
    expect(r.code).toBe(0);
    const result = r.json();
    expect(result).toMatchObject({ repository: 'Acme/Skills', ref: 'main' });
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(result.skills.map((s: { path: string }) => s.path)).toEqual(Object.keys(VALID).sort());
    expect(result.skipped.find((s: { path: string }) => s.path === 'skills/no-description/SKILL.md').reason).toBe('description is missing');
  });

  it('--ref scans a tag', async () => {
    const r = await svc(['skills', 'scan', `${REPO}.git`, '--ref', 'v1.0.0', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ ref: 'v1.0.0', skills: [{ name: 'lint', path: 'tools/lint/SKILL.md' }], skipped: [] });
  });

  it('a repository with nothing to skip prints no skipped section', async () => {
    const r = await svc(['skills', 'scan', REPO, '--ref', 'v1.0.0']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Skipped');
    expect(r.stderr).toContain(': 1 skill, 0 files skipped.');
  });

  it('a missing repository or ref exits 4', async () => {
    expect((await svc(['skills', 'scan', 'https://github.com/acme/missing'])).code).toBe(4);
    const ref = await svc(['skills', 'scan', REPO, '--ref', 'no-such-branch']);
    expect(ref.code).toBe(4);
    expect(ref.stdout).toBe('');
  });

  it('a URL of another host or an invalid ref exits 5', async () => {
    const host = await svc(['skills', 'scan', 'https://gitlab.com/acme/skills']);
    expect(host.code).toBe(5);
    expect(host.stderr).toMatch(/VALIDATION_ERROR/);
    expect((await svc(['skills', 'scan', REPO, '--ref', 'bad..ref'])).code).toBe(5);
  });

  it('GitHub failing exits 7 (502 SKILL_SOURCE_UNAVAILABLE)', async () => {
    const r = await svc(['skills', 'scan', 'https://github.com/acme/flaky']);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/SKILL_SOURCE_UNAVAILABLE, HTTP 502/);
  });

  it('an unreachable daemon exits 7 and says it cannot reach it', async () => {
    const r = await svc(['skills', 'scan', REPO], { SVC_BASE_URL: 'http://127.0.0.1:9' });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it('without a repository argument it is a usage error (2)', async () => {
    const r = await svc(['skills', 'scan']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/repository/);
  });

  it.skipIf(!ptyAvailable())('on an 80-column terminal shows a spinner and keeps every skill row within the width', async () => {
    const r = await runInPty(sb, ['skills', 'scan', 'https://github.com/acme/wide'], { columns: 80 });
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Scanning https:\/\/github\.com\/acme\/wide at main…/);
    const rows = tableAfter(plainText(r.output), /^NAME\s+PATH\s+SIZE\s+DESCRIPTION$/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^wide\s+skills\/wide\/SKILL\.md\s+\d+(\.\d)? K?B\s+Reference for the widget API\..*…$/);
    expect(Array.from(rows[0]).length).toBeLessThanOrEqual(80);
  });

  it.skipIf(!ptyAvailable())('on a terminal prints each skipped file with its whole reason on a line of its own', async () => {
    const r = await runInPty(sb, ['skills', 'scan', REPO], { columns: 60 });
    expect(r.code, r.output).toBe(0);
    const text = plainText(r.output);
    expect(text).toMatch(/^Skipped \(\d+\):$/m);
    expect(text).toContain('  template/SKILL.md\n    name "template-skill" must equal the name of its folder, "template"\n');
  });
});
