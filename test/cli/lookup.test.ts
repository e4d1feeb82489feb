// The one lookup order: flags, then SVC_* environment, then the profile and its stored key
// (file, then keychain). Uses an in-memory keychain; the real one is in keychain.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfig, type ConfigStore } from '../../cli/config.js';
import { fileStore, type FileStore } from '../../cli/credentials/file-store.js';
import { type Keychain, KeychainUnavailable } from '../../cli/credentials/keychain.js';
import { resolveCredentials } from '../../cli/credentials/resolve.js';
import { credentialStore } from '../../cli/credentials/store.js';

function memoryKeychain(): Keychain & { items: Map<string, string>; down?: string } {
  const items = new Map<string, string>();
  const kc = {
    items,
    down: undefined as string | undefined,
    async get(a: string) {
      if (kc.down) throw new KeychainUnavailable(kc.down);
      return items.get(a) ?? null;
    },
    async set(a: string, s: string) {
      if (kc.down) throw new KeychainUnavailable(kc.down);
      items.set(a, s);
    },
    async delete(a: string) {
      if (kc.down) throw new KeychainUnavailable(kc.down);
      return items.delete(a);
    },
    async accounts() {
      if (kc.down) throw new KeychainUnavailable(kc.down);
      return [...items.keys()];
    },
  };
  return kc;
}

let dir: string;
let config: ConfigStore;
let file: FileStore;
let keychain: ReturnType<typeof memoryKeychain>;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-lookup-'));
  config = openConfig(dir);
  file = fileStore(dir);
  keychain = memoryKeychain();
  await config.setProfile('default', { url: 'http://profile:1/api/v1', team: 'profile-team' });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lookup = (kind: 'team' | 'project' | 'admin', flags = {}, env: NodeJS.ProcessEnv = {}) =>
  resolveCredentials({ kind, flags, env, config: openConfig(dir), store: () => credentialStore(keychain, file) });

describe('resolveCredentials', () => {
  it('takes URL and team from flags over the environment over the profile', async () => {
    expect(await lookup('team')).toMatchObject({ url: 'http://profile:1/api/v1', urlSource: 'profile', team: 'profile-team', teamSource: 'profile' });
    expect(await lookup('team', {}, { SVC_BASE_URL: 'http://env:1', SVC_TEAM: 'env-team' })).toMatchObject({
      url: 'http://env:1',
      urlSource: 'env',
      team: 'env-team',
      teamSource: 'env',
    });
    expect(await lookup('team', { url: 'http://flag:1', team: 'flag-team' }, { SVC_BASE_URL: 'http://env:1', SVC_TEAM: 'env-team' })).toMatchObject({
      url: 'http://flag:1',
      urlSource: 'flag',
      team: 'flag-team',
      teamSource: 'flag',
    });
  });

  it('takes the key from SVC_API_KEY over the keychain and the file', async () => {
    keychain.items.set('default', 'svc_team_fromkeychain');
    expect(await lookup('team')).toMatchObject({ key: 'svc_team_fromkeychain', keySource: 'keychain' });
    expect(await lookup('team', {}, { SVC_API_KEY: 'svc_team_fromenv' })).toMatchObject({
      key: 'svc_team_fromenv',
      keySource: 'env',
      keyEnv: 'SVC_API_KEY',
    });
  });

  it('reads a key the file holds without asking the keychain: a key is there only where the keychain could not take it', async () => {
    await file.set('default', 'svc_team_fromfile');
    keychain.down = 'must not be asked';
    expect(await lookup('team')).toMatchObject({ key: 'svc_team_fromfile', keySource: 'file' });
    expect((await lookup('team')).keychainError).toBeUndefined();
    // Where both hold one, the file's is the newer (a keychain that could not take a new key kept the old one).
    keychain.down = undefined;
    keychain.items.set('default', 'svc_team_older');
    expect(await lookup('team')).toMatchObject({ key: 'svc_team_fromfile', keySource: 'file' });
  });

  it('says why the keychain was passed over when the file holds no key and the keychain does not answer', async () => {
    keychain.down = 'no bus';
    const r = await lookup('team');
    expect(r.key).toBeUndefined();
    expect(r.keychainError).toBe('no bus');
  });

  it('uses the profile chosen by --profile, then SVC_PROFILE', async () => {
    keychain.items.set('ci', 'svc_team_ci');
    keychain.items.set('other', 'svc_team_other');
    expect(await lookup('team', {}, { SVC_PROFILE: 'ci' })).toMatchObject({ profile: 'ci', profileSource: 'env', key: 'svc_team_ci' });
    expect(await lookup('team', { profile: 'other' }, { SVC_PROFILE: 'ci' })).toMatchObject({ profile: 'other', profileSource: 'flag', key: 'svc_team_other' });
  });

  it('keeps project keys and the admin token under their own accounts and variables', async () => {
    keychain.items.set('default:project', 'svc_proj_stored');
    keychain.items.set('default:admin', 'svc_admin_stored');
    expect(await lookup('project')).toMatchObject({ key: 'svc_proj_stored', keySource: 'keychain' });
    expect(await lookup('admin')).toMatchObject({ key: 'svc_admin_stored' });
    expect(await lookup('admin', {}, { SVC_ADMIN_TOKEN: 'svc_admin_env', SVC_API_KEY: 'svc_team_x' })).toMatchObject({
      key: 'svc_admin_env',
      keyEnv: 'SVC_ADMIN_TOKEN',
    });
  });

  it('does not offer a team key in SVC_API_KEY for project routes, nor a project key for team routes', async () => {
    keychain.items.set('default:project', 'svc_proj_stored');
    keychain.items.set('default', 'svc_team_stored');
    expect(await lookup('project', {}, { SVC_API_KEY: 'svc_team_env' })).toMatchObject({ key: 'svc_proj_stored' });
    expect(await lookup('team', {}, { SVC_API_KEY: 'svc_proj_env' })).toMatchObject({ key: 'svc_team_stored' });
  });

  it('does not open the keychain when the environment has the key', async () => {
    keychain.down = 'must not be asked';
    const r = await lookup('team', {}, { SVC_API_KEY: 'svc_team_env' });
    expect(r.keychainError).toBeUndefined();
  });
});

