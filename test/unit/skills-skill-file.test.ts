import { describe, expect, it } from 'vitest';
import { judgeSkillFile, MAX_FRONT_MATTER_BYTES, type ExpectedName } from '../../daemon/skills/skill-file.js';
import { INVALID, LONG_DESCRIPTION, skillMd, VALID } from '../fixtures/skills/repos.js';

const folder = (name: string): ExpectedName => ({ name, from: 'folder' });
const judge = (text: string | Uint8Array, expected = folder('my-skill')) =>
  judgeSkillFile(typeof text === 'string' ? Buffer.from(text) : text, expected);
const reasonOf = (text: string | Uint8Array, expected?: ExpectedName) => {
  const verdict = judge(text, expected);
  return verdict.ok ? undefined : verdict.reason;
};

describe('judgeSkillFile: valid skills', () => {
  it.each(Object.entries(VALID))('accepts %s', (path, content) => {
    const parent = path.split('/').at(-2) as string;
    const verdict = judge(content, folder(parent));
    expect(verdict).toEqual({ ok: true, skill: { name: parent, description: expect.any(String) } });
  });

  it('keeps a |- block scalar description with its line break and no trailing newline', () => {
    expect(judge(VALID['skills/api-guide/SKILL.md'], folder('api-guide'))).toEqual({
      ok: true,
      skill: { name: 'api-guide', description: 'Reference for the widget API.\nTRIGGER when the user names the API.' },
    });
  });

  it('unquotes a double-quoted description that contains a colon', () => {
    const verdict = judge(VALID['skills/ably-automation/SKILL.md'], folder('ably-automation'));
    expect(verdict.ok && verdict.skill.description).toBe('Automate Ably tasks: channels, keys and stats. Search tools first.');
  });

  it('ignores keys other than name and description, whatever their shape', () => {
    const text = skillMd('name: my-skill\ndescription: ok\nallowed-tools: [Read, Write]\nmetadata: {a: 1}\nversion: 2');
    expect(judge(text)).toEqual({ ok: true, skill: { name: 'my-skill', description: 'ok' } });
  });

  it('reads a file with CRLF line endings and a byte order mark', () => {
    expect(judge(VALID['skills/windows-saved/SKILL.md'], folder('windows-saved')).ok).toBe(true);
  });

  it('accepts a description of exactly 1024 code points, counting an emoji as one', () => {
    const description = `${'😀'.repeat(4)}${'a'.repeat(1020)}`;
    expect(description.length).toBe(1028);
    expect(judge(skillMd(`name: my-skill\ndescription: ${description}`)).ok).toBe(true);
  });

  it('accepts a name of exactly 64 characters', () => {
    const name = `a${'-b'.repeat(31)}a`;
    expect(name).toHaveLength(64);
    expect(judge(skillMd(`name: ${name}\ndescription: ok`), folder(name)).ok).toBe(true);
  });

  it('takes the repository name, lower-cased, for a SKILL.md at the root', () => {
    const text = skillMd('name: my-skills\ndescription: ok');
    expect(judge(text, { name: 'my-skills', from: 'repository' }).ok).toBe(true);
    expect(reasonOf(skillMd('name: other\ndescription: ok'), { name: 'my-skills', from: 'repository' })).toBe(
      'name "other" must equal the repository\'s name in lower case, "my-skills" (the file is at the repository\'s root)',
    );
  });

  it('allows a body that contains further --- lines', () => {
    expect(judge(skillMd('name: my-skill\ndescription: ok', 'Intro\n\n---\n\nMore\n---\n')).ok).toBe(true);
  });
});

