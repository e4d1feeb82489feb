// Flags and SVC_* variables into DaemonOptions (cli/daemon-launch.ts): flags win over the
// environment, and runner settings reach the options the runner factory reads.
import { describe, expect, it } from 'vitest';
import { buildDaemonOptions } from '../../cli/daemon-launch.js';
import { UsageError } from '../../cli/errors.js';

const build = (flags: Parameters<typeof buildDaemonOptions>[0], env: NodeJS.ProcessEnv = {}) => buildDaemonOptions(flags, env, '/tmp/svc-default');

describe('buildDaemonOptions', () => {
  it('passes --runner-concurrency and --runner-secret on', () => {
    const o = build({ runner: 'exec', runnerCommand: 'cat', runnerConcurrency: 2 });
    expect(o).toMatchObject({ runner: 'exec', runnerCommand: 'cat', runnerConcurrency: 2 });
    expect(build({ runner: 'webhook', runnerUrl: 'http://h/turns', runnerSecret: 'flag-key' }).runnerSecret).toBe('flag-key');
  });

  it('passes the three limits on', () => {
    expect(build({ rateLimit: 5, adminRateLimit: 6, authFailureLimit: 7 })).toMatchObject({ rateLimit: 5, adminRateLimit: 6, authFailureLimit: 7 });
  });

  it('takes the webhook key from SVC_RUNNER_SECRET, and the flag over it', () => {
    const env = { SVC_RUNNER_SECRET: 'env-key' };
    expect(build({ runner: 'webhook', runnerUrl: 'http://h/turns' }, env).runnerSecret).toBe('env-key');
    expect(build({ runner: 'webhook', runnerUrl: 'http://h/turns', runnerSecret: 'flag-key' }, env).runnerSecret).toBe('flag-key');
    expect(build({}).runnerSecret).toBeUndefined();
  });

  it('refuses a blank --runner-command and a --runner-url that is not http(s), before anything starts', () => {
    expect(() => build({ runner: 'exec', runnerCommand: '   ' })).toThrow('--runner exec needs --runner-command CMD');
    expect(() => build({ runner: 'webhook', runnerUrl: 'ftp://example.com/hook' })).toThrow('--runner-url must be an http(s) URL');
    expect(() => build({ runner: 'webhook', runnerUrl: 'not a url' })).toThrow(UsageError);
    expect(build({ runner: 'webhook', runnerUrl: 'https://example.com/hook' }).runnerUrl).toBe('https://example.com/hook');
  });

  it('refuses an empty webhook key rather than signing with one', () => {
    expect(() => build({ runner: 'webhook', runnerUrl: 'http://h/turns' }, { SVC_RUNNER_SECRET: ' ' })).toThrow(UsageError);
    expect(() => build({ runnerSecret: '' })).toThrow('--runner-secret (or SVC_RUNNER_SECRET) must not be empty');
  });
});
