import { normalizeBaseUrl } from '../../../shared/client.js';
import { defineCommand } from '../../command.js';
import { type ResolvedCredentials } from '../../credentials/resolve.js';
import { KEY_KINDS, type KeyKind } from '../../credentials/store.js';
import { ApiFailure, AuthRequiredError } from '../../errors.js';
import { projectIdInForce } from '../../lib/project-id.js';
import { keyPrefix, verifyKey } from './login.js';

interface StatusOptions extends Record<string, unknown> {
  check?: boolean;
}

function sourceText(c: ResolvedCredentials, what: 'url' | 'team' | 'key'): string {
  if (what === 'url') return c.urlSource === 'flag' ? '--url' : c.urlSource === 'env' ? 'SVC_BASE_URL' : 'profile';
  if (what === 'team') return c.teamSource === 'flag' ? '--team' : c.teamSource === 'env' ? 'SVC_TEAM' : 'profile';
  if (c.keySource === 'env') return c.keyEnv ?? 'environment';
  return c.keySource === 'keychain' ? 'keychain' : 'file';
}

/** `raw` as the client will call it; as given when it is not a URL (status shows, it does not judge). */
function requestUrl(raw: string): string {
  try {
    return normalizeBaseUrl(raw);
  } catch {
    return raw;
  }
}

export const command = defineCommand<Record<string, never>, StatusOptions>({
  name: 'auth status',
  description: 'Show the profile, URL, team and key in use, and where each came from',
  options: [{ flags: '--check', description: 'also ask the daemon whether each key works' }],
  examples: [
    { description: 'See which key a command would use', command: 'svc auth status' },
    { description: 'Check that the stored keys still work, for a script', command: 'svc auth status --check --json' },
  ],
  async run(_args, opts, ctx) {
    const resolved = new Map<KeyKind, ResolvedCredentials>();
    for (const kind of KEY_KINDS) resolved.set(kind, await ctx.credentials(kind));
    const team = resolved.get('team')!;
    const keys: Record<string, { prefix: string; source: string; valid?: boolean; project_id?: string } | null> = {};
    let uncheckable = false;
    /** keys that work, but not for the team (or project) in force: the daemon answered 404 */
    const notFound = new Map<KeyKind, string>();
    for (const kind of KEY_KINDS) {
      const c = resolved.get(kind)!;
      if (!c.key) {
        keys[kind] = null;
        continue;
      }
      const entry: { prefix: string; source: string; valid?: boolean; project_id?: string } = {
        prefix: keyPrefix(c.key),
        source: c.keySource === 'env' ? `env:${c.keyEnv}` : c.keySource!,
      };
      // The project a project key is checked against is the one the project commands would use.
      const projectId = kind === 'project' ? await projectIdInForce(ctx) : undefined;
      if (projectId) entry.project_id = projectId;
      if (kind === 'project' && !projectId) uncheckable = true;
      else if (opts.check && c.url) {
        try {
          const client = await ctx.client(kind);
          await verifyKey(client, kind, { team: c.team, projectId });
          entry.valid = true;
        } catch (err) {
          if (!(err instanceof AuthRequiredError || (err instanceof ApiFailure && err.status === 404))) throw err;
          entry.valid = false;
          if (err instanceof ApiFailure) notFound.set(kind, kind === 'project' ? `project '${projectId}'` : `team '${c.team}'`);
        }
      }
      keys[kind] = entry;
    }
    // The URL requests go to: a base URL given without /api/v1 gets it (CONTRACT §10).
    const url = team.url === undefined ? null : requestUrl(team.url);
    const data = {
      profile: team.profile,
      profile_source: team.profileSource,
      url,
      url_source: team.urlSource ?? null,
      team: team.team ?? null,
      team_source: team.teamSource ?? null,
      keys,
      ...(team.keychainError ? { keychain_error: team.keychainError } : {}),
    };
    ctx.out.result(data, () => {
      const rows: [string, string][] = [
        ['Profile', `${team.profile}${team.profileSource === 'flag' ? ' (from --profile)' : team.profileSource === 'env' ? ' (from SVC_PROFILE)' : ''}`],
        ['URL', url ? `${url} (from ${sourceText(team, 'url')})` : 'none'],
        ['Team', team.team ? `${team.team} (from ${sourceText(team, 'team')})` : 'none'],
      ];
      for (const kind of KEY_KINDS) {
        const c = resolved.get(kind)!;
        const k = keys[kind];
        const label = kind === 'admin' ? 'Admin token' : `${kind[0].toUpperCase()}${kind.slice(1)} key`;
        if (!k) {
          rows.push([label, 'none']);
          continue;
        }
        const missing = notFound.get(kind);
        const valid = k.valid === undefined ? '' : k.valid ? ', works' : missing ? `, ${missing} not found for it` : ', REFUSED by the daemon';
        const project = k.project_id ? ` for project ${k.project_id}` : '';
        rows.push([label, `${k.prefix}…${project} (from ${sourceText(c, 'key')}${valid})`]);
      }
      ctx.out.fields(rows);
      if (team.keychainError) ctx.out.warn(`the keychain did not answer: ${team.keychainError}`);
    });
    if (opts.check && uncheckable) {
      ctx.out.warn('the project key was not checked: no project (set SVC_PROJECT_ID, or log in with `svc login --project ID`)');
    }
    if (Object.values(keys).every((k) => k === null)) {
      throw new AuthRequiredError(`not logged in (profile ${team.profile}): run \`svc login\`, or set SVC_API_KEY`);
    }
    const refused = KEY_KINDS.filter((kind) => keys[kind]?.valid === false && !notFound.has(kind));
    if (refused.length > 0) {
      // A key from the environment is mended there, not by logging in again.
      const fromEnv = [...new Set(refused.map((kind) => resolved.get(kind)!).filter((c) => c.keySource === 'env').map((c) => c.keyEnv!))];
      throw new AuthRequiredError(
        fromEnv.length > 0
          ? `the key in ${fromEnv.join(' and ')} was refused by the daemon: check that variable`
          : 'a stored key was refused by the daemon: run `svc login` again',
      );
    }
    const [missing] = notFound.values();
    if (missing) {
      // The key works; what it was asked about is not its own (a typo in --team, another profile's team).
      throw new ApiFailure(404, 'NOT_FOUND', `${missing} not found for this key: check --team / SVC_TEAM (or the project), or run \`svc login\``);
    }
  },
});
