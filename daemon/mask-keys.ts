// Keys and tokens a caller put where they do not belong (a query parameter, a path segment, a
// body field's name) are masked before the daemon writes them to its log or quotes them back in
// an error: proxies and client logs keep both. The prefix stays, so the reader knows what it was.

const KEY_TEXT = /\b(svc_(?:team|proj|admin)_)[^\s/?&#"'=,;]+/g;

export const maskKeys = (text: string): string => text.replace(KEY_TEXT, '$1[redacted]');
