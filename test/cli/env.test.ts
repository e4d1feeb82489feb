// `svc env list|set|unset` as the real bin/svc.js against a real daemon. The value of a variable
// must never show up in anything the CLI prints, on success or on failure; the daemon's exec
// runner (which hands variables to the command it runs) shows what was actually stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliSandbox, envFor, makeSandbox, runSvc, type RunResult } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { plainText, ptyAvailable, runInPty } from '../helpers/pty.js';

let d: TestDaemon;
let sb: CliSandbox;

const svc = (args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}) => runSvc(sb, args, opts);

/** Neither stream carries the value. */
function expectSecret(r: RunResult, value: string) {
  expect(r.stdout).not.toContain(value);
  expect(r.stderr).not.toContain(value);
}

/**
 * What a session's command saw in $PLAIN_VALUE, in brackets. The command prints it as hex: the
 * daemon redacts env var values from stored answers, so the value itself would not come back.
 */
async function valueSeenByRunner(): Promise<string> {
  const started = await svc(['sessions', 'start', '--prompt', 'show it', '--watch', '--interval', '0.1', '--json']);
  expect(started.code, started.stderr).toBe(0);
  const messages = started.json().messages as { role: string; content: string }[];
  return `[${Buffer.from(messages.find((m) => m.role === 'assistant')!.content, 'hex').toString('utf8')}]`;
}

beforeAll(async () => {
  d = await startTestDaemon({ runner: 'exec', runnerCommand: `printf '%s' "$PLAIN_VALUE" | od -An -v -tx1 | tr -d ' \\n'` });
  const { key } = await createTeam(d, 'acme');
  await d.admin('POST', '/admin/teams/acme/environments', { name: 'Staging', slug: 'staging' });
  sb = await makeSandbox({ env: envFor({ url: d.url, key, team: 'acme' }) });
});
afterAll(async () => {
  await d.destroy();
  await sb.cleanup();
});

