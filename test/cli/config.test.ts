// The config module: profiles round-trip through conf, and data that does not match the schema is
// dropped rather than trusted. Also the 0600 credentials file used when no keychain answers.
import { chmod, mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isValidProfileName, openConfig, sanitizeConfig } from '../../cli/config.js';
import { fileStore } from '../../cli/credentials/file-store.js';
import { configDir, userDataDir } from '../../cli/paths.js';

let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'svc-config-')), 'svc');
});
afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

describe('sanitizeConfig', () => {
  it('keeps valid profiles and drops fields and profiles of the wrong shape', () => {
    const data = sanitizeConfig({
      defaultProfile: 'work',
      profiles: {
        work: { url: 'http://h:1/api/v1', team: 'acme', output: 'json', projectId: 'p1', extra: 'x' },
        bad1: { url: 'javascript:alert(1)', team: 42, output: 'yaml' },
        'bad name': { team: 'x' },
        notAnObject: 'x',
      },
    });
    expect(data).toEqual({
      defaultProfile: 'work',
      profiles: { work: { url: 'http://h:1/api/v1', team: 'acme', output: 'json', projectId: 'p1' }, bad1: {} },
    });
  });

  it('turns anything that is not an object into an empty config', () => {
    expect(sanitizeConfig(null)).toEqual({ profiles: {} });
    expect(sanitizeConfig([1, 2])).toEqual({ profiles: {} });
    expect(sanitizeConfig({ profiles: [] })).toEqual({ profiles: {} });
  });
});

describe('profile names', () => {
  it('accepts letters, digits, dot, dash, underscore and refuses ":" (it separates key kinds)', () => {
    expect(isValidProfileName('dev')).toBe(true);
    expect(isValidProfileName('ci.prod-1_x')).toBe(true);
    expect(isValidProfileName('a:project')).toBe(false);
    expect(isValidProfileName('')).toBe(false);
    expect(isValidProfileName('-x')).toBe(false);
  });
});

describe('openConfig', () => {
  it('writes profiles through conf and reads them back, merging and removing fields', async () => {
    const config = openConfig(dir);
    expect(config.profile('dev')).toBeUndefined();
    await config.setProfile('dev', { url: 'http://127.0.0.1:1/api/v1', team: 'dev' });
    await config.setProfile('dev', { output: 'json' });
    await config.setProfile('dev', { team: undefined });
    expect(openConfig(dir).profile('dev')).toEqual({ url: 'http://127.0.0.1:1/api/v1', output: 'json' });
    await config.removeProfile('dev');
    expect(openConfig(dir).profiles()).toEqual({});
  });

  it('reads a malformed file as empty, says why, and refuses to write over it', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.json'), '{ not json');
    const config = openConfig(dir);
    expect(config.profiles()).toEqual({});
    expect(config.problem).toMatch(/config\.json is not valid JSON/);
    expect(() => config.assertChangeable()).toThrow(/fix or remove it; nothing was changed/);
    await expect(config.setProfile('a', { team: 't' })).rejects.toThrow(/is not valid JSON .*: fix or remove it; nothing was changed/);
    await expect(config.removeProfile('a')).rejects.toThrow(/nothing was changed/);
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe('{ not json');
    expect(openConfig(join(dir, 'elsewhere')).problem).toBeUndefined(); // a missing file is no problem
  });

  it('keeps every profile when many writers change the file at once', async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => openConfig(dir).setProfile(`p${i}`, { team: `t${i}` })));
    expect(Object.keys(openConfig(dir).profiles()).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `p${i}`).sort());
    const keys = fileStore(dir);
    await Promise.all(Array.from({ length: 12 }, (_, i) => fileStore(dir).set(`p${i}`, `svc_team_${i}`)));
    expect(Array.from({ length: 12 }, (_, i) => keys.get(`p${i}`))).toEqual(Array.from({ length: 12 }, (_, i) => `svc_team_${i}`));
  });

  it('drops stored fields of the wrong type when it next writes', async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'config.json'), JSON.stringify({ profiles: { a: { team: 5, url: 'http://ok' }, b: { team: 'b' } } }));
    await openConfig(dir).setProfile('b', { url: 'http://b' });
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'))).toEqual({
      profiles: { a: { url: 'http://ok' }, b: { team: 'b', url: 'http://b' } },
    });
  });
});

describe('fileStore', () => {
  it('keeps keys in a file of mode 0600 inside a 0700 folder, and removes the file when empty', async () => {
    const store = fileStore(dir);
    await store.set('dev', 'svc_team_secret');
    await store.set('dev:project', 'svc_proj_secret');
    expect((await stat(store.path)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect(store.get('dev')).toBe('svc_team_secret');
    expect(await store.delete('dev')).toBe(true);
    expect(await store.delete('dev')).toBe(false);
    expect(store.get('dev:project')).toBe('svc_proj_secret');
    await store.delete('dev:project');
    await expect(stat(store.path)).rejects.toThrow();
  });

  it.runIf(process.platform !== 'win32')('warns once when the file is readable by others, and still reads it', async () => {
    await fileStore(dir).set('dev', 'svc_team_secret');
    await chmod(join(dir, 'credentials.json'), 0o644);
    const warnings: string[] = [];
    const store = fileStore(dir, (m) => warnings.push(m));
    expect([store.get('dev'), store.get('dev')]).toEqual(['svc_team_secret', 'svc_team_secret']);
    expect(warnings).toEqual([`${join(dir, 'credentials.json')} is readable by others (mode 0644): run \`chmod 600 ${join(dir, 'credentials.json')}\``]);
    await chmod(join(dir, 'credentials.json'), 0o600);
    const quiet: string[] = [];
    fileStore(dir, (m) => quiet.push(m)).get('dev');
    expect(quiet).toEqual([]);
  });

  it.runIf(process.platform !== 'win32')('tightens a folder that already existed with a looser mode to 0700', async () => {
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    await fileStore(dir).set('dev', 'svc_team_secret');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });
});

describe('paths', () => {
  it('follow XDG on Linux, Application Support on macOS and LOCALAPPDATA on Windows', () => {
    expect(userDataDir({ env: { HOME: '/h' }, platform: 'linux' })).toBe('/h/.local/share/svc');
    expect(userDataDir({ env: { HOME: '/h', XDG_DATA_HOME: '/x' }, platform: 'linux' })).toBe('/x/svc');
    expect(userDataDir({ env: { HOME: '/h' }, platform: 'darwin' })).toBe('/h/Library/Application Support/svc');
    expect(userDataDir({ env: { LOCALAPPDATA: 'C:\\L' }, platform: 'win32' })).toBe(join('C:\\L', 'svc'));
    expect(configDir({ env: { HOME: '/h' }, platform: 'linux' })).toBe('/h/.config/svc');
    expect(configDir({ env: { HOME: '/h', XDG_CONFIG_HOME: '/c' }, platform: 'linux' })).toBe('/c/svc');
    expect(configDir({ env: { SVC_CONFIG_DIR: '/own' }, platform: 'linux' })).toBe('/own');
  });

  it('ignore a relative XDG folder, as the XDG spec says', () => {
    expect(configDir({ env: { HOME: '/h', XDG_CONFIG_HOME: 'relcfg' }, platform: 'linux' })).toBe('/h/.config/svc');
    expect(userDataDir({ env: { HOME: '/h', XDG_DATA_HOME: './data' }, platform: 'linux' })).toBe('/h/.local/share/svc');
  });
});
