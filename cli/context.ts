// One context per command run. Everything in it is built on first use, so a command that needs
// no keychain, config or HTTP client loads none of them (and `svc --help` loads nothing at all:
// it never builds a context).
import { type ApiClient } from '../shared/client.js';
import { type ConfigStore, isValidProfileName, openConfig } from './config.js';
import { fileStore } from './credentials/file-store.js';
import { systemKeychain } from './credentials/keychain.js';
import { type ResolvedCredentials, resolveCredentials, resolveProfileName } from './credentials/resolve.js';
import { type CredentialStore, credentialStore, type KeyKind } from './credentials/store.js';
import { AuthRequiredError, UsageError } from './errors.js';
import { type IO } from './io.js';
import { type ChalkModule, createOutput, type Output } from './output.js';
import { configDir } from './paths.js';
import { canPrompt, confirm, promptSecret, promptText, readStdin } from './prompt.js';
import { cliVersion } from './version.js';

/** The options every command takes (commander attribute names). */
export interface GlobalOptions {
  json: boolean;
  profile?: string;
  /** false with --no-color */
  color: boolean;
  url?: string;
  team?: string;
  /**
   * A 429 exits 6 at once (CONTRACT §10) unless --wait asks to wait for the window and retry
   * once; the interactive screens wait unless --no-wait (false) says otherwise.
   */
  wait?: boolean;
}

export interface Prompts {
  /** hidden input; on a non-TTY a UsageError naming `insteadFlag` */
  secret(question: string, insteadFlag: string): Promise<string>;
  text(question: string, insteadFlag: string): Promise<string>;
  /** yes/no, default no */
  confirm(question: string, insteadFlag: string): Promise<boolean>;
}

export interface Context {
  readonly io: IO;
  readonly globals: GlobalOptions;
  /** printing helpers; JSON mode from --json or the profile's `output` */
  readonly out: Output;
  /**
   * an Ink screen may open: stdin and stdout are TTYs, no --json, CI unset (a profile that
   * defaults to JSON output does not count: it says how results print, and a screen prints none)
   */
  readonly isInteractive: boolean;
  /** a prompt may be shown: stdin and stderr are TTYs, CI unset */
  readonly canPrompt: boolean;
  readonly prompt: Prompts;
  config(): ConfigStore;
  /** the profile in force: --profile, SVC_PROFILE, the config's default, "default" */
  profile(): string;
  /** keychain with the 0600 file as fallback */
  store(): CredentialStore;
  /** URL, team and key of the given kind (default team), with where each came from */
  credentials(kind?: KeyKind): Promise<ResolvedCredentials>;
  /**
   * An API client authenticated with the key of `kind` (default team); 'none' for routes that
   * need no key (GET /health). Throws AuthRequiredError when URL or key is missing.
   */
  client(kind?: KeyKind | 'none'): Promise<ApiClient>;
  /** the team slug in force, or a UsageError saying how to give one */
  team(): Promise<string>;
  readStdin(): Promise<string>;
}

export interface ContextExtras {
  /** chalk, when colour is possible (main.ts loads it only then); without it output is plain */
  chalk?: ChalkModule;
}

