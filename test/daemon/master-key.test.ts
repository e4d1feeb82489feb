// A daemon start refuses a master key that does not open the env var values already stored: a
// missing master.key is not regenerated over them, and neither a replaced file nor another
// SVC_MASTER_KEY is taken. Every session of those environments would fail otherwise, and values
// saved afterwards would be sealed with a key that cannot open the earlier ones.
import { access, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDaemon } from '../../daemon/server.js';
import { generateMasterKey } from '../../daemon/secrets/secret-file.js';
import { createTeam, makeDataDir, startTestDaemon } from '../helpers/daemon.js';

const start = (dataDir: string, masterKey?: string) => startDaemon({ dataDir, port: 0, logLevel: 'silent', masterKey });

describe('the master key at daemon start', () => {
  it('refuses a missing, replaced or other given key once env var values are stored; the right one starts', async () => {
    const dataDir = await makeDataDir();
    const first = await startTestDaemon({ dataDir });
    const { api } = await createTeam(first, 'acme');
    expect((await api('PUT', '/teams/acme/env-vars/TOKEN', { value: 'the secret' })).status).toBe(200);
    await first.close();
    const keyPath = join(dataDir, 'master.key');
    const original = await readFile(keyPath, 'utf8');

    await rm(keyPath);
    await expect(start(dataDir)).rejects.toThrow(`${keyPath} is missing, but the data folder holds env var values sealed with the key it held`);
    await expect(access(keyPath)).rejects.toThrow(); // not regenerated

    await writeFile(keyPath, `${generateMasterKey()}\n`, { mode: 0o600 });
    await expect(start(dataDir)).rejects.toThrow(`the master key (${keyPath}) does not open the env var values stored in ${dataDir}`);
    await expect(start(dataDir, generateMasterKey())).rejects.toThrow('the master key (SVC_MASTER_KEY) does not open');

    // (each refused start let go of the folder: the next one can take it)
    await writeFile(keyPath, original, { mode: 0o600 });
    const again = await start(dataDir);
    const list = await fetch(`${again.url}/teams/acme/env-vars`, { headers: { authorization: `Bearer ${(await createKey(again))}` } });
    expect(((await list.json()) as { data: { name: string }[] }).data.map((v) => v.name)).toEqual(['TOKEN']);
    await again.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('makes a key on first start, and with no values stored takes any', async () => {
    const dataDir = await makeDataDir();
    const first = await start(dataDir);
    await first.close();
    await expect(access(join(dataDir, 'master.key'))).resolves.toBeUndefined();
    const other = await start(dataDir, generateMasterKey());
    await other.close();
    await rm(dataDir, { recursive: true, force: true });
  });
});

async function createKey(d: { url: string; adminToken: string }): Promise<string> {
  const res = await fetch(`${d.url}/admin/teams/acme/keys`, { method: 'POST', headers: { authorization: `Bearer ${d.adminToken}`, 'content-type': 'application/json' }, body: '{}' });
  return ((await res.json()) as { data: { key: string } }).data.key;
}
