import { join } from 'node:path';
import { type RunningDaemon } from '../../daemon/config.js';
import { ApiFailure, createClient } from '../../shared/client.js';
import { defineCommand, integer } from '../command.js';
import { type Context } from '../context.js';
import { LOG_FORMATS } from '../dev-log.js';
import { announceJson, buildDaemonOptions, type DaemonFlags, logStreamFor, RUNNER_OPTIONS, serveUntilSignal, startAndAnnounce, watchSignals } from '../daemon-launch.js';
import { AuthRequiredError } from '../errors.js';
import { userDataDir } from '../paths.js';
import { keyPrefix, verifyKey } from './auth/login.js';

interface DevOptions extends DaemonFlags {
  insecureStorage?: boolean;
}

export const DEV_TEAM = 'dev';
export const DEV_PROFILE = 'dev';

/**
 * Makes sure team `dev` exists and the CLI profile holds a working key for it. A key that still
 * works is kept, so restarting `svc dev` does not pile up keys.
 */
export async function ensureDevTeam(daemon: RunningDaemon, ctx: Context, profile: string, insecure: boolean) {
  const admin = createClient({ baseUrl: daemon.url, token: daemon.adminToken });
  try {
    await admin.post('/admin/teams', { slug: DEV_TEAM, name: DEV_TEAM });
    ctx.out.status(`Created team ${DEV_TEAM}.`);
  } catch (err) {
    if (!(err instanceof ApiFailure && err.status === 409)) throw err;
  }

  const store = ctx.store();
  const { found } = await store.read(profile, 'team');
  let key = found?.key;
  if (key) {
    try {
      await verifyKey(createClient({ baseUrl: daemon.url, token: key }), 'team', { team: DEV_TEAM });
    } catch (err) {
      if (!(err instanceof AuthRequiredError || (err instanceof ApiFailure && err.status === 404))) throw err;
      key = undefined;
    }
  }
  let created = false;
  if (!key) {
    const made = await admin.post<{ key: string }>(`/admin/teams/${DEV_TEAM}/keys`, { name: `svc dev (profile ${profile})` });
    key = made.key;
    created = true;
    const saved = await store.save(profile, 'team', key, { insecure });
    if (saved.where === 'file' && !insecure) {
      ctx.out.warn(`no keychain answered (${saved.keychainError}); stored the key in ${saved.path} (mode 0600).`);
    }
  }
  // The admin token makes `svc --profile dev admin ...` work too.
  const storedAdmin = (await store.read(profile, 'admin')).found?.key;
  if (storedAdmin !== daemon.adminToken) await store.save(profile, 'admin', daemon.adminToken, { insecure });
  await ctx.config().setProfile(profile, { url: daemon.url, team: DEV_TEAM });
  return { key, created };
}

export const command = defineCommand<Record<string, never>, DevOptions>({
  name: 'dev',
  description: 'Run a local daemon with a ready-to-use team `dev` and CLI profile `dev`',
  options: [
    { flags: '--data <dir>', description: 'data folder (default: the user data folder for svc, subfolder dev)' },
    { flags: '--port <port>', description: 'port (default 8787); 0 picks a free one', parse: integer({ min: 0, max: 65535 }) },
    ...RUNNER_OPTIONS,
    { flags: '--log-level <level>', description: 'log level on stderr (default info)', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    {
      flags: '--log-format <format>',
      description: 'log lines on stderr: pretty (one readable line per request; the default when stdout is a terminal) or json (the default otherwise)',
      choices: LOG_FORMATS,
    },
    { flags: '--insecure-storage', description: 'store the dev key in the config folder (mode 0600) instead of the keychain' },
  ],
  examples: [
    { description: 'Start a local daemon for offline testing (also `npm start`)', command: 'svc dev' },
    { description: 'Then, in another terminal, use it through the dev profile', command: 'svc --profile dev automations list' },
    { description: 'Run each session turn through a local script', command: "svc dev --runner exec --runner-command './agent.sh'" },
  ],
  async run(_args, flags, ctx) {
    const profile = ctx.globals.profile ?? DEV_PROFILE;
    ctx.config().assertChangeable(); // before starting anything: the profile is written at the end
    // SVC_DATA_DIR and SVC_STORE name the real daemon's store; the dev daemon must never write into it.
    const env = { ...ctx.io.env, SVC_DATA_DIR: undefined, SVC_STORE: undefined };
    const options = buildDaemonOptions(flags, env, join(userDataDir({ env }), 'dev'));
    // A person at a terminal reads requests as a dev server prints them; a pipe keeps the JSON.
    const logStream = logStreamFor(flags.logFormat ?? (ctx.io.stdout.isTTY ? 'pretty' : 'json'), ctx);
    options.logStream = logStream;
    // Before starting: a SIGTERM during start-up still closes cleanly. SIGHUP too, as the terminal
    // it runs in closes: a dev server stops with its terminal, and closes its store as it does.
    const signals = watchSignals(['SIGINT', 'SIGTERM', 'SIGHUP']);
    let daemon;
    try {
      daemon = await startAndAnnounce(options, ctx);
    } catch (err) {
      signals.dispose();
      throw err;
    }
    try {
      const { key, created } = await ensureDevTeam(daemon, ctx, profile, Boolean(flags.insecureStorage));
      announceJson(ctx, daemon, options, { team: DEV_TEAM, profile, key_prefix: keyPrefix(key), key_created: created });
      const p = profile === DEV_PROFILE ? '--profile dev' : `--profile ${profile}`;
      ctx.out.status(
        [
          '',
          `Team ${DEV_TEAM} is ready; profile ${profile} ${created ? 'now holds a new' : 'holds a working'} key (${keyPrefix(key)}…).`,
          `Data folder: ${options.dataDir}`,
          'In another terminal:',
          `  svc ${p} automations list`,
          `  svc ${p} events send --type demo.ping --data '{"hello":"world"}'`,
          'Ctrl-C stops the daemon.',
          '',
        ].join('\n'),
      );
      logStream?.showRequests();
    } catch (err) {
      signals.dispose();
      await daemon.close();
      throw err;
    }
    await serveUntilSignal(daemon, ctx, signals);
  },
});
