// Where keys are kept: the keychain first, the 0600 file where no keychain answers (or where
// --insecure-storage asks for it). One account per profile and kind of key.
import { type FileStore } from './file-store.js';
import { type Keychain, KeychainUnavailable } from './keychain.js';

export type KeyKind = 'team' | 'project' | 'admin';
export const KEY_KINDS: readonly KeyKind[] = ['team', 'project', 'admin'];

/** Keychain account: the profile for its team key, `profile:project` / `profile:admin` otherwise. */
export function accountFor(profile: string, kind: KeyKind): string {
  return kind === 'team' ? profile : `${profile}:${kind}`;
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
}

export function credentialStore(keychain: Keychain, file: FileStore): CredentialStore {
  return {
    filePath: file.path,
    async read(profile, kind) {
      const account = accountFor(profile, kind);
      let keychainError: string | undefined;
      try {
        const key = await keychain.get(account);
        if (key) return { found: { key, source: 'keychain' } };
      } catch (err) {
        if (!(err instanceof KeychainUnavailable)) throw err;
        keychainError = err.message;
      }
      const key = file.get(account);
      return key ? { found: { key, source: 'file' }, keychainError } : { keychainError };
    },
    async save(profile, kind, key, options = {}) {
      const account = accountFor(profile, kind);
      let keychainError: string | undefined;
      if (!options.insecure) {
        try {
          await keychain.set(account, key);
          // A key left in the file from an earlier fallback would shadow nothing (the keychain is
          // read first) but would linger on disk; remove it.
          await file.delete(account);
          return { where: 'keychain' };
        } catch (err) {
          if (!(err instanceof KeychainUnavailable)) throw err;
          keychainError = err.message;
        }
      }
      await file.set(account, key);
      if (options.insecure) {
        // The keychain is read first: a key left there by an earlier login would shadow this one.
        try {
          await keychain.delete(account);
        } catch (err) {
          if (!(err instanceof KeychainUnavailable)) throw err;
        }
      }
      return { where: 'file', path: file.path, keychainError };
    },
    async remove(profile, kind) {
      const account = accountFor(profile, kind);
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
  };
}
