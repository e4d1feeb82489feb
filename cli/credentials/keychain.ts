// The OS keychain through @napi-rs/keyring (macOS Keychain, Windows Credential Manager, the
// Secret Service on Linux). Every operation runs in a short-lived child process bounded by a
// timeout: the native calls block, and a keychain that never answers (a bus that accepts but does
// not reply, a locked collection waiting for a prompt nobody sees) would otherwise hang the CLI.
// Measured: a stuck call blocks the main thread, a worker thread's join, and even process.exit;
// only a separate process can be abandoned (SIGKILL) reliably.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type KeychainAnswer, type KeychainRequest } from './keychain-child.js';
import { missingSessionBus } from './session-bus.js';

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
  /** the accounts it holds a secret of */
  accounts(): Promise<string[]>;
}

export interface KeychainOptions {
  service?: string;
  timeoutMs?: number;
  /** the environment the child sees (DBUS_SESSION_BUS_ADDRESS, HOME, ...) */
  env?: NodeJS.ProcessEnv;
}

/** The compiled child script; from the TypeScript sources (tests), the one in dist/. */
function childScript(): string {
  const beside = fileURLToPath(new URL('./keychain-child.js', import.meta.url));
  if (existsSync(beside)) return beside;
  return fileURLToPath(new URL('../../dist/cli/credentials/keychain-child.js', import.meta.url));
}

function reason(message: string): string {
  // The native messages are long; the first clause says what is wrong.
  return message.replace(/^Platform failure:\s*/, '').split('\n')[0].slice(0, 200);
}

function ask(req: KeychainRequest, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<string | boolean | null | string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    let settled = false;
    const child = spawn(process.execPath, [childScript()], { stdio: ['pipe', 'pipe', 'ignore'], env, windowsHide: true });
    const finish = (err: Error | null, value?: string | boolean | null | string[]) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value ?? null);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new KeychainUnavailable(`the keychain did not answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('error', (err) => finish(new KeychainUnavailable(`cannot run the keychain helper: ${err.message}`)));
    child.on('close', () => {
      let answer: KeychainAnswer;
      try {
        answer = JSON.parse(out) as KeychainAnswer;
      } catch {
        finish(new KeychainUnavailable('the keychain helper gave no answer'));
        return;
      }
      if (answer.ok) finish(null, answer.value);
      else finish(new KeychainUnavailable(reason(answer.error)));
    });
    child.stdin.on('error', () => {}); // the child may exit before reading; its answer says why
    child.stdin.end(JSON.stringify(req));
  });
}

export function systemKeychain(options: KeychainOptions = {}): Keychain {
  const service = options.service ?? KEYCHAIN_SERVICE;
  const timeoutMs = options.timeoutMs ?? KEYCHAIN_TIMEOUT_MS;
  const env = options.env ?? process.env;
  // A keychain that is unreachable now stays so for the rest of this run: do not wait again.
  const noBus = missingSessionBus(env);
  let unreachable = noBus === undefined ? undefined : new KeychainUnavailable(noBus);
  const call = async (req: KeychainRequest) => {
    if (unreachable) throw unreachable;
    try {
      return await ask(req, timeoutMs, env);
    } catch (err) {
      if (err instanceof KeychainUnavailable) unreachable = err;
      throw err;
    }
  };
  return {
    async get(account) {
      const v = await call({ op: 'get', service, account });
      return typeof v === 'string' && v.length > 0 ? v : null;
    },
    async set(account, secret) {
      await call({ op: 'set', service, account, secret });
    },
    async delete(account) {
      return (await call({ op: 'delete', service, account })) === true;
    },
    async accounts() {
      const v = await call({ op: 'accounts', service, account: '' });
      return Array.isArray(v) ? v : [];
    },
  };
}
