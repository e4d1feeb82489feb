// The API's base URL as providers reach it, which a connection's webhook_url starts with: the
// daemon's public URL (`--public-url` / SVC_PUBLIC_URL) behind a proxy, else what the request
// that asks says (its protocol and Host header).
import { API_PREFIX } from '../app.js';

/**
 * The API base of a public URL: the daemon's root as clients reach it (`https://svc.example.com`,
 * or a path a proxy mounts it at), `/api/v1` added unless it is there already. Throws on a URL
 * that is not http(s), so a daemon given one does not start.
 */
export function publicApiBase(publicUrl: string | undefined): string | undefined {
  if (publicUrl === undefined || publicUrl === '') return undefined;
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    throw new Error(`the public URL ${JSON.stringify(publicUrl)} (--public-url, SVC_PUBLIC_URL) is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`the public URL (--public-url, SVC_PUBLIC_URL) must be http:// or https://, not ${url.protocol}`);
  if (url.search || url.hash || url.username || url.password) throw new Error('the public URL (--public-url, SVC_PUBLIC_URL) takes no query, fragment or credentials');
  const base = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  return base.endsWith(API_PREFIX) ? base : `${base}${API_PREFIX}`;
}

/** The API base a request reached: its protocol and Host header (Fastify's `req.protocol`, `req.host`). */
export function requestApiBase(req: { protocol: string; host: string }): string {
  return `${req.protocol}://${req.host || 'localhost'}${API_PREFIX}`;
}
