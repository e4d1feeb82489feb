// Follows a session by polling GET until it reaches a final status, printing each new message as
// it arrives. Polling (not a stream) because the API has none; the interval keeps well inside the
// default rate limit of 60 requests a minute.
import { type ApiClient, apiPath } from '../../shared/client.js';
import type { SessionDto, MessageDto } from '../../shared/schemas/sessions.js';
import { type Context } from '../context.js';
import { SessionEndedError } from '../errors.js';
import { type Spinner, startSpinner } from './spinner.js';
import { eventText, FINAL_STATUSES, messageText } from './transcript.js';

export type SessionWithMessages = SessionDto & { messages: MessageDto[] };

export const DEFAULT_INTERVAL_MS = 2000;

export interface WatchOptions {
  intervalMs: number;
  /** message ids already shown (e.g. before a follow-up was sent); they are not printed again */
  seen?: Iterable<string>;
  /** print the event payload before the first message (when the session has one) */
  showEvent?: boolean;
  /** for tests */
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function getSession(client: ApiClient, team: string, id: string): Promise<SessionWithMessages> {
  return client.get<SessionWithMessages>(apiPath`/teams/${team}/sessions/${id}`);
}

/**
 * Resolves with the session once it is `completed`; throws SessionEndedError when it ends
 * `failed` or `cancelled`. In JSON mode nothing is printed until the end, then the session.
 */
export async function watchSession(ctx: Context, client: ApiClient, team: string, id: string, opts: WatchOptions): Promise<SessionWithMessages> {
  const sleep = opts.sleep ?? defaultSleep;
  const seen = new Set(opts.seen ?? []);
  const tty = ctx.io.stdout.isTTY;
  let spinner: Spinner | undefined;
  const stopSpinner = () => {
    spinner?.stop();
    spinner = undefined;
  };
  let lastStatus: string | undefined;
  let eventShown = !opts.showEvent;
  try {
    for (;;) {
      const session = await getSession(client, team, id);
      const fresh = session.messages.filter((m) => !seen.has(m.id));
      if (!ctx.out.json && (fresh.length > 0 || (!eventShown && session.event))) {
        stopSpinner();
        if (!eventShown && session.event) ctx.out.line(eventText(session.event, ctx.out, tty));
        for (const m of fresh) ctx.out.line(messageText(m, ctx.out, tty));
      }
      eventShown = true;
      for (const m of fresh) seen.add(m.id);
      if (session.status !== lastStatus) {
        // On a terminal the spinner carries the status; in a log each change is a line of its own.
        if (!ctx.out.json && !tty) ctx.out.status(`status: ${session.status}`);
        lastStatus = session.status;
      }
      if (FINAL_STATUSES.has(session.status)) {
        stopSpinner();
        if (ctx.out.json) ctx.out.printJson(session);
        if (session.status === 'completed') {
          ctx.out.success(`Session ${id} completed.`);
          return session;
        }
        const why = session.last_error ? `: ${session.last_error}` : '';
        throw new SessionEndedError(`session ${id} ${session.status}${why}`, session.status as 'failed' | 'cancelled');
      }
      const waiting = `Session ${id} is ${session.status}…`;
      if (spinner) spinner.update(waiting);
      else if (!ctx.out.json) spinner = startSpinner(ctx.io, waiting);
      await sleep(opts.intervalMs);
    }
  } finally {
    stopSpinner();
  }
}