describe('svc env set', () => {
  it('--value-stdin stores the value without its final newline and prints it nowhere', async () => {
    const value = 'stdin-value-7f3a';
    const r = await svc(['env', 'set', 'PLAIN_VALUE', '--value-stdin', '--no-secret'], { input: `${value}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Set PLAIN_VALUE in environment default of team acme.');
    expectSecret(r, value);
    expect(await valueSeenByRunner()).toBe(`[${value}]`);
  });

  it('--value-stdin keeps inner line breaks and spaces; only one final newline goes', async () => {
    const r = await svc(['env', 'set', 'PLAIN_VALUE', '--value-stdin', '--no-secret'], { input: '  two\nlines \n\n' });
    expect(r.code).toBe(0);
    expect(await valueSeenByRunner()).toBe('[  two\nlines \n]');
  });

  it('--value sets the value; --json prints the list item, which holds no value', async () => {
    const value = 'flag-value-91c2';
    const r = await svc(['env', 'set', 'API_TOKEN', '--value', value, '--json']);
    expect(r.code).toBe(0);
    const item = r.json();
    expect(item).toEqual({ name: 'API_TOKEN', has_value: true, is_secret: true, environment_id: expect.any(String) });
    expectSecret(r, value);
  });

  it('--secret and --no-secret choose is_secret; without either a new variable is secret', async () => {
    expect((await svc(['env', 'set', 'S1', '--value', 'x', '--json'])).json().is_secret).toBe(true);
    expect((await svc(['env', 'set', 'S1', '--value', 'x', '--no-secret', '--json'])).json().is_secret).toBe(false);
    expect((await svc(['env', 'set', 'S1', '--value', 'x', '--secret', '--json'])).json().is_secret).toBe(true);
  });

  it('--env and --env-id pick the environment; an unknown one exits 4 without the value in the error', async () => {
    const bySlug = await svc(['env', 'set', 'REGION', '--value', 'eu-west-1', '--env', 'staging', '--json']);
    expect(bySlug.code).toBe(0);
    const stagingId = bySlug.json().environment_id;
    const byId = await svc(['env', 'set', 'REGION', '--value', 'eu-west-2', '--env-id', stagingId, '--json']);
    expect(byId.json().environment_id).toBe(stagingId);

    const value = 'never-shown-5b1e';
    const missing = await svc(['env', 'set', 'REGION', '--value', value, '--env', 'nowhere']);
    expect(missing.code).toBe(4);
    expectSecret(missing, value);
    const both = await svc(['env', 'set', 'REGION', '--value', value, '--env', 'staging', '--env-id', stagingId]);
    expect(both.code).toBe(2);
    expectSecret(both, value);
  });

  it('the daemon refusing a name or a value (exit 5) never echoes the value', async () => {
    const value = 'refused-value-33d0';
    const badName = await svc(['env', 'set', '1BAD-NAME', '--value', value]);
    expect(badName.code).toBe(5);
    expectSecret(badName, value);
    const huge = `${value}${'x'.repeat(70_000)}`;
    const tooLarge = await svc(['env', 'set', 'BIG', '--value-stdin'], { input: huge });
    expect(tooLarge.code).toBe(5);
    expectSecret(tooLarge, value);
  });

  it('without --value or --value-stdin and no terminal it is a usage error naming --value-stdin', async () => {
    const r = await svc(['env', 'set', 'NEEDS_VALUE']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--value-stdin');
    expect(r.stdout).toBe('');
  });

  it('refuses --value with --value-stdin, and an empty stdin (exit 2)', async () => {
    const both = await svc(['env', 'set', 'X', '--value', 'a', '--value-stdin'], { input: 'b' });
    expect(both.code).toBe(2);
    const empty = await svc(['env', 'set', 'X', '--value-stdin'], { input: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/stdin was empty/);
  });

  it.skipIf(!ptyAvailable())('on a terminal asks for the value at a hidden prompt: the typed value is not echoed', async () => {
    const value = 'typed-secret-c0ffee';
    const r = await runInPty(sb, ['env', 'set', 'TYPED'], { answers: [{ when: /input is hidden\): /, send: `${value}\r` }] });
    expect(r.code, r.output).toBe(0);
    expect(r.output).not.toContain(value);
    expect(plainText(r.output)).toContain('Set TYPED in environment default of team acme (secret).');
    const listed = (await svc(['env', 'list', '--json'])).json() as { name: string }[];
    expect(listed.map((v) => v.name)).toContain('TYPED');
  });
});

describe('svc env list', () => {
  it('shows names, environment slugs and secrecy in aligned columns, never values', async () => {
    await svc(['env', 'set', 'LISTED', '--value', 'listed-value-0a0a', '--no-secret']);
    const r = await svc(['env', 'list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+ENVIRONMENT\s+SECRET\s+VALUE$/);
    expect(lines).toContainEqual(expect.stringMatching(/^LISTED\s+default\s+no\s+set$/));
    expect(lines).toContainEqual(expect.stringMatching(/^REGION\s+staging\s+yes\s+set$/));
    expect(r.stdout).not.toContain('listed-value-0a0a');
  });

  it('--env limits the list to one environment; --json prints only the array', async () => {
    const r = await svc(['env', 'list', '--env', 'staging', '--json']);
    expect(r.code).toBe(0);
    const vars = r.json<{ name: string }[]>();
    expect(vars.map((v) => v.name)).toEqual(['REGION']);
    const none = await svc(['env', 'list', '--env', 'nowhere']);
    expect(none.code).toBe(4);
  });

  it('without a team key exits 3 and says to log in', async () => {
    const r = await svc(['env', 'list'], { env: { SVC_API_KEY: undefined } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/svc login/);
  });

  it('without a team exits 2 and says how to give one', async () => {
    const r = await svc(['env', 'list'], { env: { SVC_TEAM: undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--team SLUG/);
  });
});

describe('svc env unset', () => {
  it('without --yes and no terminal is a usage error naming --yes; the variable stays', async () => {
    await svc(['env', 'set', 'GOES', '--value', 'v']);
    const r = await svc(['env', 'unset', 'GOES']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--yes');
    expect(((await svc(['env', 'list', '--json'])).json() as { name: string }[]).some((v) => v.name === 'GOES')).toBe(true);
  });

  it('--yes deletes it (--json prints success); a second time exits 4', async () => {
    const r = await svc(['env', 'unset', 'GOES', '--yes', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual({ success: true });
    expect(r.stderr).toContain('Deleted GOES from environment default of team acme.');
    const again = await svc(['env', 'unset', 'GOES', '--yes']);
    expect(again.code).toBe(4);
  });

  it('--env deletes from that environment only', async () => {
    await svc(['env', 'set', 'TWICE', '--value', 'a']);
    await svc(['env', 'set', 'TWICE', '--value', 'b', '--env', 'staging']);
    expect((await svc(['env', 'unset', 'TWICE', '--env', 'staging', '--yes'])).code).toBe(0);
    const left = (await svc(['env', 'list', '--json'])).json() as { name: string }[];
    expect(left.filter((v) => v.name === 'TWICE')).toHaveLength(1);
  });

  it.skipIf(!ptyAvailable())('on a terminal asks first: "n" keeps the variable (exit 2), "y" deletes it', async () => {
    await svc(['env', 'set', 'ASKED', '--value', 'v']);
    const no = await runInPty(sb, ['env', 'unset', 'ASKED'], { answers: [{ when: /\[y\/N\]/, send: 'n\r' }] });
    expect(no.code).toBe(2);
    expect(plainText(no.output)).toContain('Delete ASKED from environment default of team acme?');
    const yes = await runInPty(sb, ['env', 'unset', 'ASKED'], { answers: [{ when: /\[y\/N\]/, send: 'y\r' }] });
    expect(yes.code).toBe(0);
    const left = (await svc(['env', 'list', '--json'])).json() as { name: string }[];
    expect(left.some((v) => v.name === 'ASKED')).toBe(false);
  });
});
