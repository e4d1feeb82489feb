import { defineCommand } from '../../command.js';
import { announceJson, buildDaemonOptions, DAEMON_OPTIONS, type DaemonFlags, logStreamFor, serveUntilSignal, startAndAnnounce, watchSignals } from '../../daemon-launch.js';
import { userDataDir } from '../../paths.js';

export const command = defineCommand<Record<string, never>, DaemonFlags>({
  name: 'daemon start',
  description: 'Run the daemon in the foreground',
  options: DAEMON_OPTIONS,
  examples: [
    { description: 'Run on the default port with the default data folder', command: 'svc daemon start' },
    { description: 'Run on a free port with a throw-away data folder (the first stdout line says which port)', command: 'svc daemon start --port 0 --data "$(mktemp -d)"' },
    { description: 'Print where it listens as one JSON line, for a script to read', command: "svc daemon start --port 0 --json | head -1 | jq -r .url" },
    { description: 'Execute sessions with a local command, each turn as JSON on its stdin', command: "svc daemon start --runner exec --runner-command './agent.sh' --runner-timeout 120" },
  ],
  async run(_args, flags, ctx) {
    const options = buildDaemonOptions(flags, ctx.io.env, userDataDir({ env: ctx.io.env }));
    // A service's log is read by machines: JSON unless asked otherwise.
    const logStream = logStreamFor(flags.logFormat ?? 'json', ctx);
    logStream?.showRequests();
    options.logStream = logStream;
    const signals = watchSignals(); // before starting: a SIGTERM during start-up still closes cleanly
    let daemon;
    try {
      daemon = await startAndAnnounce(options, ctx);
    } catch (err) {
      signals.dispose();
      throw err;
    }
    announceJson(ctx, daemon, options);
    await serveUntilSignal(daemon, ctx, signals);
  },
});
