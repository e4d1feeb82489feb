// `svc connections ...` and `svc events replay`, run as the real bin/svc.js against a real daemon.
// Secrets: printed once by create and rotate-secret, kept where the profile's key is (here the
// sandbox's 0600 file, as no keychain answers; the real keychain below when one does), used by
// `connections test` to sign a sample delivery the daemon verifies as it would the provider's.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KeychainUnavailable, systemKeychain } from '../../cli/credentials/keychain.js';
import { envFor, loginSvc, makeSandbox, runSvc, type CliSandbox, type RunOptions } from '../helpers/cli.js';
import { createTeam, startTestDaemon } from '../helpers/daemon.js';
import { useCliTeams } from '../helpers/cli-teams.js';

const cli = useCliTeams('conn');

/** A team of its own per test, so one test's deliveries and automations never meet another's. */
async function newTeam() {
  const t = await cli.newTeam();
  const create = async (provider: string, name: string, extra: string[] = [], opts: RunOptions = {}) => {
    const r = await t.svc(['connections', 'create', '--provider', provider, '--name', name, ...extra, '--json'], opts);
    expect(r.code, r.stderr).toBe(0);
    return r.json<{ id: string; secret: string; webhook_url: string; provider: string; name: string; secret_prefix: string }>();
  };
  return { ...t, create, automation: t.eventAutomation };
}

/** The secrets file of the sandbox: account -> secret. */
async function storedKeys(sb: CliSandbox): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(join(sb.configDir, 'credentials.json'), 'utf8')).keys ?? {};
  } catch {
    return {};
  }
}

describe('svc connections create', () => {
  it('--json prints the connection with its secret and webhook URL, and stores the secret under the profile', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'acme-repo');
    expect(c).toMatchObject({ provider: 'github', name: 'acme-repo', external_id: null, id: expect.any(String), secret: expect.any(String) });
    expect(c.webhook_url).toMatch(new RegExp(`/hooks/${c.id}$`));
    expect(c.secret.startsWith(c.secret_prefix)).toBe(true);
    expect((await storedKeys(cli.sandbox))[`default:connection:${c.id}`]).toBe(c.secret);
  });

  it('prints the URL and the secret once for people, and says where the secret was kept', async () => {
    const t = await newTeam();
    const r = await t.svc(['connections', 'create', '--provider', 'gitlab', '--name', 'group', '--external-id', '4242']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Webhook URL:\s+http:\/\/\S+\/hooks\/\S+$/m);
    const secret = /^Secret:\s+(\S+)$/m.exec(r.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(r.stdout.split(secret!).length - 1).toBe(1);
    expect(r.stdout).toMatch(/^External ID:\s+4242$/m);
    expect(r.stderr).toContain('Created gitlab connection "group"');
    expect(r.stderr).toMatch(/Stored the secret in .*credentials\.json \(mode 0600\) for `svc connections test`/);
    expect(r.stderr).not.toContain(secret);
  });

  it('--secret-stdin sends the provider-made secret, which is the one stored', async () => {
    const t = await newTeam();
    const made = 'vercel-made-secret-0123456789abcdef';
    const c = await t.create('vercel', 'acme-vercel', ['--secret-stdin'], { input: `${made}\n` });
    expect(c.secret).toBe(made);
    expect((await storedKeys(cli.sandbox))[`default:connection:${c.id}`]).toBe(made);
  });

  it('refuses a taken name (exit 5), an unknown provider and a missing name (exit 2)', async () => {
    const t = await newTeam();
    await t.create('github', 'taken');
    const again = await t.svc(['connections', 'create', '--provider', 'github', '--name', 'taken']);
    expect(again.code).toBe(5);
    expect(again.stdout).toBe('');
    expect((await t.svc(['connections', 'create', '--provider', 'bitbucket', '--name', 'x'])).code).toBe(2);
    expect((await t.svc(['connections', 'create', '--provider', 'github'])).code).toBe(2);
  });
});

