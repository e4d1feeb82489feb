import { readFile } from 'node:fs/promises';
import { defineCommand, repeatable } from '../command.js';
import { type KeyKind } from '../credentials/store.js';
import { InvalidInputError, UsageError } from '../errors.js';
import { refuseUnsendable } from '../lib/json-arg.js';

interface ApiOptions extends Record<string, unknown> {
  method?: string;
  field?: string[];
  input?: string;
  as?: KeyKind | 'none';
}

/** Which key a path needs, when --as does not say. */
export function keyKindForPath(path: string): KeyKind | 'none' {
  if (path === '/health' || path.startsWith('/health?')) return 'none';
  if (path.startsWith('/admin/') || path === '/metrics' || path.startsWith('/metrics?')) return 'admin';
  if (path.startsWith('/projects/')) return 'project';
  return 'team';
}

/** `key=value` pairs into an object; values that parse as JSON (numbers, true, {...}) are JSON. */
export function fieldsToBody(fields: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, raw] of fields.map(splitField)) {
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // a plain string
    }
    body[key] = value;
  }
  return body;
}

/** `key=value` pairs as query parameters, the values as typed. */
function fieldsToQuery(fields: readonly string[]): Record<string, string> {
  return Object.fromEntries(fields.map(splitField));
}

function splitField(field: string): [string, string] {
  const eq = field.indexOf('=');
  if (eq <= 0) throw new UsageError(`--field needs key=value, got '${field}'`);
  return [field.slice(0, eq), field.slice(eq + 1)];
}

export const command = defineCommand<{ path: string }, ApiOptions>({
  name: 'api',
  description: 'Call any API route and print its data as JSON',
  args: [{ name: 'path', description: 'route below the base URL, e.g. /teams/acme/automations (`{team}` is replaced)', required: true }],
  options: [
    { flags: '-X, --method <method>', description: 'HTTP method (default GET, or POST with a body)', choices: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    { flags: '-f, --field <key=value>', description: 'body field (repeatable; JSON values are parsed), or with -X GET a query parameter', parse: repeatable },
    { flags: '--input <file>', description: 'JSON body from a file, or - for stdin', conflicts: ['field'] },
    { flags: '--as <kind>', description: 'which stored key to send (default: from the path)', choices: ['team', 'project', 'admin', 'none'] },
  ],
  examples: [
    { description: "List the team's automations", command: 'svc api /teams/{team}/automations' },
    { description: 'Create a team through the admin API', command: 'svc api -X POST /admin/teams -f slug=acme -f name=Acme' },
    { description: 'Check that the daemon is up', command: 'svc api /health' },
  ],
  async run({ path }, opts, ctx) {
    let route = path.startsWith('/') ? path : `/${path}`;
    if (route.includes('{team}')) route = route.replaceAll('{team}', encodeURIComponent(await ctx.team()));
    let body: unknown;
    if (opts.input) {
      const text = opts.input === '-' ? await ctx.readStdin() : await readFile(opts.input, 'utf8').catch(() => {
        throw new UsageError(`cannot read ${opts.input}`);
      });
      try {
        body = JSON.parse(text);
      } catch {
        throw new InvalidInputError(`--input is not JSON: ${opts.input}`);
      }
      refuseUnsendable(body, `--input ${opts.input}`);
    }
    // As gh does: on a GET the fields are query parameters (a GET's body would be ignored), as typed.
    const fieldsAsQuery = opts.method === 'GET' && Boolean(opts.field?.length);
    if (opts.field?.length && !fieldsAsQuery) body = fieldsToBody(opts.field);
    const method = (opts.method ?? (body === undefined ? 'GET' : 'POST')) as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    const client = await ctx.client(opts.as ?? keyKindForPath(route));
    const [rawPath, query] = route.split('?', 2);
    const pathOnly = encodedPath(rawPath);
    const params = { ...(query ? Object.fromEntries(new URLSearchParams(query)) : {}), ...(fieldsAsQuery ? fieldsToQuery(opts.field!) : {}) };
    const result = await client.request(method, pathOnly, {
      body,
      query: Object.keys(params).length > 0 ? params : undefined,
      anyBody: true,
    });
    // A route outside the envelope (/openapi.json) is printed whole; a plain-text one (/metrics) as it came.
    if (result.text !== undefined) ctx.out.printText(result.text);
    else ctx.out.printJson(result.data !== undefined ? result.data : result.body);
    if (result.next_cursor) ctx.out.status(`More results: add ${query ? '&' : '?'}cursor=${result.next_cursor} to the path.`);
  },
});

/** The path with spaces, control and non-ASCII characters percent-encoded, as a browser would send it. */
function encodedPath(path: string): string {
  try {
    return path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c));
  } catch {
    throw new UsageError(`the path holds a character that cannot be sent (a lone UTF-16 surrogate): ${JSON.stringify(path)}`);
  }
}
