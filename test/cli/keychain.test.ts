// Keys in the real OS keychain: on Linux the Secret Service (gnome-keyring under .ci/run, which
// starts a D-Bus session with an unlocked keyring). Without one these tests cannot run: where the
// run demands them (SVC_TEST_KEYCHAIN=required, as .ci/run sets) that is a failure, elsewhere the
// suite says why it skipped them. Also: a keychain that accepts a
// connection but never answers is given up on after the timeout, and the key goes to the file.
import { execFileSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeychainUnavailable, systemKeychain } from '../../cli/credentials/keychain.js';
import { type CliSandbox, makeSandbox, runSvc } from '../helpers/cli.js';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { checkPrerequisite } from '../helpers/prerequisites.js';

async function probeSecretService(): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (process.platform !== 'linux') return { ok: false, reason: `these tests drive the Linux Secret Service, not ${process.platform}` };
  try {
    await systemKeychain({ service: 'svc-test-probe' }).get('probe');
    return { ok: true };
  } catch (err) {
    return { ok: false, reason: err instanceof KeychainUnavailable ? err.message : String(err) };
  }
}

function secretToolLookup(profile: string): string | null {
  try {
    return execFileSync('secret-tool', ['lookup', 'service', 'svc', 'username', profile], { encoding: 'utf8' });
  } catch {
    return null; // exit 1: nothing stored (or secret-tool missing; the CLI's own view is checked too)
  }
}

const probe = await probeSecretService();

let daemon: TestDaemon;
let team: Awaited<ReturnType<typeof createTeam>>;
beforeAll(async () => {
  daemon = await startTestDaemon();
  team = await createTeam(daemon, 'kc');
});
afterAll(async () => {
  await daemon.destroy();
});

describe('the Secret Service', () => {
  it('is reachable when the run requires it (SVC_TEST_KEYCHAIN=required, as .ci/run sets)', () => {
    checkPrerequisite('keychain', probe.ok, probe.ok ? '' : `no Secret Service answered (${probe.reason})`);
  });
});

describe.skipIf(!probe.ok)(probe.ok ? 'keys in the real keychain' : `keys in the real keychain (skipped: ${probe.reason})`, () => {
  let sb: CliSandbox;
  const profile = `kc-${process.pid}-${Date.now().toString(36)}`;
  beforeAll(async () => {
    sb = await makeSandbox({ keychain: 'system' });
  });
  afterAll(async () => {
    await runSvc(sb, ['logout', '--profile', profile]);
    await sb.cleanup();
  });

  it('login stores the key in the Secret Service (service svc, account = profile), not in a file', async () => {
    const r = await runSvc(sb, ['login', '--profile', profile, '--url', daemon.url, '--team', 'kc', '--key-stdin'], { input: team.key });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('in the keychain');
    expect(r.stderr).not.toContain('no keychain answered');
    await expect(stat(join(sb.configDir, 'credentials.json'))).rejects.toThrow();
    expect(secretToolLookup(profile)).toBe(team.key);
  });

  it('auth status reads it from the keychain and commands use it', async () => {
    const s = await runSvc(sb, ['auth', 'status', '--profile', profile, '--json', '--check']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.json().keys.team).toEqual({ prefix: team.key.slice(0, 12), source: 'keychain', valid: true });
    const api = await runSvc(sb, ['--profile', profile, 'api', '/teams/{team}/environments']);
    expect(api.code, api.stderr).toBe(0);
  });

  it('logout removes it from the keychain', async () => {
    const r = await runSvc(sb, ['logout', '--profile', profile]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('from the keychain');
    expect(secretToolLookup(profile)).toBeNull();
    expect((await runSvc(sb, ['auth', 'status', '--profile', profile])).code).toBe(3);
  });
});

describe('a keychain that never answers', () => {
  let silent: Server;
  let sb: CliSandbox;
  const sockets = new Set<Socket>();
  beforeAll(async () => {
    sb = await makeSandbox();
    const socket = join(sb.home, 'silent-bus');
    // Accepts D-Bus connections and never says a word: the native call would block forever.
    silent = createServer((conn) => void sockets.add(conn)).listen(socket);
    sb.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${socket}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
    await sb.cleanup();
  });

  it('is given up on after the timeout: login stores the key in the file and says why', async () => {
    const r = await runSvc(sb, ['login', '--url', daemon.url, '--team', 'kc', '--key-stdin'], { input: team.key, timeoutMs: 25_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('did not answer within 3 s');
    expect((await stat(join(sb.configDir, 'credentials.json'))).mode & 0o777).toBe(0o600);
    const s = await runSvc(sb, ['auth', 'status', '--json'], { timeoutMs: 25_000 });
    expect(s.code).toBe(0);
    expect(s.json().keys.team.source).toBe('file');
  });
});
