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

/** What the check value seals: any key but the one that sealed it fails to open it. */
const CHECK_PLAIN = 'svc master key check';
const CHECK_CONTEXT = 'svc:master-key-check';

export async function loadMasterKey(dataDir: string, given: string | undefined, store: Store): Promise<string> {
  const path = join(dataDir, 'master.key');
  const where = given === undefined ? path : 'SVC_MASTER_KEY';
  if (store.masterKeyCheck) {
    // A shared database records a check value of its key: every daemon on it must hold that key.
    const recorded = await store.masterKeyCheck.read();
    if (given === undefined && recorded !== null && !(await exists(path))) {
      throw new Error(
        `${path} is missing, but the database holds values sealed with a master key: give that key in SVC_MASTER_KEY, or ` +
          'restore the file. (A new key would leave every stored value unreadable.)',
      );
    }
    const key = given ?? (await readOrCreateSecret(dataDir, 'master.key', generateMasterKey));
    const sealer = new Sealer(key);
    if (recorded === null) {
      // No daemon has started here yet, but values may be (a store copied from a folder): the key
      // must open them before it is recorded as the database's.
      const stored = await store.read(async (tx) => (await tx.list('env_vars'))[0]);
      if (stored !== undefined && !opens(sealer, stored.sealed, envVarSealContext(stored.environment_id, stored.name))) {
        throw new Error(
          `the master key (${where}) does not open the env var values stored in the database: it is not the key they ` +
            'were sealed with (the key of the folder they were copied from?). Give that key in SVC_MASTER_KEY; the daemon will not start with another.',
        );
      }
    }
    const check = recorded ?? (await store.masterKeyCheck.record(sealer.seal(CHECK_PLAIN, CHECK_CONTEXT)));
    if (!opens(sealer, check, CHECK_CONTEXT)) {
      throw new Error(
        `the master key (${where}) is not the key this database's values are sealed with: give every daemon on the ` +
          'database the same key (SVC_MASTER_KEY). The daemon will not start with another.',
      );
    }
    return key;
  }
  const stored = await store.read(async (tx) => (await tx.list('env_vars'))[0]);
  if (given === undefined && stored !== undefined && !(await exists(path))) {
    throw new Error(
      `${path} is missing, but the data folder holds env var values sealed with the key it held: restore the file from a ` +
        'backup, or give that key in SVC_MASTER_KEY. (A new key would leave every stored value unreadable.)',
    );
  }
  const key = given ?? (await readOrCreateSecret(dataDir, 'master.key', generateMasterKey));
  if (stored !== undefined && !opens(new Sealer(key), stored.sealed, envVarSealContext(stored.environment_id, stored.name))) {
    throw new Error(
      `the master key (${where}) does not open the env var values stored in ${dataDir}: ` +
        'it is not the key they were sealed with. Restore that key; the daemon will not start with another.',
    );
  }
  return key;
}

function opens(sealer: Sealer, sealed: string, context: string): boolean {
  try {
    sealer.open(sealed, context);
    return true;
  } catch {
    return false;
  }
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
