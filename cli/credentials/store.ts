// Where keys are kept: saved to the keychain, or to the 0600 file where no keychain answers (or
// where --insecure-storage asks for it); read from the file first (see readAccount). One account
// per profile and kind of key.
import { type FileStore } from './file-store.js';
import { type Keychain, KeychainUnavailable } from './keychain.js';

export type KeyKind = 'team' | 'project' | 'admin';
export const KEY_KINDS: readonly KeyKind[] = ['team', 'project', 'admin'];

/** Keychain account: the profile for its team key, `profile:project` / `profile:admin` otherwise. */
export function accountFor(profile: string, kind: KeyKind): string {
  return kind === 'team' ? profile : `${profile}:${kind}`;
}

/**
 * Keychain account of a connection's webhook secret (what `svc connections test` signs with):
 * `profile:connection:ID`. Profile names hold no `:`, so it cannot be a profile's own account.
 */
export function connectionAccount(profile: string, connectionId: string): string {
  return `${connectionAccountPrefix(profile)}${connectionId}`;
}

/** What the accounts of a profile's connection secrets start with. */
export function connectionAccountPrefix(profile: string): string {
  return `${profile}:connection:`;
}

export type StoredSource = 'keychain' | 'file';

export interface StoredKey {
  key: string;
  source: StoredSource;
}

export interface SaveResult {
  where: StoredSource;
  /** the file, when stored there */
  path?: string;
  /** why the keychain was not used, when it was tried and failed */
  keychainError?: string;
}

export interface RemoveResult {
  keychain: boolean;
  file: boolean;
  keychainError?: string;
}

export interface CredentialStore {
  readonly filePath: string;
  /** `keychainError` says why the keychain was skipped, when it did not answer */
  read(profile: string, kind: KeyKind): Promise<{ found?: StoredKey; keychainError?: string }>;
  save(profile: string, kind: KeyKind, key: string, options?: { insecure?: boolean }): Promise<SaveResult>;
  remove(profile: string, kind: KeyKind): Promise<RemoveResult>;
  /** the same, for any account (a connection's secret: connectionAccount) */
  readAccount(account: string): Promise<{ found?: StoredKey; keychainError?: string }>;
  saveAccount(account: string, secret: string, options?: { insecure?: boolean }): Promise<SaveResult>;
  removeAccount(account: string): Promise<RemoveResult>;
  /** removes every account whose name starts with `prefix`, from both places; `removed`: the accounts */
  removeAccountsStartingWith(prefix: string): Promise<{ removed: string[]; keychainError?: string }>;
}

export function credentialStore(keychain: Keychain, file: FileStore): CredentialStore {
  const store: CredentialStore = {
    filePath: file.path,
    read: (profile, kind) => store.readAccount(accountFor(profile, kind)),
    save: (profile, kind, key, options) => store.saveAccount(accountFor(profile, kind), key, options),
    remove: (profile, kind) => store.removeAccount(accountFor(profile, kind)),
    async readAccount(account) {
      // The file first: a key is there only when the keychain could not take it, or was told not
      // to (a save to the keychain removes the file's copy), so where both hold one, the file's is
      // the newer. And a headless machine, where keys live in the file, then starts no keychain
      // helper process on every command.
      const inFile = file.get(account);
      if (inFile) return { found: { key: inFile, source: 'file' } };
      try {
        const key = await keychain.get(account);
        return key ? { found: { key, source: 'keychain' } } : {};
      } catch (err) {
        if (!(err instanceof KeychainUnavailable)) throw err;
        return { keychainError: err.message };
      }
    },
    async saveAccount(account, key, options = {}) {
      let keychainError: string | undefined;
      if (!options.insecure) {
        try {
          await keychain.set(account, key);
          // A key left in the file from an earlier fallback would be read before this one (the
          // file is read first): remove it.
          await file.delete(account);
          return { where: 'keychain' };
        } catch (err) {
          if (!(err instanceof KeychainUnavailable)) throw err;
          keychainError = err.message;
        }
      }
      await file.set(account, key);
      if (options.insecure) {
        // A key left there by an earlier login would outlive the one it was replaced by, and be
        // read again once this one is removed from the file.
        try {
          await keychain.delete(account);
        } catch (err) {
          if (!(err instanceof KeychainUnavailable)) throw err;
        }
      }
      return { where: 'file', path: file.path, keychainError };
    },
    async removeAccount(account) {
      let fromKeychain = false;
      let keychainError: string | undefined;
      try {
        fromKeychain = await keychain.delete(account);
      } catch (err) {
        if (!(err instanceof KeychainUnavailable)) throw err;
        keychainError = err.message;
      }
      const fromFile = await file.delete(account);
      return { keychain: fromKeychain, file: fromFile, keychainError };
    },
    async removeAccountsStartingWith(prefix) {
      const removed = new Set<string>();
      let keychainError: string | undefined;
      try {
        for (const account of await keychain.accounts()) {
          if (account.startsWith(prefix) && (await keychain.delete(account))) removed.add(account);
        }
      } catch (err) {
        if (!(err instanceof KeychainUnavailable)) throw err;
        keychainError = err.message;
      }
      for (const account of file.accounts()) {
        if (account.startsWith(prefix) && (await file.delete(account))) removed.add(account);
      }
      return { removed: [...removed], keychainError };
    },
  };
  return store;
}
