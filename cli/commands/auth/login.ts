import { type ApiClient } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { type OutputFormat } from '../../config.js';
import { type Context } from '../../context.js';
import { type KeyKind } from '../../credentials/store.js';
import { keyTextProblem } from '../../credentials/key-text.js';
import { ApiFailure, AuthRequiredError, UsageError } from '../../errors.js';

interface LoginOptions extends Record<string, unknown> {
  keyStdin?: boolean;
  insecureStorage?: boolean;
  project?: string;
  admin?: boolean;
  output?: OutputFormat;
}

const PREFIX: Record<KeyKind, string> = { team: 'svc_team_', project: 'svc_proj_', admin: 'svc_admin_' };
const KIND_FLAG: Record<KeyKind, string> = { team: '--team SLUG', project: '--project ID', admin: '--admin' };

/** Shown instead of the key, everywhere: as many characters as the daemon stores as its prefix. */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}

const article = (word: string) => (/^[aeiou]/.test(word) ? 'an' : 'a');

function checkKind(key: string, kind: KeyKind): void {
  const actual = (Object.keys(PREFIX) as KeyKind[]).find((k) => key.startsWith(PREFIX[k]));
  if (actual && actual !== kind) {
    throw new UsageError(`that is ${article(actual)} ${actual} key (${PREFIX[actual]}…), not ${article(kind)} ${kind} key: log in with ${KIND_FLAG[actual]}`);
  }
}

async function readKey(ctx: Context, opts: LoginOptions, what: string): Promise<string> {
  const key = opts.keyStdin
    ? (await ctx.readStdin()).trim()
    : await ctx.prompt.secret(`Paste the ${what} (input is hidden): `, '--key-stdin (e.g. `printenv KEY | svc login --key-stdin ...`)');
  if (!key) throw new UsageError(opts.keyStdin ? 'no key on stdin' : 'no key entered');
  const problem = keyTextProblem(key);
  if (problem) throw new UsageError(`the key ${problem}: paste exactly one key`);
  return key;
}

/** Asks the daemon whether the key works, with the cheapest read its kind allows. */
export async function verifyKey(client: ApiClient, kind: KeyKind, scope: { team?: string; projectId?: string }) {
  try {
    if (kind === 'team') await client.get(`/teams/${encodeURIComponent(scope.team!)}/environments`);
    else if (kind === 'project') await client.get(`/projects/${encodeURIComponent(scope.projectId!)}`);
    else await client.get('/admin/teams');
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) {
      throw new AuthRequiredError(
        'the daemon refused this key (401 UNAUTHORIZED); nothing was stored. Check that it was copied whole and has not been revoked.',
      );
    }
    if (err instanceof ApiFailure && err.status === 404) {
      const what = kind === 'team' ? `team '${scope.team}'` : `project '${scope.projectId}'`;
      throw new ApiFailure(404, err.code, `${what} not found for this key; nothing was stored`);
    }
    throw err;
  }
}

export const command = defineCommand<Record<string, never>, LoginOptions>({
  name: 'login',
  description: 'Store a key for a profile, after checking it with the daemon',
  options: [
    { flags: '--key-stdin', description: 'read the key from stdin instead of a hidden prompt' },
    { flags: '--project <id>', description: 'store a project key (for the project routes) for project ID' },
    { flags: '--admin', description: 'store the admin token (for `svc admin ...`)', conflicts: ['project'] },
    { flags: '--insecure-storage', description: 'store the key in the config folder (mode 0600) instead of the keychain' },
    { flags: '--output <format>', description: "the profile's default output", choices: ['table', 'json'] },
  ],
  examples: [
    { description: 'Log in to a local daemon, typing the key at a hidden prompt', command: 'svc login --url http://127.0.0.1:8787 --team acme' },
    { description: 'Log in from a script (the key never appears in the command line)', command: 'printenv SVC_KEY | svc login --profile ci --url https://svc.example.com --team acme --key-stdin' },
    { description: 'Store a project key for the project routes', command: 'svc login --project 9b2f1c4e-5d6a-4f0b-8c3e-1a2b3c4d5e6f --key-stdin < project.key' },
  ],
  async run(_args, opts, ctx) {
    const kind: KeyKind = opts.project ? 'project' : opts.admin ? 'admin' : 'team';
    const profile = ctx.profile();
    ctx.config().assertChangeable();
    const stored = ctx.config().profile(profile);
    const rawUrl = ctx.globals.url ?? ctx.io.env.SVC_BASE_URL ?? stored?.url;
    if (!rawUrl) throw new UsageError('no daemon URL: pass --url URL (e.g. --url http://127.0.0.1:8787)');
    const { createClient, normalizeBaseUrl } = await import('../../../shared/client.js');
    let url: string;
    try {
      url = normalizeBaseUrl(rawUrl);
    } catch {
      throw new UsageError(`invalid URL '${rawUrl}': expected http://HOST:PORT[/api/v1]`);
    }
    const team = ctx.globals.team ?? ctx.io.env.SVC_TEAM ?? stored?.team;
    if (kind === 'team' && !team) throw new UsageError('no team: pass --team SLUG');

    const what = kind === 'team' ? `team key for '${team}'` : kind === 'project' ? `project key for '${opts.project}'` : 'admin token';
    const key = await readKey(ctx, opts, what);
    checkKind(key, kind);

    const client = createClient({ baseUrl: url, token: key, noWait: ctx.globals.wait !== true });
    await verifyKey(client, kind, { team, projectId: opts.project });

    const saved = await ctx.store().save(profile, kind, key, { insecure: opts.insecureStorage });
    await ctx.config().setProfile(profile, {
      url,
      ...(team ? { team } : {}),
      ...(kind === 'project' ? { projectId: opts.project } : {}),
      ...(opts.output ? { output: opts.output } : {}),
    });

    if (saved.where === 'file') {
      if (opts.insecureStorage) ctx.out.status(`Stored the key in ${saved.path} (mode 0600), as --insecure-storage asked.`);
      else ctx.out.warn(`no keychain answered (${saved.keychainError}); stored the key in ${saved.path} (mode 0600).`);
    }
    const scope = kind === 'team' ? `team ${team}` : kind === 'project' ? `project ${opts.project}` : 'admin';
    ctx.out.success(`Logged in to ${url} as ${scope} (profile ${profile}, key ${keyPrefix(key)}…, in the ${saved.where}).`);
    if (ctx.out.json) {
      ctx.out.printJson({
        profile,
        url,
        team: team ?? null,
        kind,
        project_id: opts.project ?? null,
        key_prefix: keyPrefix(key),
        storage: saved.where,
      });
    }
  },
});
