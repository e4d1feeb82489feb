// How deep JSON may nest. The daemon refuses request bodies nested deeper (every recursive walk
// after the parse, serialising included, would overflow the stack on thousands of levels); the
// CLI refuses such input files itself, with a message naming the file, before sending anything.

/** Deepest nesting of objects and arrays a body may have; real webhook payloads stay under 20. */
export const MAX_BODY_DEPTH = 100;

/** Whether `value` has objects or arrays nested more than `limit` levels; stops at the first such path. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (nestsDeeperThan((value as Record<string, unknown>)[key], limit - 1)) return true;
  return false;
}
