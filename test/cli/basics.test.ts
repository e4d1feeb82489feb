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
    expect((await runSvc(sb, ['help', 'daemon', 'start', '--profile', 'x'])).stdout).toBe(r.stdout);
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

  describe('svc help X --json', () => {
    const helpJson = async (...args: string[]) => {
      const r = await runSvc(sb, ['help', ...args, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const OPTION_KEYS = ['choices', 'default', 'description', 'flags', 'long', 'repeatable', 'required', 'short', 'value'];

    it("prints a command's arguments, options, global options and examples as one JSON document", async () => {
      const get = await helpJson('automations', 'get');
      expect(Object.keys(get).sort()).toEqual(['arguments', 'description', 'examples', 'global_options', 'name', 'options', 'subcommands', 'usage']);
      expect(get).toMatchObject({ name: 'svc automations get', usage: '[options] <automation>', subcommands: [] });
      expect(get.arguments).toEqual([{ name: 'automation', description: expect.any(String), required: true, variadic: false, choices: null }]);
      for (const o of [...get.options, ...get.global_options]) expect(Object.keys(o).sort()).toEqual(OPTION_KEYS);
      expect(get.global_options.map((o: any) => o.long)).toEqual(['--json', '--profile', '--url', '--team', '--no-color', '--wait', '--no-wait']);

      const create = await helpJson('automations', 'create');
      const option = (long: string) => create.options.find((o: any) => o.long === long);
      expect(option('--cron')).toMatchObject({ flags: '--cron <expr>', value: 'required', repeatable: true, required: false });
      expect(option('--status')).toMatchObject({ choices: ['active', 'paused', 'disabled'], repeatable: false });
      expect(option('--file')).toMatchObject({ short: '-f', value: 'required' });
      expect(create.examples).toContainEqual({ description: 'From a file (the API body, JSON or YAML)', command: 'svc automations create -f nightly.yaml' });
      expect((await helpJson('automations', 'apply')).options.find((o: any) => o.long === '--file')).toMatchObject({ required: true });
    });

    it('lists a group\'s commands, and for `svc help --json` the top level, with the same shape', async () => {
      const group = await helpJson('automations');
      expect(group).toMatchObject({ name: 'svc automations', options: [], arguments: [], examples: [] });
      expect(group.subcommands).toContainEqual({ name: 'svc automations apply', description: expect.stringContaining('matched by name') });
      const root = (await runSvc(sb, ['--json', 'help']));
      expect(root.code).toBe(0);
      const top = JSON.parse(root.stdout);
      expect(top.name).toBe('svc');
      expect(top.options.map((o: any) => o.long)).toEqual(['--version']);
      expect(top.subcommands.map((c: any) => c.name)).toEqual(expect.arrayContaining(['svc login', 'svc automations', 'svc admin']));
      // the other names gh users type (`auth login`) are not listed twice
      expect((await helpJson('auth')).subcommands.map((c: any) => c.name)).toEqual(['svc auth status']);
    });

    it('refuses an unknown command with exit 2, the error on stderr and nothing on stdout', async () => {
      for (const args of [['help', 'nope', '--json'], ['--json', 'help', 'automations', 'lis'], ['help', 'automations', 'list', 'extra', '--json']]) {
        const r = await runSvc(sb, args);
        expect([r.code, r.stdout], args.join(' ')).toEqual([2, '']);
        expect(r.stderr).toMatch(/^error: unknown command '.+': run `svc --help` for the list\n$/);
      }
    });
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