describe('svc connections list and get', () => {
  it('lists and shows connections without their secrets', async () => {
    const t = await newTeam();
    const a = await t.create('github', 'alpha');
    const b = await t.create('linear', 'beta');
    const list = await t.svc(['connections', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const rows = list.json<Record<string, unknown>[]>();
    expect(rows.map((r) => r.id).sort()).toEqual([a.id, b.id].sort());
    for (const r of rows) expect(r).not.toHaveProperty('secret');
    expect(list.stdout).not.toContain(a.secret);

    const table = await t.svc(['connections', 'list']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+PROVIDER\s+NAME\s+EXTERNAL ID\s+LAST DELIVERY$/);
    expect(table.stdout).toMatch(new RegExp(`^${a.id}\\s+github\\s+alpha\\s+-\\s+never$`, 'm'));

    const got = await t.svc(['connections', 'get', b.id]);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toMatch(/^Provider:\s+linear$/m);
    expect(got.stdout).toMatch(new RegExp(`^Secret prefix:\\s+${b.secret_prefix}$`, 'm'));
    expect(got.stdout).not.toContain(b.secret);
    expect((await t.svc(['connections', 'get', b.id, '--json'])).json()).toMatchObject({ id: b.id, webhook_url: b.webhook_url });
  });

  it('an unknown id exits 4', async () => {
    const t = await newTeam();
    expect((await t.svc(['connections', 'get', '00000000-0000-4000-8000-000000000000'])).code).toBe(4);
  });
});

describe('svc connections test, deliveries and svc events replay', () => {
  it('automations create --connection binds an event trigger to the connection, filters as written', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const r = await t.svc([
      'automations', 'create', '--name', 'PR review', '--prompt', 'Review it',
      '--provider', 'github', '--connection', c.id, '--event-type', 'pull_request.opened',
      '--filter', '$.data.pull_request.base.ref equals main', '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().triggers).toEqual([
      expect.objectContaining({
        kind: 'event', provider: 'github', event_type: 'pull_request.opened', connection_id: c.id,
        filters: [{ jsonPath: '$.data.pull_request.base.ref', operator: 'equals', value: 'main' }],
      }),
    ]);
  });

  it('sends a signed sample delivery that dispatches the automation bound to the connection', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const other = await t.create('github', 'other-repo');
    const a = await t.automation('On PR', { provider: 'github', event_type: 'pull_request.opened', connection_id: c.id });
    await t.automation('Other repo only', { provider: 'github', event_type: 'pull_request.opened', connection_id: other.id });

    const r = await t.svc(['connections', 'test', c.id, '--event', 'pull_request.opened', '--delivery-id', 'dlv-1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = r.json();
    expect(result.accepted).toBe(true);
    expect(result.dispatched).toEqual([expect.objectContaining({ automationId: a.id })]);

    const human = await t.svc(['connections', 'test', c.id, '--event', 'pull_request.opened']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^AUTOMATION\s+IDEMPOTENCY KEY$/m);
    expect(human.stdout).toContain(a.id);
    expect(human.stderr).toMatch(/Delivered github pull_request\.opened \S+ to connection/);

    const events = (await t.api('GET', `/teams/${t.slug}/events`)).body.data as { id: string; provider: string; connection_id: string; event_type: string }[];
    expect(events).toContainEqual(expect.objectContaining({ id: 'dlv-1', provider: 'github', connection_id: c.id, event_type: 'pull_request.opened' }));
  });

  it('--set changes the sample before it is signed, so it meets a filter the sample as shipped does not', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const a = await t.automation('Into main', { provider: 'github', event_type: 'pull_request.opened', connection_id: c.id, filters: [{ jsonPath: '$.data.pull_request.base.ref', operator: 'equals', value: 'main' }] });
    // GitHub's example pull request is into master
    const shipped = await t.svc(['connections', 'test', c.id, '--event', 'pull_request.opened', '--json']);
    expect(shipped.json()).toMatchObject({ accepted: false, dispatched: [] });
    const set = await t.svc(['connections', 'test', c.id, '--event', 'pull_request.opened', '--set', 'pull_request.base.ref=main', '--set', 'pull_request.number=4242', '--json']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json().dispatched).toEqual([expect.objectContaining({ automationId: a.id })]);
    const [event] = (await t.api('GET', `/teams/${t.slug}/events?event_type=pull_request.opened`)).body.data as { data: { pull_request: { number: unknown } } }[];
    expect(event!.data.pull_request.number).toBe(4242);
    const bad = await t.svc(['connections', 'test', c.id, '--event', 'pull_request.opened', '--set', 'pull_request.title.x=1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('pull_request.title is');
  });

  it('signs a sample of every provider so that the daemon takes it', async () => {
    const { CONNECTION_PROVIDERS } = await import('../../shared/schemas/connections.js');
    const { sampleEventTypes } = await import('../../cli/connections/samples.js');
    const t = await newTeam();
    // The providers side by side: each is a create and a test of its own connection.
    await Promise.all(
      CONNECTION_PROVIDERS.map(async (provider) => {
        const c = await t.create(provider, `${provider}-account`);
        const [eventType] = await sampleEventTypes(provider);
        const r = await t.svc(['connections', 'test', c.id, '--event', eventType!, '--json']);
        expect(r.code, `${provider} ${eventType}: ${r.stderr}`).toBe(0);
        expect(r.json(), provider).toMatchObject({ dispatched: [], reason: expect.any(String) });
      }),
    );
    const statuses = await Promise.all(
      ((await t.api('GET', `/teams/${t.slug}/connections`)).body.data as { id: string }[]).map(
        async (c) => ((await t.api('GET', `/teams/${t.slug}/connections/${c.id}/deliveries`)).body.data as { status: string }[]).map((d) => d.status),
      ),
    );
    expect(statuses.flat()).toEqual(CONNECTION_PROVIDERS.map(() => 'accepted'));
  });

  it("tests a Slack connection's url_verification: the challenge comes back, nothing is dispatched", async () => {
    const t = await newTeam();
    const c = await t.create('slack', 'workspace');
    const json = await t.svc(['connections', 'test', c.id, '--event', 'url_verification', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(json.json()).toEqual({ challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P' });
    const human = await t.svc(['connections', 'test', c.id, '--event', 'url_verification']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toContain('Answered the url_verification challenge: nothing dispatched.');
    expect((await t.api('GET', `/teams/${t.slug}/events`)).body.data).toEqual([]);
  });

  it('a wrong secret is refused (exit 3, no login hint) and listed as a rejected delivery with its reason', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const good = await t.svc(['connections', 'test', c.id, '--event', 'push']);
    expect(good.code, good.stderr).toBe(0);
    const bad = await t.svc(['connections', 'test', c.id, '--event', 'push', '--secret-stdin'], { input: 'not-the-secret-of-this-connection\n' });
    expect(bad.code).toBe(3);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/refused the github delivery .*HTTP 401/);
    expect(bad.stderr).not.toContain('svc login');

    const list = await t.svc(['connections', 'deliveries', c.id, '--json']);
    expect(list.code, list.stderr).toBe(0);
    const deliveries = list.json<{ status: string; reason: string; event_type: string | null }[]>();
    expect(deliveries.map((x) => x.status)).toEqual(['rejected', 'accepted']);
    expect(deliveries[0].reason).not.toBe('');

    const table = await t.svc(['connections', 'deliveries', c.id]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RECEIVED\s+STATUS\s+EVENT TYPE\s+DELIVERY ID\s+REASON$/);
    expect(lines[1]).toMatch(/\srejected\s/);
    expect(lines[2]).toMatch(/\saccepted\s+push\s/);
    expect(table.stderr).toContain('1 delivery of 2 rejected');

    const one = await t.svc(['connections', 'deliveries', c.id, '--limit', '1', '--json']);
    expect(one.json()).toHaveLength(1);
    expect(one.stderr).toMatch(/--cursor \S+/);
    expect((await t.svc(['connections', 'deliveries', c.id, '--limit', '1', '--all', '--json'])).json()).toHaveLength(2);
  });

  it('an unknown event type is a usage error naming the ones there are; no stored secret says --secret-stdin', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const unknown = await t.svc(['connections', 'test', c.id, '--event', 'no_such.event']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no github sample for event "no_such\.event": there are .*pull_request\.ACTION/);

    // Made through the API: the CLI never saw its secret.
    const made = await t.api('POST', `/teams/${t.slug}/connections`, { provider: 'github', name: 'elsewhere' });
    expect(made.status).toBe(201);
    const missing = await t.svc(['connections', 'test', made.body.data.id, '--event', 'push']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--secret-stdin');
    const given = await t.svc(['connections', 'test', made.body.data.id, '--event', 'push', '--secret-stdin', '--json'], { input: made.body.data.secret });
    expect(given.code, given.stderr).toBe(0);
    // (nothing listens to push here: delivered and verified, nothing dispatched)
    expect(given.json()).toMatchObject({ dispatched: [], reason: expect.any(String) });
  });

  it('events replay dispatches a stored event again as ID:replay:N; --dry-run starts nothing', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const a = await t.automation('On push', { provider: 'github', event_type: 'push', connection_id: c.id });
    expect((await t.svc(['connections', 'test', c.id, '--event', 'push', '--delivery-id', 'push-1'])).code).toBe(0);

    const dry = await t.svc(['events', 'replay', 'push-1', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`On push\\s+${a.id}\\s+would dispatch`));
    expect(dry.stderr).toContain('nothing was started');

    const replay = await t.svc(['events', 'replay', 'push-1', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.json()).toMatchObject({ accepted: true, dispatched: [expect.objectContaining({ automationId: a.id })] });
    const human = await t.svc(['events', 'replay', 'push-1']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toContain('Replayed event push-1');

    const ids = ((await t.api('GET', `/teams/${t.slug}/events`)).body.data as { id: string }[]).map((e) => e.id);
    expect(ids).toEqual(expect.arrayContaining(['push-1', 'push-1:replay:1', 'push-1:replay:2']));
    expect((await t.svc(['events', 'replay', 'no-such-event'])).code).toBe(4);
  });
});

describe('svc connections rotate-secret and delete', () => {
  it('rotate-secret prints and stores a new secret; the previous one verifies until revoked', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const r = await t.svc(['connections', 'rotate-secret', c.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rotated = r.json<{ id: string; secret: string }>();
    expect(rotated.secret).not.toBe(c.secret);
    expect((await storedKeys(cli.sandbox))[`default:connection:${c.id}`]).toBe(rotated.secret);

    expect((await t.svc(['connections', 'test', c.id, '--event', 'push'])).code).toBe(0);
    const old = await t.svc(['connections', 'test', c.id, '--event', 'push', '--secret-stdin'], { input: c.secret });
    expect(old.code, old.stderr).toBe(0);

    const revoked = await t.svc(['connections', 'rotate-secret', c.id, '--revoke-previous']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain('the previous one no longer verifies');
    const newest = /^Secret:\s+(\S+)$/m.exec(revoked.stdout)![1];
    expect((await storedKeys(cli.sandbox))[`default:connection:${c.id}`]).toBe(newest);
    const stale = await t.svc(['connections', 'test', c.id, '--event', 'push', '--secret-stdin'], { input: rotated.secret });
    expect(stale.code).toBe(3);
  });

  it('delete asks first (exit 2 without a terminal), then removes the connection and its stored secret', async () => {
    const t = await newTeam();
    const c = await t.create('github', 'repo');
    const asked = await t.svc(['connections', 'delete', c.id]);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('--yes');
    expect((await t.svc(['connections', 'get', c.id])).code).toBe(0);

    const r = await t.svc(['connections', 'delete', c.id, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toEqual({ success: true });
    expect(r.stderr).toContain('Removed its stored secret.');
    expect((await storedKeys(cli.sandbox))[`default:connection:${c.id}`]).toBeUndefined();
    expect((await t.svc(['connections', 'get', c.id])).code).toBe(4);
    const test = await t.svc(['connections', 'test', c.id, '--event', 'push', '--secret-stdin'], { input: c.secret });
    expect(test.code).toBe(4);
  });
});

describe('svc help connections --json', () => {
  it('lists the connection commands', async () => {
    const r = await runSvc(cli.sandbox, ['help', 'connections', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().subcommands.map((s: { name: string }) => s.name)).toEqual(
      ['create', 'list', 'get', 'rotate-secret', 'delete', 'deliveries', 'test'].map((verb) => `svc connections ${verb}`),
    );
    const test = (await runSvc(cli.sandbox, ['help', 'connections', 'test', '--json'])).json();
    expect(test.options.map((o: { long: string }) => o.long)).toEqual(['--event', '--secret-stdin', '--set', '--delivery-id']);
  });
});

describe('a profile logged in with its key in the file', () => {
  it('keeps the secret in that file under the profile, and test reads it back', async () => {
    const t = await newTeam();
    const sb = await makeSandbox();
    try {
      await loginSvc(sb, { url: cli.daemon.url, team: t.slug, key: t.key, profile: 'ci' });
      const r = await runSvc(sb, ['--profile', 'ci', 'connections', 'create', '--provider', 'github', '--name', 'repo', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const c = r.json();
      expect((await storedKeys(sb))[`ci:connection:${c.id}`]).toBe(c.secret);
      const test = await runSvc(sb, ['--profile', 'ci', 'connections', 'test', c.id, '--event', 'push', '--json']);
      expect(test.code, test.stderr).toBe(0);
      // another profile has no copy
      const other = await runSvc(sb, ['connections', 'test', c.id, '--event', 'push'], { env: envFor({ url: cli.daemon.url, key: t.key, team: t.slug }) });
      expect(other.code).toBe(2);
      // Logging out removes the profile's secrets with its key; another profile's stay.
      await loginSvc(sb, { url: cli.daemon.url, team: t.slug, key: t.key, profile: 'other' });
      const kept = (await runSvc(sb, ['--profile', 'other', 'connections', 'create', '--provider', 'sentry', '--name', 'errors', '--json'])).json();
      const out = await runSvc(sb, ['logout', '--profile', 'ci', '--json']);
      expect(out.code, out.stderr).toBe(0);
      expect(out.json()).toMatchObject({ profile: 'ci', connection_secrets_removed: 1 });
      expect(out.stderr).toContain('Removed the webhook secret of 1 connection kept for profile ci.');
      expect(Object.keys(await storedKeys(sb)).sort()).toEqual(['other', `other:connection:${kept.id}`]);
    } finally {
      await sb.cleanup();
    }
  });
});

async function probeSecretService(): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (process.platform !== 'linux') return { ok: false, reason: `the Secret Service is Linux's, not ${process.platform}'s` };
  try {
    await systemKeychain({ service: 'svc-test-probe' }).get('probe');
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof KeychainUnavailable ? err.message : String(err) };
  }
}
const probe = await probeSecretService();

describe.skipIf(!probe.ok)(probe.ok ? 'a profile whose key is in the keychain' : `a profile whose key is in the keychain (skipped: ${probe.reason})`, () => {
  it('keeps the secret in the keychain (account PROFILE:connection:ID), not in a file; delete removes it', async () => {
    const t = await newTeam();
    const sb = await makeSandbox({ keychain: 'system' });
    const profile = `kc-${process.pid}-${Date.now().toString(36)}`;
    const lookup = (account: string) => {
      try {
        return execFileSync('secret-tool', ['lookup', 'service', 'svc', 'username', account], { encoding: 'utf8' });
      } catch {
        return null;
      }
    };
    try {
      await loginSvc(sb, { url: cli.daemon.url, team: t.slug, key: t.key, profile });
      const r = await runSvc(sb, ['--profile', profile, 'connections', 'create', '--provider', 'github', '--name', 'repo', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const c = r.json();
      expect(r.stderr).toContain('Stored the secret in the keychain');
      expect(await storedKeys(sb)).toEqual({});
      expect(lookup(`${profile}:connection:${c.id}`)).toBe(c.secret);
      expect((await runSvc(sb, ['--profile', profile, 'connections', 'test', c.id, '--event', 'push'])).code).toBe(0);
      expect((await runSvc(sb, ['--profile', profile, 'connections', 'delete', c.id, '--yes'])).code).toBe(0);
      expect(lookup(`${profile}:connection:${c.id}`)).toBeNull();
      // logout removes the secrets it keeps with the key
      const kept = (await runSvc(sb, ['--profile', profile, 'connections', 'create', '--provider', 'github', '--name', 'repo2', '--json'])).json();
      expect(lookup(`${profile}:connection:${kept.id}`)).toBe(kept.secret);
      const out = await runSvc(sb, ['logout', '--profile', profile, '--json']);
      expect(out.code, out.stderr).toBe(0);
      expect(out.json()).toMatchObject({ connection_secrets_removed: 1 });
      expect(lookup(`${profile}:connection:${kept.id}`)).toBeNull();
      expect(lookup(profile)).toBeNull();
    } finally {
      await runSvc(sb, ['logout', '--profile', profile]);
      await sb.cleanup();
    }
  });
});

describe('a daemon behind a public URL', () => {
  it('names that URL in webhook_url; test posts to the daemon the profile uses instead, and says so', async () => {
    const behind = await startTestDaemon({ publicUrl: 'https://hooks.example.invalid/svc' });
    try {
      const { key } = await createTeam(behind, 'proxied');
      const env = envFor({ url: behind.url, key, team: 'proxied' });
      const made = await runSvc(cli.sandbox, ['connections', 'create', '--provider', 'github', '--name', 'repo', '--json'], { env });
      expect(made.code, made.stderr).toBe(0);
      const c = made.json();
      expect(c.webhook_url).toBe(`https://hooks.example.invalid/svc/api/v1/hooks/${c.id}`);
      const r = await runSvc(cli.sandbox, ['connections', 'test', c.id, '--event', 'push', '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().reason).toEqual(expect.any(String));
      expect(r.stderr).toContain(`Sent to ${behind.url}/hooks/${c.id} (the webhook URL ${c.webhook_url} is not on the daemon this profile uses)`);
    } finally {
      await behind.destroy();
    }
  });
});
