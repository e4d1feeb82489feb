import { describe, expect, it } from 'vitest';
import { byPath, pickSkillFiles, type TreeEntry } from '../../daemon/skills/tree-entries.js';

const blob = (path: string, size = 100, mode = '100644'): TreeEntry => ({ path, mode, type: 'blob', sha: 'b'.repeat(40), size });

describe('pickSkillFiles', () => {
  it('picks every file named exactly SKILL.md, hidden folders and the root included, with the name each must carry', () => {
    const { candidates, skipped } = pickSkillFiles(
      [
        blob('SKILL.md'),
        blob('skills/a/SKILL.md'),
        blob('skills/.curated/b/SKILL.md'),
        blob('skills/a/notes.md'),
        { path: 'skills', mode: '040000', type: 'tree', sha: 't'.repeat(40) },
        blob('x/y/z/deep-one/SKILL.md', 100, '100755'),
      ],
      'My-Skills',
    );
    expect(skipped).toEqual([]);
    expect(candidates).toEqual([
      { path: 'SKILL.md', expected: { name: 'my-skills', from: 'repository' } },
      { path: 'skills/a/SKILL.md', expected: { name: 'a', from: 'folder' } },
      { path: 'skills/.curated/b/SKILL.md', expected: { name: 'b', from: 'folder' } },
      { path: 'x/y/z/deep-one/SKILL.md', expected: { name: 'deep-one', from: 'folder' } },
    ]);
  });

  it('lists look-alike names, symlinks and oversized files as skipped, without downloading them, and passes over submodules', () => {
    const { candidates, skipped } = pickSkillFiles(
      [
        blob('a/skill.md'),
        blob('b/Skill.md'),
        blob('c/SKILL.MD'),
        blob('d/SKILL.md', 20, '120000'),
        blob('e/SKILL.md', 131073),
        blob('f/SKILL.md', 131072),
        { path: 'vendor/lib', mode: '160000', type: 'commit', sha: 'c'.repeat(40) },
        blob('g/SKILLS.md'),
      ],
      'repo',
    );
    expect(candidates.map((c) => c.path)).toEqual(['f/SKILL.md']);
    expect(skipped).toEqual([
      { path: 'a/skill.md', reason: 'file must be named exactly SKILL.md' },
      { path: 'b/Skill.md', reason: 'file must be named exactly SKILL.md' },
      { path: 'c/SKILL.MD', reason: 'file must be named exactly SKILL.md' },
      { path: 'd/SKILL.md', reason: 'symbolic link: a skill must be a regular file' },
      { path: 'e/SKILL.md', reason: 'file is 131073 bytes; the limit is 131072 bytes' },
    ]);
  });

  it('ignores a folder named SKILL.md', () => {
    const { candidates, skipped } = pickSkillFiles([{ path: 'x/SKILL.md', mode: '040000', type: 'tree', sha: 't'.repeat(40) }], 'r');
    expect({ candidates, skipped }).toEqual({ candidates: [], skipped: [] });
  });
});

describe('byPath', () => {
  it('sorts by code unit, independent of locale (capitals and dots before lowercase)', () => {
    const paths = ['skills/b/SKILL.md', 'skills/.curated/a/SKILL.md', 'SKILL.md', 'skills/B/SKILL.md', 'skills/a/SKILL.md'];
    expect(paths.map((path) => ({ path })).sort(byPath).map((p) => p.path)).toEqual([
      'SKILL.md',
      'skills/.curated/a/SKILL.md',
      'skills/B/SKILL.md',
      'skills/a/SKILL.md',
      'skills/b/SKILL.md',
    ]);
  });
});
