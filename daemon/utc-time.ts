// Times the API takes with any offset and stores in UTC. RFC 3339 years have four digits, and an
// offset can carry a time out of them (9999-12-31T23:59:59-00:01 is in year 10000 in UTC), where
// Date#toISOString writes a six-digit year no client parses as a date-time.

/** `text` (a date-time) in UTC, or undefined when Date cannot read it or its UTC year leaves 0000-9999. */
export function utcDateTime(text: string): string | undefined {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return iso.length === 24 ? iso : undefined;
}