export function createContext(io: IO, globals: GlobalOptions, extras: ContextExtras = {}): Context {
  let config: ConfigStore | undefined;
  let store: CredentialStore | undefined;
  let out: Output | undefined;
  const creds = new Map<KeyKind, Promise<ResolvedCredentials>>();
  const cfgDir = configDir({ env: io.env });

  if (globals.profile !== undefined && !isValidProfileName(globals.profile)) {
    throw new UsageError(`invalid profile name '${globals.profile}': use letters, digits, '.', '_' and '-'`);
  }

  const ctx: Context = {
    io,
    globals,
    get out() {
      if (!out) {
        const json = globals.json || ctx.config().profile(ctx.profile())?.output === 'json';
        out = createOutput(io, { json, color: globals.color, chalk: extras.chalk });
      }
      return out;
    },
    get isInteractive() {
      return Boolean(io.stdin.isTTY) && io.stdout.isTTY && !globals.json && !io.env.CI;
    },
    get canPrompt() {
      return canPrompt(io);
    },
    prompt: {
      secret: (q, flag) => promptSecret(io, q, flag),
      text: (q, flag) => promptText(io, q, flag),
      confirm: (q, flag) => confirm(io, q, flag),
    },
    config() {
      if (!config) {
        config = openConfig(cfgDir);
        // Said once, on stderr: the command goes on as if there were no settings (flags and
        // SVC_* variables may be all it needs), and a change to the file is refused.
        if (config.problem) io.stderr.write(`svc: warning: ${config.problem}: its settings are ignored\n`);
      }
      return config;
    },
    profile() {
      const { profile } = resolveProfileName(globals, io.env, ctx.config());
      if (!isValidProfileName(profile)) throw new UsageError(`invalid profile name '${profile}'`);
      return profile;
    },
    store() {
      store ??= credentialStore(systemKeychain({ env: io.env }), fileStore(cfgDir, (message) => io.stderr.write(`svc: warning: ${message}\n`)));
      return store;
    },
    credentials(kind = 'team') {
      let p = creds.get(kind);
      if (!p) {
        p = resolveCredentials({ kind, flags: globals, env: io.env, config: ctx.config(), store: () => ctx.store() });
        creds.set(kind, p);
      }
      return p;
    },
    async client(kind = 'team') {
      const c =
        kind === 'none'
          ? await resolveCredentials({ kind: 'team', flags: globals, env: io.env, config: ctx.config(), store: () => ctx.store(), withKey: false })
          : await ctx.credentials(kind);
      const profileFlag = c.profile === 'default' ? '' : ` --profile ${c.profile}`;
      if (!c.url) {
        const known = Object.keys(ctx.config().profiles());
        // A typo in --profile reads better as "no such profile" than as a missing URL.
        const unknown = !known.includes(c.profile) && known.length > 0 ? ` (no such profile; stored ones: ${known.join(', ')})` : '';
        throw new AuthRequiredError(
          `no daemon URL for profile '${c.profile}'${unknown}: run \`svc login${profileFlag} --url URL --team SLUG\`, or set SVC_BASE_URL`,
        );
      }
      let token: string | undefined;
      if (kind !== 'none') {
        if (!c.key) {
          const how =
            kind === 'admin'
              ? `run \`svc login${profileFlag} --admin\`, or set SVC_ADMIN_TOKEN`
              : kind === 'project'
                ? `run \`svc login${profileFlag} --project ID\`, or set SVC_API_KEY`
                : `run \`svc login${profileFlag}\`, or set SVC_API_KEY`;
          const why = c.keychainError ? ` (keychain: ${c.keychainError})` : '';
          if (c.envKeyOfOtherKind) {
            const held = kind === 'team' ? 'a project key (svc_proj_…)' : 'a team key (svc_team_…)';
            throw new AuthRequiredError(`SVC_API_KEY holds ${held}, and this command needs a ${kind} key: set SVC_API_KEY to one, or unset it to use profile '${c.profile}'`);
          }
          throw new AuthRequiredError(`no ${kind} key for profile '${c.profile}': ${how}${why}`);
        }
        token = c.key;
      }
      const { createClient, normalizeBaseUrl } = await import('../shared/client.js');
      let baseUrl: string;
      try {
        baseUrl = normalizeBaseUrl(c.url);
      } catch {
        throw new UsageError(`invalid daemon URL '${c.url}' (from ${c.urlSource}): expected http://HOST:PORT[/api/v1]`);
      }
      return createClient({
        baseUrl,
        token,
        tokenFrom: token === undefined ? undefined : c.keySource === 'env' ? (c.keyEnv ?? null) : null,
        timeoutMs: requestTimeoutMs(io.env),
        noWait: globals.wait !== true,
        userAgent: `svc-cli/${cliVersion()}`,
        // The dev profile's daemon is the one `svc dev` runs.
        startCommand: c.profile === 'dev' && c.urlSource === 'profile' ? 'svc dev' : undefined,
        onRateLimitWait: (ms) =>
          ctx.out.status(`Rate limited: waiting ${Math.ceil(ms / 1000)} s before retrying (--wait).`),
      });
    },
    async team() {
      const c = await ctx.credentials('team');
      if (!c.team) {
        // With nothing configured, every command says the same first: no URL or key (exit 3).
        await ctx.client('team');
        throw new UsageError('no team: pass --team SLUG, set SVC_TEAM, or store one with `svc login --team SLUG`');
      }
      return c.team;
    },
    readStdin: () => readStdin(io),
  };
  return ctx;
}

/** SVC_TIMEOUT: seconds to wait for the daemon's answer to a request (default 60). */
function requestTimeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env.SVC_TIMEOUT;
  if (raw === undefined || raw === '') return 60_000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 86_400) {
    throw new UsageError(`SVC_TIMEOUT must be a number of seconds above 0, at most 86400 (got '${raw}')`);
  }
  return Math.round(seconds * 1000);
}