describe('judgeSkillFile: the reason a person sees for a file that is not a skill', () => {
  it.each(Object.entries(INVALID))('skips %s', (path, { content, reason }) => {
    const parent = path.split('/').at(-2) as string;
    const got = reasonOf(content, folder(parent));
    if (typeof reason === 'string') expect(got).toBe(reason);
    else expect(got).toMatch(reason);
  });

  it.each([
    ['a description over 1024 code points', `name: my-skill\ndescription: ${'a'.repeat(1025)}`, 'description is 1025 characters long; the limit is 1024'],
    ['an empty description', 'name: my-skill\ndescription: ""', 'description is empty'],
    ['a description key with no value', 'name: my-skill\ndescription:', 'description is empty'],
    ['a description of spaces', 'name: my-skill\ndescription: "   "', 'description is empty'],
    ['a description of a zero-width space', 'name: my-skill\ndescription: "\\u200B"', 'description is empty'],
    [
      'a lone surrogate escaped in the description',
      'name: my-skill\ndescription: "lone \\uD800 surrogate"',
      'description has an unpaired UTF-16 surrogate (a lone \\ud800-\\udfff escape), which is not Unicode text',
    ],
    ['binary data as description', 'name: my-skill\ndescription: !!binary aGVsbG8=', 'description must be a string, found binary data (!!binary)'],
    ['front matter nested thousands deep', `name: my-skill\ndescription: ${'['.repeat(5000)}`, 'front matter nests lists or mappings too deeply to read'],
    ['a list as description', 'name: my-skill\ndescription: [a, b]', 'description must be a string, found a list'],
    ['a number as description', 'name: my-skill\ndescription: 42', 'description must be a string, found a number'],
    ['a missing name', 'description: ok', 'name is missing'],
    ['an empty name', 'name: ""\ndescription: ok', 'name is empty'],
    ['a number as name', 'name: 7\ndescription: ok', 'name must be a string, found a number (YAML reads 7 so; quote it: name: "7")'],
    ['a trailing hyphen', 'name: my-skill-\ndescription: ok', 'name "my-skill-" must not start or end with a hyphen'],
    ['a name over 64 characters', `name: ${'a'.repeat(65)}\ndescription: ok`, `name "${'a'.repeat(65)}" is 65 characters long; the limit is 64`],
    ['a very long name, shortened in the reason', `name: ${'a'.repeat(100)}\ndescription: ok`, `name "${'a'.repeat(77)}..." is 100 characters long; the limit is 64`],
    ['a name with a dot', 'name: my.skill\ndescription: ok', 'name "my.skill" may only contain lowercase letters a-z, digits and hyphens'],
    ['a non-ASCII name', 'name: mÿ-skill\ndescription: ok', 'name "mÿ-skill" may only contain lowercase letters a-z, digits and hyphens'],
    ['both fields wrong at once', 'name: My Skill', 'name "My Skill" may only contain lowercase letters a-z, digits and hyphens; description is missing'],
    ['a duplicated key', 'name: my-skill\nname: my-skill\ndescription: ok', 'front matter is not valid YAML: Map keys must be unique (line 3 of the file)'],
    ['tabs as indentation', 'name: my-skill\n\tdescription: ok', /^front matter is not valid YAML: /],
    ['a list as front matter', '- name\n- description', 'front matter must be a YAML mapping of keys to values (name: ..., description: ...)'],
    ['a scalar as front matter', 'just text', 'front matter must be a YAML mapping of keys to values (name: ..., description: ...)'],
    ['empty front matter', '', 'front matter is empty: it needs a name and a description'],
  ])('skips a file with %s', (_what, frontMatter, reason) => {
    const got = reasonOf(skillMd(frontMatter));
    if (typeof reason === 'string') expect(got).toBe(reason);
    else expect(got).toMatch(reason);
  });

  it('skips a name that differs from its folder only in letter case', () => {
    expect(reasonOf(skillMd('name: my-skill\ndescription: ok'), folder('My-Skill'))).toBe(
      'name "my-skill" must equal the name of its folder, "My-Skill"',
    );
  });

  it('skips a file whose front matter is never closed', () => {
    expect(reasonOf('---\nname: my-skill\ndescription: ok\n\n# Body\n')).toBe(
      "front matter is not closed: no line '---' after the opening one",
    );
  });

  it('skips a file whose front matter does not start on the first line', () => {
    expect(reasonOf(`\n${skillMd('name: my-skill\ndescription: ok')}`)).toMatch(/^no front matter: the file must start with a line '---'/);
  });

  it('skips an empty file', () => {
    expect(reasonOf('')).toMatch(/^no front matter/);
  });

  it('skips a file that is not valid UTF-8', () => {
    const bytes = Buffer.concat([Buffer.from('---\nname: my-skill\ndescription: caf'), Buffer.from([0xe9]), Buffer.from('\n---\n')]);
    expect(reasonOf(bytes)).toBe('file is not valid UTF-8 text');
  });

  it('refuses an alias bomb instead of expanding it', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 12; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
    const got = reasonOf(skillMd(`name: my-skill\ndescription: ok\n${lines.join('\n')}`));
    expect(got).toMatch(/^front matter is not valid YAML: /);
  });

  it('shows a long description count, not the description', () => {
    const got = reasonOf(skillMd(`name: my-skill\ndescription: |-\n  ${LONG_DESCRIPTION}`));
    expect(got).not.toContain('widget');
  });
});

describe('judgeSkillFile: hostile front matter', () => {
  it('does not parse front matter over 16 KiB, such as thousands of keys the YAML parser is slow on', () => {
    const keys = Array.from({ length: 8000 }, (_, i) => `k${i}: v${i}`).join('\n');
    expect(reasonOf(`---\nname: my-skill\ndescription: d\n${keys}\n---\nbody\n`)).toMatch(
      /^front matter is \d+ bytes, more than the 16384 read/,
    );
    // Right at the limit it is read as usual.
    const filler = `x: ${'a'.repeat(MAX_FRONT_MATTER_BYTES - 'name: my-skill\ndescription: d\nx: '.length)}`;
    expect(judge(`---\nname: my-skill\ndescription: d\n${filler}\n---\n`)).toEqual({ ok: true, skill: { name: 'my-skill', description: 'd' } });
  });
});
