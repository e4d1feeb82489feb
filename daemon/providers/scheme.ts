// What every provider module is made of, and the pieces they share: reading a header, comparing a
// signature in constant time, an HMAC over the raw bytes, a timestamp's freshness. A provider
// module is then only its scheme's particulars (CONTRACT §12).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { unfitBody } from '../http/json-body.js';
import type { DeliveryRequest } from './delivery.js';

/** What a verified, parsed delivery comes to, before the route's common checks. */
export type Normalised =
  | { kind: 'event'; eventType: string; id: string | null; subject: string | null }
  | { kind: 'reply'; body: { challenge: string } }
  | { kind: 'rejected'; status: 400 | 401; reason: string; eventType?: string | null; id?: string | null };

export interface ProviderScheme {
  /** how the provider names itself in its settings pages, for reasons a person reads */
  title: string;
  /**
   * Checks the signature over the raw bytes against each secret (any may match). Returns null when
   * one matches, else why not (a 401). Nothing of the body is trusted before this.
   */
  verify(req: DeliveryRequest): Promise<string | null> | string | null;
  /** the verified body (a JSON object) as an event type, id and subject, or why not */
  normalise(body: Record<string, unknown>, req: DeliveryRequest): Normalised;
  /** headers copied into the event's metadata: never a signature, token or secret header */
  metadataHeaders: readonly string[];
  /** headers read, unverified, into the log of a delivery refused before its body was trusted */
  idHeader?: string;
  eventHeader?: string;
}

/** A header's value (lower-case name, as node:http gives them); the first of repeated ones. */
export function header(req: DeliveryRequest, name: string): string | null {
  const value = req.headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined || first === '' ? null : first;
}

/**
 * Constant-time equality of two strings of any lengths: their SHA-256 digests are compared, so
 * `timingSafeEqual` always gets equal lengths and a malformed header can neither throw nor leak
 * how much of it matched.
 */
export function safeEqual(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** HMAC of the parts as bytes: Buffers as they are, strings as UTF-8. */
export function hmac(algorithm: 'sha1' | 'sha256', key: string | Buffer, parts: readonly (string | Buffer)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

/** Whether a hex signature header is the HMAC of the parts under any of the secrets. */
export function hexHmacMatches(
  given: string,
  algorithm: 'sha1' | 'sha256',
  secrets: readonly string[],
  parts: readonly (string | Buffer)[],
): boolean {
  // Hex is case-blind; providers send lower case, and an upper-case one is the same signature.
  const normalised = given.trim().toLowerCase();
  return anySecret(secrets, (secret) => safeEqual(normalised, hmac(algorithm, secret, parts).toString('hex')));
}

/** Tries every secret, without stopping at the first match, so timing says nothing of which one matched. */
export function anySecret(secrets: readonly string[], matches: (secret: string) => boolean): boolean {
  let matched = false;
  for (const secret of secrets) if (matches(secret)) matched = true;
  return matched;
}

/**
 * The body as a string, only when decoding it as UTF-8 and encoding it again gives the same bytes.
 * Libraries that sign strings (`@octokit/webhooks-methods`, `standardwebhooks`) see the body this
 * way; for any other body their answer would be about different bytes, and the raw bytes are
 * signed with node:crypto instead. `ignoreBOM` keeps a leading byte-order mark, which a default
 * decoder would drop.
 */
export function exactUtf8(raw: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    return null;
  }
}

/** The body as a JSON object, or why it is not one (a 400). */
export function parseObject(raw: Buffer, title: string): { body: Record<string, unknown> } | { reason: string } {
  const text = exactUtf8(raw);
  if (text === null) return { reason: `the body is not UTF-8 text: ${title} sends JSON` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { reason: `the body is not JSON: check that the ${title} webhook sends JSON (content type application/json)` };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { reason: `the body is JSON but not an object (${parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : typeof parsed}): ${title} sends an object` };
  }
  // Held to what every body is: one nested thousands of levels deep would overflow the store's writer.
  const unfit = unfitBody(text, parsed);
  if (unfit !== null) return { reason: `the body ${unfit}` };
  return { body: parsed as Record<string, unknown> };
}

/** A string found at a path in the body, or null (a missing key, another type). */
export function stringAt(body: unknown, ...path: string[]): string | null {
  let node = body;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return null;
    node = (node as Record<string, unknown>)[key];
  }
  return typeof node === 'string' ? node : null;
}

/** `type` plus `.action` when there is an action: `pull_request.opened`, `push`. */
export function withAction(type: string, action: string | null): string {
  return action ? `${type}.${action}` : type;
}

/**
 * Why a timestamp is not fresh, or null when it is within `toleranceS` of now either way (a clock
 * ahead of ours by more than the tolerance is as suspect as a replayed delivery).
 */
export function staleness(label: string, timestampMs: number, now: Date, toleranceS: number): string | null {
  const ageS = Math.round((now.getTime() - timestampMs) / 1000);
  if (ageS > toleranceS) return `${label} is ${ageS} s old (at most ${toleranceS} s): a replayed delivery, or the sender's clock is wrong`;
  if (-ageS > toleranceS) return `${label} is ${-ageS} s in the future (at most ${toleranceS} s): the sender's clock is wrong`;
  return null;
}

export const missingHeader = (name: string) => `missing ${name} header`;

export const mismatch = (name: string, where: string, what = 'the body') =>
  `${name} does not match ${what} signed with this connection's secret: check the secret in ${where}`;

export const missingField = (field: string, title: string) =>
  `the body has no string "${field}", which names the event: is this a ${title} webhook delivery?`;

/**
 * The usual scheme: a header holding `{prefix}HEX`, the HMAC of `parts` (the raw body, or the body
 * with something before it). Null when it matches under one of the secrets, else why not.
 */
export function checkHexSignature(
  req: DeliveryRequest,
  opts: {
    header: string;
    title: string;
    algorithm: 'sha1' | 'sha256';
    parts: readonly (string | Buffer)[];
    prefix?: string;
    /** what the signature covers, for the reason */
    signed?: string;
    /** where a person finds the secret to check, for the reason */
    where?: string;
  },
): string | null {
  const given = header(req, opts.header);
  if (given === null) return missingHeader(opts.header);
  const prefix = opts.prefix ?? '';
  if (!given.startsWith(prefix)) return `${opts.header} does not start with "${prefix}": is this a ${opts.title} webhook delivery?`;
  return hexHmacMatches(given.slice(prefix.length), opts.algorithm, req.secrets, opts.parts) ? null : mismatch(opts.header, opts.where ?? `the ${opts.title} webhook settings`, opts.signed);
}
