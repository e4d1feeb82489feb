// `svc ui [AREA]`: the interactive screens (also what `svc` alone opens on a terminal). Ink and
// React load here, on first use, never for any other command.
import { InvalidArgumentError } from 'commander';
import { parseDuration, defineCommand } from '../command.js';
import { createClient } from '../../shared/client.js';
import { UsageError } from '../errors.js';
import { AREA_NAMES, type AreaName } from '../screens/routes.js';
import { cliVersion } from '../version.js';

type UiOptions = { refresh?: number };

export const command = defineCommand<{ area?: AreaName }, UiOptions>({
  name: 'ui',
  description: 'Open the interactive screens (what `svc` alone opens on a terminal)',
  args: [{ name: 'area', description: `open one area directly: ${AREA_NAMES.join(', ')}`, choices: AREA_NAMES }],
  options: [{ flags: '--refresh <duration>', description: 'how often lists refresh, e.g. 2s or 1m (default 5s, at least 1s)', parse: refreshInterval }],
  examples: [
    { command: 'svc', description: 'Open the home screen (on a terminal)' },
    { command: 'svc ui automations', description: 'Go straight to the automations' },
    { command: 'svc --profile dev ui sessions --refresh 2s', description: 'Follow the sessions of the dev profile' },
  ],
  async run(args, options, ctx) {
    if (!ctx.isInteractive) {
      throw new UsageError(
        'the screens need a terminal: stdin and stdout must be TTYs, CI unset and no --json (every screen has a command: `svc --help`)',
      );
    }
    // ctx.client() says what is missing when there is no URL or key; the screens then use a
    // client of their own whose rate-limit notice goes to the message line rather than to stderr,
    // which would scribble over the screen.
    const checked = await ctx.client();
    const { key } = await ctx.credentials();
    const team = await ctx.team();
    const listeners = new Set<(text: string, forMs?: number) => void>();
    const client = createClient({
      baseUrl: checked.baseUrl,
      token: key,
      // (a person at the screens is better served by a wait than by an error)
      noWait: ctx.globals.wait === false,
      userAgent: `svc-cli/${cliVersion()}`,
      onRateLimitWait: (ms) => listeners.forEach((l) => l(`Rate limited: waiting ${Math.ceil(ms / 1000)} s before retrying`, ms)),
    });
    const { renderApp } = await import('../screens/app.js');
    const { describePlace, saveConnectionSecret } = await import('../connections/secrets.js');
    await renderApp({
      client,
      team,
      notices: {
        subscribe: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
      },
      profile: ctx.profile(),
      url: client.baseUrl,
      color: ctx.out.color,
      area: args.area,
      // A connection made on the screens keeps its secret where `svc connections create` would.
      secrets: { save: async (id, secret) => describePlace(await saveConnectionSecret(ctx, id, secret)) },
      refreshMs: options.refresh && options.refresh > 0 ? options.refresh : undefined,
    });
  },
});

/** Each refresh is a request against the key's allowance (60 a minute by default), shared with every other command. */
function refreshInterval(value: string): number {
  const ms = parseDuration(value);
  if (ms < 1000) throw new InvalidArgumentError('Lists refresh at most once a second (each refresh spends the key\'s rate limit): give 1s or more.');
  return ms;
}
