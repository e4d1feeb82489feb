import { MAX_SKILL_BYTES, type ExpectedName } from './skill-file.js';

/** One entry of a GitHub git tree listing, path relative to the repository root. */
export interface TreeEntry {
  path: string;
  mode: string;
  type: string;
  sha: string;
  size?: number;
}

export interface SkillCandidate {
  path: string;
  expected: ExpectedName;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

const SKILL_FILE = 'SKILL.md';
const SYMLINK_MODE = '120000';

/**
 * Picks the files worth downloading from a commit's tree, and lists up front those a skill author
 * would look for but that cannot count: look-alike names, symlinks, oversized files. A submodule
 * is one tree entry, not a file: what it holds is not listed, so nothing of it is a skill, and
 * nothing of it is skipped either (CONTRACT §8 lists files that fail).
 */
export function pickSkillFiles(
  entries: TreeEntry[],
  repositoryName: string,
): { candidates: SkillCandidate[]; skipped: SkippedFile[] } {
  const candidates: SkillCandidate[] = [];
  const skipped: SkippedFile[] = [];
  for (const entry of entries) {
    if (entry.type !== 'blob') continue;
    const slash = entry.path.lastIndexOf('/');
    const base = entry.path.slice(slash + 1);
    if (base !== SKILL_FILE) {
      if (base.toLowerCase() === SKILL_FILE.toLowerCase()) {
        skipped.push({ path: entry.path, reason: `file must be named exactly ${SKILL_FILE}` });
      }
      continue;
    }
    if (!isPlainRepositoryPath(entry.path)) {
      // Git refuses such paths, so only a host that is not GitHub lists them; fetched, `..` would
      // be resolved by the URL and read a file outside OWNER/NAME/COMMIT (another repository's).
      skipped.push({ path: entry.path, reason: 'path has an empty, "." or ".." segment: not a file inside the repository' });
      continue;
    }
    if (entry.mode === SYMLINK_MODE) {
      skipped.push({ path: entry.path, reason: 'symbolic link: a skill must be a regular file' });
      continue;
    }
    if (entry.size !== undefined && entry.size > MAX_SKILL_BYTES) {
      skipped.push({ path: entry.path, reason: tooLargeReason(entry.size) });
      continue;
    }
    const expected: ExpectedName =
      slash === -1
        ? { name: repositoryName.toLowerCase(), from: 'repository' }
        : { name: entry.path.slice(entry.path.lastIndexOf('/', slash - 1) + 1, slash), from: 'folder' };
    candidates.push({ path: entry.path, expected });
  }
  return { candidates, skipped };
}

/** A path of named segments below the repository root: no empty, `.` or `..` segment. */
function isPlainRepositoryPath(path: string): boolean {
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

export function tooLargeReason(size?: number): string {
  return size === undefined
    ? `file is larger than the limit of ${MAX_SKILL_BYTES} bytes`
    : `file is ${size} bytes; the limit is ${MAX_SKILL_BYTES} bytes`;
}

/** Code-unit order, so the result does not depend on the daemon's locale. */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
