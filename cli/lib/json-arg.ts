// JSON given on the command line the way curl and the Stripe CLI take it: inline, `@FILE` for a
// file, `-` (or `@-`) for stdin. Only node:fs is loaded: `svc events send` sits on CI hot paths.
import { readFile } from 'node:fs/promises';
import { type Context } from '../context.js';
import { MAX_BODY_DEPTH, nestsDeeperThan } from '../../shared/json-depth.js';
import { holdsNonFinite, OUT_OF_RANGE_MESSAGE } from '../../shared/json-numbers.js';
import { InvalidInputError, UsageError } from '../errors.js';

/** Where a JSON argument's text comes from, as its usage errors name it. */
function sourceOf(value: string): { kind: 'inline' } | { kind: 'stdin' } | { kind: 'file'; path: string } {
  if (value === '-' || value === '@-') return { kind: 'stdin' };
  if (value.startsWith('@')) return { kind: 'file', path: value.slice(1) };
  return { kind: 'inline' };
}

/** True when the argument reads stdin, so a command can refuse two arguments doing so. */
export const readsStdin = (value: string | undefined): boolean => value !== undefined && sourceOf(value).kind === 'stdin';

/** The text of a JSON|@FILE|- argument; `flag` names it in errors (e.g. '--data'). */
async function argumentText(ctx: Pick<Context, 'readStdin'>, value: string, flag: string): Promise<{ text: string; from: string }> {
  const source = sourceOf(value);
  if (source.kind === 'inline') return { text: value, from: flag };
  if (source.kind === 'stdin') return { text: await ctx.readStdin(), from: `${flag} (stdin)` };
  if (!source.path) throw new UsageError(`${flag} @: name a file after @, e.g. ${flag} @payload.json`);
  try {
    return { text: await readFile(source.path, 'utf8'), from: `${flag} file '${source.path}'` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new UsageError(`cannot read ${flag} file '${source.path}': ${why}`);
  }
}

/** A JSON object from a JSON|@FILE|- argument, or a usage error saying what is wrong with it. */
export async function readJsonObjectArg(ctx: Pick<Context, 'readStdin'>, value: string, flag: string): Promise<Record<string, unknown>> {
  const { text, from } = await argumentText(ctx, value, flag);
  if (!text.trim()) throw new InvalidInputError(`${from} is empty: expected a JSON object such as '{"env":"prod"}'`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const hint = sourceOf(value).kind === 'inline' && !/^\s*[{[]/.test(text) ? ` (to read a file, write ${flag} @${value})` : '';
    throw new InvalidInputError(`${from} is not valid JSON: ${(err as Error).message}${hint}`);
  }
  refuseUnsendable(parsed, from);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    const got = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    throw new InvalidInputError(`${from} must be a JSON object, got ${got}`);
  }
  return parsed as Record<string, unknown>;
}

/**
 * A usage error when `value` cannot be sent as it is: nested deeper than the daemon takes (it
 * would refuse it with 400), or holding a number JSON cannot carry (it would be sent as null).
 */
export function refuseUnsendable(value: unknown, from: string): void {
  if (nestsDeeperThan(value, MAX_BODY_DEPTH)) {
    throw new InvalidInputError(`${from} nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep, which the daemon refuses`);
  }
  if (holdsNonFinite(value)) throw new InvalidInputError(`${from} ${OUT_OF_RANGE_MESSAGE}: it reads as Infinity, which JSON would send as null`);
}
