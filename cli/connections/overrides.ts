// `svc connections test --set path=value`: changes a field of the sample payload before it is
// signed, as `stripe trigger --override` does, so a sample can meet an automation's filters
// (`--set pull_request.base.ref=main`). A value that parses as JSON is JSON; else it is a string.
import { UsageError } from '../errors.js';

/** `a.b.0.c=value` as its path and value. */
export function parseOverride(text: string): { path: string[]; value: unknown } {
  const eq = text.indexOf('=');
  const path = eq > 0 ? text.slice(0, eq).split('.') : [];
  if (eq <= 0 || path.some((segment) => segment === '')) {
    throw new UsageError(`--set needs path=value with a dotted path, such as pull_request.base.ref=main; got '${text}'`);
  }
  const raw = text.slice(eq + 1);
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // a plain string
  }
  return { path, value };
}

/**
 * A copy of `payload` with each override set, objects made on the way where the path has none. A
 * path through a value that is neither an object nor an array is a usage error naming it.
 */
export function applyOverrides(payload: Record<string, unknown>, overrides: readonly string[]): Record<string, unknown> {
  const out = structuredClone(payload);
  for (const text of overrides) {
    const { path, value } = parseOverride(text);
    let node: Record<string, unknown> | unknown[] = out;
    for (const [i, segment] of path.entries()) {
      const last = i === path.length - 1;
      if (Array.isArray(node) && !/^\d+$/.test(segment)) throw new UsageError(`--set ${text}: ${path.slice(0, i).join('.')} is an array: index it with a number`);
      const holder = node as Record<string, unknown>;
      if (last) {
        holder[segment] = value;
        break;
      }
      const next = holder[segment];
      if (next === undefined || next === null) holder[segment] = {};
      else if (typeof next !== 'object') throw new UsageError(`--set ${text}: ${path.slice(0, i + 1).join('.')} is ${JSON.stringify(next)}, not an object`);
      node = holder[segment] as Record<string, unknown> | unknown[];
    }
  }
  return out;
}
