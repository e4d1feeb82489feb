// The webhook runner: POSTs each turn as JSON to a URL, signed with HMAC-SHA256 of the raw body
// in `X-Svc-Signature: sha256=HEX`. A 2xx accepts the turn; a 2xx body `{"message": "..."}`
// also completes it with that answer, otherwise the session stays running (the remote runtime
// owns it from there).
import { createHmac } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { undici } from '../undici.js';
import { RunnerRefused, type HandOver, type Runner, type Turn } from './runner.js';

export const SIGNATURE_HEADER = 'x-svc-signature';
/** a hand-over waits at most this long for the webhook's answer */
export const MAX_HANDOVER_MS = 30_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface WebhookRunnerOptions {
  url: string;
  /** the HMAC key; resolved once (it may be read from or generated into the data folder) */
  secret: () => Promise<string>;
  timeoutMs: number;
}

export function sign(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
}

export class WebhookRunner implements Runner {
  readonly kind = 'webhook' as const;
  readonly reportsOutcomes = false;
  readonly turnsOutliveDaemon = true;
  private secret: Promise<string> | undefined;
  private stopping = false;

  constructor(private readonly opts: WebhookRunnerOptions) {
    try {
      const u = new URL(opts.url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      throw new Error('the webhook runner needs an http(s) URL (--runner-url)');
    }
  }

  init(): Promise<void> {
    return this.key().then(() => undefined);
  }

  async take(turn: Turn): Promise<HandOver> {
    if (this.stopping) throw new RunnerRefused('the daemon is shutting down');
    const body = JSON.stringify(turn);
    const timeout = Math.min(this.opts.timeoutMs, MAX_HANDOVER_MS);
    let res: Dispatcher.ResponseData;
    try {
      res = await undici().request(this.opts.url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'svc-runner', [SIGNATURE_HEADER]: sign(await this.key(), body) },
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: AbortSignal.timeout(timeout),
      });
    } catch (err) {
      // The URL may carry a token, so the reason names the failure, not the address.
      const e = err as NodeJS.ErrnoException;
      if (e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT') {
        throw new RunnerRefused(`the runner webhook did not answer within ${timeout} ms`);
      }
      throw new RunnerRefused(`the runner webhook could not be reached (${e.code ?? e.name})`);
    }
    if (res.statusCode < 200 || res.statusCode > 299) {
      await res.body.dump().catch(() => undefined);
      throw new RunnerRefused(`the runner webhook answered HTTP ${res.statusCode}`);
    }
    // The runtime took the turn (2xx). An answer that cannot be kept still ends the turn, saying
    // so: left running, the session would wait for an answer that already came.
    const answer = await readBounded(res.body).catch((err: NodeJS.ErrnoException) => ({ lost: `could not be read (${err.code ?? err.name})` }));
    if (typeof answer !== 'string') return { state: 'completed', message: `[the runner webhook's answer ${answer.lost}; it was not kept]` };
    const message = messageOf(answer);
    return message === undefined ? { state: 'running' } : { state: 'completed', message };
  }

  discard(): number {
    return 0;
  }

  async stop(): Promise<void> {
    this.stopping = true;
  }

  private key(): Promise<string> {
    this.secret ??= this.opts.secret();
    return this.secret;
  }
}

/** The answer's text, or why it was not kept. */
async function readBounded(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string | { lost: string }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      return { lost: `was larger than ${MAX_RESPONSE_BYTES} bytes` };
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** `{"message": "..."}` completes the turn; any other body leaves it running. */
function messageOf(text: string): string | undefined {
  if (!text.trim()) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { message?: unknown }).message === 'string') {
      return (parsed as { message: string }).message;
    }
  } catch {
    // not JSON: an acknowledgement without an answer
  }
  return undefined;
}
