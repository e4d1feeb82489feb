// The real bin/svc.js as a script sees it: version, help with examples, and usage errors (exit 2)
// that leave stdout empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CliSandbox, makeSandbox, REPO_ROOT, runSvc } from '../helpers/cli.js';

let sb: CliSandbox;
beforeAll(async () => {
  sb = await makeSandbox();
});
afterAll(async () => {
  await sb.cleanup();
});

const version = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;

describe('svc basics', () => {
  it('svc --version prints the package version on stdout and exits 0', async () => {
    const r = await runSvc(sb, ['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect((await runSvc(sb, ['-v'])).stdout).toBe(`${version}\n`);
  });

  it('svc --version --json prints one JSON document, as --json promises', async () => {
    for (const args of [['--version', '--json'], ['--json', '-v']]) {
      const r = await runSvc(sb, args);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ version });
    }
  });

  it('svc --help and bare svc list the commands and the global options, exit 0', async () => {
    for (const args of [['--help'], [], ['help']]) {
      const r = await runSvc(sb, args);
      expect(r.code).toBe(0);
      for (const word of ['login', 'logout', 'auth', 'daemon', 'dev', '--json', '--profile', '--no-color', '--url', '--team', '--no-wait']) {
        expect(r.stdout).toContain(word);
      }
    }
  });

  it('svc help <command> shows its options and examples, like --help after the command', async () => {
    const r = await runSvc(sb, ['help', 'daemon', 'start']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: svc daemon start');
    expect(r.stdout).toContain('--runner-timeout <seconds>');
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('$ svc daemon start --port 0');
    expect((await runSvc(sb, ['daemon', 'start', '--help'])).stdout).toBe(r.stdout);
    // global options after the words, as everywhere else
    expect((await runSvc(sb, ['help', 'daemon', 'start', '--json', '--profile', 'x'])).stdout).toBe(r.stdout);
    // and before them (it printed nothing, exit 0)
    const before = await runSvc(sb, ['--profile', 'x', 'help', 'daemon', 'start']);
    expect([before.code, before.stdout]).toEqual([0, r.stdout]);
    const unknown = await runSvc(sb, ['--json', 'help', 'nope']);
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toContain("unknown command 'nope'");
    const login = await runSvc(sb, ['help', 'login']);
    expect(login.stdout).toContain('--key-stdin');
    expect(login.stdout).toContain('Examples:');
  });

  it('an unknown command exits 2 with the error on stderr and nothing on stdout', async () => {
    const r = await runSvc(sb, ['automatons']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("unknown command 'automatons'");
    expect((await runSvc(sb, ['help', 'nope'])).code).toBe(2);
  });

  it('an unknown command is quoted inert: a control character typed in it prints as an escape', async () => {
    const r = await runSvc(sb, ['automations', 'lis\x1b[2J']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'lis\\x1b[2J'");
    expect(r.stderr).not.toContain('\x1b');
  });

  it('options without a command (svc --json, not on a terminal) exit 2 saying a command is missing', async () => {
    for (const args of [['--json'], ['--profile', 'dev']]) {
      const r = await runSvc(sb, args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('error: no command given: options such as --json go with one');
    }
  });

  it('takes the names gh users type: auth login, auth logout and env delete', async () => {
    expect((await runSvc(sb, ['auth', 'login', '--help'])).stdout).toContain('--key-stdin');
    expect((await runSvc(sb, ['auth', 'logout', '--help'])).code).toBe(0);
    expect((await runSvc(sb, ['env', 'delete', '--help'])).stdout).toContain('Delete an environment variable');
    // not listed twice
    expect((await runSvc(sb, ['auth', '--help'])).stdout).not.toMatch(/^\s+login/m);
  });

  it('an unknown option exits 2 and points at the command help', async () => {
    const r = await runSvc(sb, ['login', '--bogus']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("unknown option '--bogus'");
    expect(r.stderr).toContain('svc help login');
  });

  it('a bad option value, a missing argument, an extra argument and a bad choice each exit 2', async () => {
    for (const args of [
      ['daemon', 'start', '--port', 'eighty'],
      ['daemon', 'start', '--port', '70000'],
      ['daemon', 'start', '--runner', 'magic'],
      ['daemon', 'start', '--catch-up-window', 'soon'],
      ['api'],
      ['logout', 'extra'],
      ['login', '--project', 'p', '--admin'],
    ]) {
      const r = await runSvc(sb, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout, args.join(' ')).toBe('');
    }
  });

  it('a noun without a verb shows its commands and exits 2', async () => {
    const r = await runSvc(sb, ['auth']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('status');
  });

  it('an invalid --profile name is a usage error', async () => {
    const r = await runSvc(sb, ['--profile', 'a:b', 'auth', 'status']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("invalid profile name 'a:b'");
  });

  it('login without a terminal and without --key-stdin is a usage error naming --key-stdin', async () => {
    const r = await runSvc(sb, ['login', '--url', 'http://127.0.0.1:9', '--team', 'acme']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--key-stdin');
  });

  it('--runner exec without --runner-command is a usage error before anything starts', async () => {
    const r = await runSvc(sb, ['daemon', 'start', '--runner', 'exec', '--data', join(sb.home, 'd')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--runner-command');
  });

  it('a flag of another runner than the one chosen is a usage error, not silently ignored', async () => {
    const command = await runSvc(sb, ['daemon', 'start', '--runner-command', 'true', '--data', join(sb.home, 'd')]);
    expect([command.code, command.stderr]).toEqual([2, expect.stringContaining('--runner-command is for --runner exec: add --runner exec')]);
    const url = await runSvc(sb, ['daemon', 'start', '--runner', 'exec', '--runner-command', 'true', '--runner-url', 'http://x', '--data', join(sb.home, 'd')]);
    expect([url.code, url.stderr]).toEqual([2, expect.stringContaining('--runner-url is for --runner webhook')]);
  });
});
