// How a failed command reads on stderr. Messages come from the daemon's envelope or our own
// errors; neither ever carries a key or a secret value.
import {
  ApiFailure,
  AuthRequiredError,
  CancelledError,
  ConnectionFailure,
  NothingDispatchedError,
  UsageError,
} from './errors.js';
import { type Writer } from './io.js';
import { inert } from './terminal-text.js';

export function describeError(err: unknown, env: NodeJS.ProcessEnv = process.env): string {
  if (err instanceof UsageError) return err.reported ? '' : `error: ${err.message}\n`;
  if (err instanceof CancelledError) return 'Cancelled.\n';
  if (err instanceof AuthRequiredError || err instanceof ConnectionFailure) return `error: ${err.message}\n`;
  if (err instanceof ApiFailure) {
    // (an answer outside the envelope has no code of the API's: its message names the status)
    let text = err.code === `HTTP_${err.status}` ? `error: ${err.message}\n` : `error: ${err.message} (${err.code}, HTTP ${err.status})\n`;
    if (err.status === 401 && !err.keySent) text += 'No key was sent (--as none): this route needs one.\n';
    else if (err.status === 401) {
      const fromEnv = err.keyFrom === undefined ? (env.SVC_API_KEY || env.SVC_ADMIN_TOKEN ? 'SVC_API_KEY / SVC_ADMIN_TOKEN' : null) : err.keyFrom;
      text += fromEnv
        ? `The key from the environment was refused: check ${fromEnv}.\n`
        : 'Run `svc login` (with --profile NAME for another profile) to store a working key.\n';
    }
    // (An admin route names its team as an argument: the hint is for team routes.)
    if (err.status === 404 && err.message === 'team not found' && !err.path?.startsWith('/admin/')) {
      text += 'The team comes from --team, SVC_TEAM or the profile (`svc auth status` shows which): check its slug, and that the key is that team\'s.\n';
    }
    const param = err.status === 400 ? /^params\.(\w+) /.exec(err.message)?.[1] : undefined;
    if (param && PATH_PARAMS[param]) text += `(${param} is ${PATH_PARAMS[param]} given on the command line.)\n`;
    if (err.status === 429) {
      text += err.waitedForRateLimit
        ? 'Rate limited again after waiting for the window to reset: the key is busy elsewhere too; try again later.\n'
        : 'Rate limited: try again after the window resets, or pass --wait to wait for it and retry once.\n';
    }
    if (err.status === 500) text += "The daemon failed, not the request: its log has the details, under the request id if the message gives one.\n";
    return text;
  }
  if (err instanceof NothingDispatchedError) return `${err.message}\n`;
  const message = err instanceof Error ? err.message : String(err);
  const stack = env.SVC_DEBUG && err instanceof Error && err.stack ? `${err.stack}\n` : '';
  return `error: ${message}\n${stack}`;
}

/** The daemon names what a command put in its path by the route's names: what each stands for. */
const PATH_PARAMS: Record<string, string> = {
  sessionId: 'the session id (a UUID: `svc sessions list` shows them)',
  automationId: 'the automation id',
  keyId: 'the key id (a UUID: `svc admin keys list TEAM` shows them)',
  name: 'the variable name',
  teamSlug: 'the team slug',
  slug: 'the team slug',
  id: 'the project (or team) id',
  envId: 'the environment id',
  scheduleId: 'the schedule id',
};

export function reportError(err: unknown, stderr?: Writer): void {
  // A message may quote what was sent (a name, a path): printed inert, as command output is.
  const text = inert(describeError(err));
  if (!text) return;
  if (stderr) stderr.write(text);
  else process.stderr.write(text);
}
