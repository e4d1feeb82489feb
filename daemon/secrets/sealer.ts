// Env var values at rest: AES-256-GCM under the master key, a fresh 96-bit nonce per value, and
// the row's identity as associated data so a sealed value cannot be moved to another variable.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class Sealer {
  private readonly key: Buffer;

  constructor(masterKey: string) {
    this.key = parseMasterKey(masterKey);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  open(sealed: string, context: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION) throw new Error('unknown sealed value format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}

/** 64 hex characters or base64 of 32 bytes. */
export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  const b = Buffer.from(t, 'base64');
  if (b.length === 32) return b;
  throw new Error('the master key must be 32 bytes: 64 hex characters or base64');
}
