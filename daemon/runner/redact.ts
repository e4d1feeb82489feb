// Keeps env var values out of what the daemon stores from a runner's output.

/** Values this short are left alone: masking every "1" or "on" in an answer helps nobody. */
export const MIN_REDACTED_LENGTH = 4;
export const REDACTED = '[redacted]';

export function redact(text: string, values: readonly string[]): string {
  // Longest first, so a value that contains another is masked whole.
  const masked = [...new Set(values)].filter((v) => v.length >= MIN_REDACTED_LENGTH).sort((a, b) => b.length - a.length);
  let out = text;
  for (const v of masked) out = out.split(v).join(REDACTED);
  return out;
}
