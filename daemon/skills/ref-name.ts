import { invalid } from '../errors.js';

// git check-ref-format, with --allow-onelevel since a branch or tag is given by its short name.
const FORBIDDEN_CHARS = /[\x00-\x20\x7f~^:?*[\\]/;

/** Why `ref` is not a valid git ref name, or undefined when it is. */
export function refNameProblem(ref: string): string | undefined {
  if (ref.length === 0) return 'ref must not be empty';
  if (ref === '@') return 'ref must not be "@"';
  if (FORBIDDEN_CHARS.test(ref)) return 'ref must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (ref.includes('..')) return 'ref must not contain ".."';
  if (ref.includes('@{')) return 'ref must not contain "@{"';
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) {
    return 'ref must not start or end with "/" or contain "//"';
  }
  if (ref.endsWith('.')) return 'ref must not end with "."';
  for (const part of ref.split('/')) {
    if (part.startsWith('.')) return 'no part of a ref may start with "."';
    if (part.endsWith('.lock')) return 'no part of a ref may end with ".lock"';
  }
  return undefined;
}

export function assertRefName(ref: string): void {
  const problem = refNameProblem(ref);
  if (problem) throw invalid(`ref is not a valid branch or tag name: ${problem}`);
}
