// What a key may be made of: one word of printable characters. Anything else cannot go into an
// Authorization header, and the request would fail before reaching the daemon, reading as
// "cannot reach" when the key is what is wrong.

/** Why `key` cannot be a key, or null when it can. */
export function keyTextProblem(key: string): string | null {
  if (/\s/.test(key)) return 'contains whitespace';
  if (/[\x00-\x1f\x7f]/.test(key)) return 'contains a control character';
  return null;
}