describe('credentialStore', () => {
  it('saves to the keychain and clears a stale copy from the file', async () => {
    await file.set('default', 'svc_team_old');
    const store = credentialStore(keychain, file);
    expect(await store.save('default', 'team', 'svc_team_new')).toEqual({ where: 'keychain' });
    expect(file.get('default')).toBeNull();
    expect(keychain.items.get('default')).toBe('svc_team_new');
  });

  it('saves to the file when the keychain does not answer, or when asked to', async () => {
    keychain.down = 'no bus';
    const store = credentialStore(keychain, file);
    expect(await store.save('default', 'team', 'svc_team_a')).toMatchObject({ where: 'file', keychainError: 'no bus' });
    keychain.down = undefined;
    expect(await store.save('x', 'team', 'svc_team_b', { insecure: true })).toEqual({ where: 'file', path: file.path });
    expect(keychain.items.size).toBe(0);
  });

  it('removes the accounts of a prefix from both places, the file when the keychain does not answer', async () => {
    const store = credentialStore(keychain, file);
    keychain.items.set('p:connection:a', 'x');
    keychain.items.set('q:connection:b', 'y');
    await file.set('p:connection:c', 'z');
    await file.set('p', 'svc_team_p');
    expect((await store.removeAccountsStartingWith('p:connection:')).removed.sort()).toEqual(['p:connection:a', 'p:connection:c']);
    expect([...keychain.items.keys()]).toEqual(['q:connection:b']);
    expect(file.get('p')).toBe('svc_team_p');
    await file.set('p:connection:d', 'w');
    keychain.down = 'no bus';
    expect(await store.removeAccountsStartingWith('p:connection:')).toEqual({ removed: ['p:connection:d'], keychainError: 'no bus' });
  });

  it('removes a key from both places', async () => {
    keychain.items.set('default', 'a');
    await file.set('default', 'b');
    expect(await credentialStore(keychain, file).remove('default', 'team')).toEqual({ keychain: true, file: true });
    expect(keychain.items.size).toBe(0);
    expect(file.get('default')).toBeNull();
  });
});
