import { describe, expect, it } from 'vitest';
import { ApiError } from '../../daemon/errors.js';
import { assertRefName, refNameProblem } from '../../daemon/skills/ref-name.js';

describe('refNameProblem (git check-ref-format --allow-onelevel)', () => {
  it.each(['main', 'v1.2.3', 'feature/new-skill', 'release/2024/q1', 'HEAD', 'a@b', 'ünïcode', 'x.lockx', 'refs/heads/main', 'a-b_c+d'])(
    'accepts %s',
    (ref) => {
      expect(refNameProblem(ref)).toBeUndefined();
    },
  );

  it.each([
    ['empty', ''],
    ['a lone @', '@'],
    ['a space', 'my branch'],
    ['a tab', 'a\tb'],
    ['a control character', 'a\u0001b'],
    ['DEL', 'a\u007fb'],
    ['a tilde', 'main~1'],
    ['a caret', 'main^'],
    ['a colon', 'a:b'],
    ['a question mark', 'a?'],
    ['an asterisk', 'feat/*'],
    ['an open bracket', 'a[b'],
    ['a backslash', 'a\\b'],
    ['two dots', 'a..b'],
    ['@{', 'main@{1}'],
    ['a leading slash', '/main'],
    ['a trailing slash', 'main/'],
    ['a double slash', 'a//b'],
    ['a trailing dot', 'main.'],
    ['a component starting with a dot', 'feature/.hidden'],
    ['a leading dot', '.main'],
    ['a component ending in .lock', 'main.lock'],
    ['an inner component ending in .lock', 'a.lock/b'],
  ])('rejects %s', (_what, ref) => {
    expect(refNameProblem(ref)).toEqual(expect.any(String));
  });

  it('assertRefName throws a 400 VALIDATION_ERROR that explains the rule', () => {
    let caught: unknown;
    try {
      assertRefName('main..x');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect((caught as ApiError).code).toBe('VALIDATION_ERROR');
    expect((caught as ApiError).message).toBe('ref is not a valid branch or tag name: ref must not contain ".."');
  });
});
