// Runs one keychain operation and exits. The native keychain calls block (on Linux the D-Bus
// connection is opened synchronously, and a hung call even blocks process exit), so the CLI runs
// them here, in a child it can kill when no answer comes within the timeout.
// Protocol: one JSON request on stdin, one JSON answer on stdout. Secrets never go through argv.
import { createRequire } from 'node:module';

export interface KeychainRequest {
  /** `accounts`: the accounts the service holds a secret of (their secrets are not answered) */
  op: 'get' | 'set' | 'delete' | 'accounts';
  service: string;
  account: string;
  secret?: string;
}

export type KeychainAnswer = { ok: true; value: string | boolean | null | string[] } | { ok: false; error: string };

function perform(req: KeychainRequest): KeychainAnswer {
  try {
    // createRequire: the library is CommonJS; requiring it directly skips the ESM wrapper.
    const { Entry, findCredentials } = createRequire(import.meta.url)('@napi-rs/keyring') as typeof import('@napi-rs/keyring');
    if (req.op === 'accounts') return { ok: true, value: findCredentials(req.service).map((c) => c.account) };
    // On Linux the library would otherwise fall back to the kernel keyring, which forgets
    // everything at reboot; without a Secret Service the CLI uses its own file and says so.
    const entry =
      process.platform === 'linux'
        ? new Entry(req.service, req.account, { linux: { store: 'secret-service' } })
        : new Entry(req.service, req.account);
    if (req.op === 'get') return { ok: true, value: entry.getPassword() ?? null };
    if (req.op === 'set') {
      entry.setPassword(req.secret ?? '');
      return { ok: true, value: true };
    }
    return { ok: true, value: entry.deleteCredential() };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => (input += chunk));
process.stdin.on('end', () => {
  let answer: KeychainAnswer;
  try {
    answer = perform(JSON.parse(input) as KeychainRequest);
  } catch {
    answer = { ok: false, error: 'bad request' };
  }
  process.stdout.write(JSON.stringify(answer));
});
