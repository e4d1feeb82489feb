// Keys and tokens a caller put where they do not belong (a query parameter, a path segment, a
// body field's name, the Host header) are masked before the daemon writes them to its log or
// quotes them back in an error: proxies and client logs keep both. The prefix stays, so the
// reader knows what it was.
//
// A key is found wherever it starts, glued to other text or not (`key_svc_team_...`,
// `Bearer%20svc_team_...`), and with any character of its prefix percent-encoded
// (`svc%5Fteam%5F...`), as URLs carry it: masking a little too much is harmless, a key left
// whole is not.

/** `text` as a pattern in which each character may also be written %XX. */
const encodable = (text: string) =>
  [...text].map((c) => `(?:${c}|%${c.charCodeAt(0).toString(16).padStart(2, '0')})`).join('');

const KEY_TEXT = new RegExp(`(${encodable('svc_')}(?:${['team', 'proj', 'admin'].map(encodable).join('|')})${encodable('_')})[^\\s/?&#"'=,;]+`, 'gi');

export const maskKeys = (text: string): string => text.replace(KEY_TEXT, '$1[redacted]');
