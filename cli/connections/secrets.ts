// Where the CLI keeps the secrets of a team's connections: beside the profile's own key, in the
// same place (the keychain, or the 0600 file when the profile's key is there), one account per
// connection (connectionAccount). `svc connections test` signs with it; the daemon shows a secret
// only once, so this copy is the only one the CLI will ever have.
import { type Context } from '../context.js';
import { connectionAccount, type SaveResult, type StoredKey } from '../credentials/store.js';
import { UsageError } from '../errors.js';

export interface SecretPlace {
  /** 'keychain' or the file's path */
  where: string;
  /** why the keychain was not used, when it was tried */
  keychainError?: string;
}

/**
 * The file when the profile's key is in the file (no keychain, or `svc login --insecure-storage`),
 * the keychain otherwise (a key from SVC_API_KEY says nothing of a preference: the keychain first).
 */
async function prefersFile(ctx: Context): Promise<boolean> {
  const creds = await ctx.credentials('team').catch(() => undefined);
  return creds?.keySource === 'file';
}

export async function saveConnectionSecret(ctx: Context, connectionId: string, secret: string): Promise<SecretPlace> {
  const saved: SaveResult = await ctx.store().saveAccount(connectionAccount(ctx.profile(), connectionId), secret, { insecure: await prefersFile(ctx) });
  return { where: saved.where === 'keychain' ? 'keychain' : (saved.path ?? ctx.store().filePath), keychainError: saved.keychainError };
}

export async function readConnectionSecret(ctx: Context, connectionId: string): Promise<{ found?: StoredKey; keychainError?: string }> {
  return ctx.store().readAccount(connectionAccount(ctx.profile(), connectionId));
}

/** true when a stored secret was removed */
export async function removeConnectionSecret(ctx: Context, connectionId: string): Promise<boolean> {
  const r = await ctx.store().removeAccount(connectionAccount(ctx.profile(), connectionId));
  return r.keychain || r.file;
}

/** "in the keychain" / "in /path/credentials.json (mode 0600)", for a status line. */
export function describePlace(place: SecretPlace): string {
  return place.where === 'keychain' ? 'in the keychain' : `in ${place.where} (mode 0600)`;
}

/** A secret read from stdin: one final line ending dropped, nothing else changed. */
export async function secretFromStdin(ctx: Context): Promise<string> {
  const text = (await ctx.readStdin()).replace(/\r?\n$/, '');
  if (text === '') throw new UsageError('stdin was empty: pipe the secret in (e.g. `printenv SECRET | svc connections ... --secret-stdin`)');
  return text;
}
