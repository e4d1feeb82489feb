// A connection's signing secret: made, shown by a prefix, and sealed at rest like an env var value
// (daemon/secrets), bound to its connection so a sealed secret cannot be moved to another one.
import { randomBytes } from 'node:crypto';
import type { ConnectionProvider } from '../../shared/schemas/connections.js';
import { invalid } from '../errors.js';

/** Random bytes in a secret svc makes (CONTRACT §12: at least 32). */
const SECRET_BYTES = 32;

/**
 * A new random secret: Standard Webhooks' own form for `standard` (`whsec_` and base64, which its
 * verifiers expect), base64url for the providers that take any string.
 */
export function newSecret(provider: ConnectionProvider): string {
  const bytes = randomBytes(SECRET_BYTES);
  return provider === 'standard' ? `whsec_${bytes.toString('base64')}` : bytes.toString('base64url');
}

/** Standard Webhooks secrets: `whsec_` then base64 of 24 to 64 bytes (the specification's range). */
const STANDARD_SECRET = /^whsec_([A-Za-z0-9+/]+={0,2})$/;

/** A secret the provider made (CreateConnectionBody `secret`): refused when that provider's verifier could not use it. */
export function checkProvidedSecret(provider: ConnectionProvider, secret: string, field = 'body.secret'): void {
  if (provider !== 'standard') return;
  const m = STANDARD_SECRET.exec(secret);
  const bytes = m ? Buffer.from(m[1], 'base64').length : 0;
  if (bytes < 24 || bytes > 64) throw invalid(`${field} of a standard connection must be whsec_ followed by base64 of 24 to 64 bytes (Standard Webhooks)`);
}

/**
 * The first characters of a secret, to tell secrets apart: ten at most, and never more than a
 * quarter of it, so a short secret a provider made keeps most of itself unshown.
 */
export const secretPrefix = (secret: string): string => secret.slice(0, Math.min(10, Math.floor(secret.length / 4)));

/** What a sealed secret is bound to (the AES-GCM associated data). */
export const connectionSealContext = (connectionId: string) => `connection-secret:${connectionId}`;
