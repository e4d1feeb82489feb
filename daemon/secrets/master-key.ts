// The master key the daemon seals env var values with: given (SVC_MASTER_KEY), or the data
// folder's master.key, made on first start. A key that does not open the values already stored
// stops the start: every session of those environments would fail, and values saved from then on
// would be sealed with a key that cannot open the earlier ones, so restoring the right key would
// no longer recover everything.
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store/store.js';
import { envVarSealContext } from '../env-vars/seal-context.js';
import { Sealer } from './sealer.js';
import { generateMasterKey, readOrCreateSecret } from './secret-file.js';

export async function loadMasterKey(dataDir: string, given: string | undefined, store: Store): Promise<string> {
  const stored = await store.read(async (tx) => (await tx.list('env_vars'))[0]);
  const path = join(dataDir, 'master.key');
  if (given === undefined && stored !== undefined && !(await exists(path))) {
    throw new Error(
      `${path} is missing, but the data folder holds env var values sealed with the key it held: restore the file from a ` +
        'backup, or give that key in SVC_MASTER_KEY. (A new key would leave every stored value unreadable.)',
    );
  }
  const key = given ?? (await readOrCreateSecret(dataDir, 'master.key', generateMasterKey));
  if (stored !== undefined) {
    try {
      new Sealer(key).open(stored.sealed, envVarSealContext(stored.environment_id, stored.name));
    } catch {
      throw new Error(
        `the master key (${given === undefined ? path : 'SVC_MASTER_KEY'}) does not open the env var values stored in ${dataDir}: ` +
          'it is not the key they were sealed with. Restore that key; the daemon will not start with another.',
      );
    }
  }
  return key;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
