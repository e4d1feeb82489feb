// API keys: random, shown once, stored only as a SHA-256 hash plus a 12-character prefix.
// Keys carry 238 bits of randomness, so a fast hash is enough (no password stretching needed).
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIXES = { team: 'svc_team_', project: 'svc_proj_', admin: 'svc_admin_' } as const;
export type KeyType = keyof typeof KEY_PREFIXES;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 40;

export function generateKey(type: KeyType): string {
  let s = '';
  for (let i = 0; i < RANDOM_CHARS; i++) s += BASE62[randomInt(62)];
  return KEY_PREFIXES[type] + s;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}

/** The key type a bearer value claims by its prefix, or null for any other prefix (svc_pat_ included). */
export function keyTypeOf(bearer: string): KeyType | null {
  for (const [type, prefix] of Object.entries(KEY_PREFIXES)) if (bearer.startsWith(prefix)) return type as KeyType;
  return null;
}

/** Compares two secrets without leaking where they differ (hashing first equalises lengths). */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(hashKey(a), 'hex'), Buffer.from(hashKey(b), 'hex'));
}
