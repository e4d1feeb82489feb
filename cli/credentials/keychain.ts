// The OS keychain through @napi-rs/keyring (macOS Keychain, Windows Credential Manager, the
// Secret Service on Linux). Every call is bounded by a timeout: a keychain that never answers (a
// locked collection waiting for a prompter nobody sees) must not hang the CLI. The async entry
// runs the native call on libuv's thread pool, so the timeout frees the CLI even when the native
// call itself does not return; bin/svc.js exits explicitly, so a stuck pool thread cannot keep
// the process alive.

export const KEYCHAIN_SERVICE = 'svc';
export const KEYCHAIN_TIMEOUT_MS = 3000;

/** The keychain could not be reached or refused the operation. */
export class KeychainUnavailable extends Error {
  override readonly name = 'KeychainUnavailable';
}

export interface Keychain {
  /** null when nothing is stored for the account */
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** true when something was removed */
  delete(account: string): Promise<boolean>;
}

export interface KeychainOptions {
  service?: string;
  timeoutMs?: number;
  platform?: NodeJS.Platform;
}

type AsyncEntryCtor = typeof import('@napi-rs/keyring').AsyncEntry;

function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new KeychainUnavailable(`the keychain did not answer within ${ms / 1000} s`));
    }, ms);
    timer.unref();
  });
  return Promise.race([work(controller.signal), timeout]).finally(() => clearTimeout(timer));
}

function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // The native messages are long; the first clause says what is wrong.
  return message.replace(/^Platform failure:\s*/, '').split('\n')[0].slice(0, 200);
}

export function systemKeychain(options: KeychainOptions = {}): Keychain {
  const service = options.service ?? KEYCHAIN_SERVICE;
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  const platform = options.platform ?? process.platform;
  let ctor: Promise<AsyncEntryCtor> | undefined;

  async function entry(account: string) {
    ctor ??= import('@napi-rs/keyring').then((m) => m.AsyncEntry);
    let AsyncEntry: AsyncEntryCtor;
    try {
      AsyncEntry = await ctor;
    } catch (err) {
      throw new KeychainUnavailable(`keychain library not available: ${reason(err)}`);
    }
    try {
      // On Linux the library would otherwise fall back to the kernel keyring, which forgets
      // everything at reboot; without a Secret Service we use our own file instead, and say so.
      return platform === 'linux'
        ? new AsyncEntry(service, account, { linux: { store: 'secret-service' } })
        : new AsyncEntry(service, account);
    } catch (err) {
      throw new KeychainUnavailable(reason(err));
    }
  }

  async function call<T>(account: string, op: (e: InstanceType<AsyncEntryCtor>, s: AbortSignal) => Promise<T>) {
    const e = await entry(account);
    try {
      return await withTimeout((signal) => op(e, signal), timeoutMs);
    } catch (err) {
      if (err instanceof KeychainUnavailable) throw err;
      throw new KeychainUnavailable(reason(err));
    }
  }

  return {
    get: (account) => call(account, (e, signal) => e.getPassword(signal)).then((v) => v ?? null),
    set: (account, secret) => call(account, (e, signal) => e.setPassword(secret, signal)),
    delete: (account) => call(account, (e, signal) => e.deleteCredential(signal)),
  };
}
