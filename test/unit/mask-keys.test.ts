import { describe, expect, it } from 'vitest';
import { maskKeys } from '../../daemon/mask-keys.js';

describe('maskKeys', () => {
  it('masks a key wherever it starts, keeping its prefix as written', () => {
    const cases: [string, string][] = [
      ['/x?api_key=svc_team_abc123&y=1', '/x?api_key=svc_team_[redacted]&y=1'],
      ['/x/svc_proj_abc/y', '/x/svc_proj_[redacted]/y'],
      ['Bearer%20svc_team_abc', 'Bearer%20svc_team_[redacted]'],
      ['body.key_svc_admin_abc is not allowed', 'body.key_svc_admin_[redacted] is not allowed'],
      ['/nope/svc%5Fteam%5Fabc', '/nope/svc%5Fteam%5F[redacted]'],
      ['/nope/svc%5fteam%5fabc', '/nope/svc%5fteam%5f[redacted]'],
      ['/nope/%73vc_proj_abc', '/nope/%73vc_proj_[redacted]'],
      ['/nope/%73%76%63%5F%61dmin_abc', '/nope/%73%76%63%5F%61dmin_[redacted]'],
      ['SVC_TEAM_abc', 'SVC_TEAM_[redacted]'],
    ];
    for (const [text, masked] of cases) expect(maskKeys(text), text).toBe(masked);
  });

  it('leaves text without a key alone', () => {
    for (const text of ['/teams/acme/env-vars', 'svc_team_', 'svc_other_abc', 'svc%5Fteam']) expect(maskKeys(text)).toBe(text);
  });
});
