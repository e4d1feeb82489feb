// The API client's HTTP transport: Node's own http module (https for https URLs). Node keeps it
// in its start-up snapshot, so a CLI run loads no HTTP library: an HTTP library's client and its
// parser were most of the start-up cost of a command such as `svc events send`.
import type { Agent, ClientRequest, IncomingHttpHeaders, RequestOptions } from 'node:http';
import { createRequire } from 'node:module';

// Required, not imported: on Node 26 (not 20), importing node:http builds an ES module of its
// exports, and reading them all loads Node's own undici for the lazy WebSocket, CloseEvent and
// MessageEvent.
const http: typeof import('node:http') = createRequire(import.meta.url)('node:http');

export interface TransportRequest {
  /** scheme, host and port */
  origin: string;
  /** path and query */
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** how long the connection may stay silent: before the answer starts, and within it */
  timeoutMs: number;
}

export interface TransportAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  text: string;
}

/** Why a request got no whole answer: `code` as Node names it, or TIMEOUT. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * An idle kept-alive connection is closed after this long, well before a server closes it (the
 * daemon waits 72 s), so a request is never written to a connection the server is closing.
 */
const IDLE_CONNECTION_MS = 4_000;

export interface Transport {
  send(request: TransportRequest): Promise<TransportAnswer>;
  /** closes the kept-alive connections (a CLI run need not: idle ones do not keep it alive) */
  close(): void;
}

export function createTransport(): Transport {
  const agents = new Map<string, Promise<{ request: typeof http.request; agent: Agent }>>();
  const agentFor = (protocol: string) => {
    let made = agents.get(protocol);
    if (!made) {
      // https (and TLS with it) is loaded only for an https URL.
      made = (protocol === 'https:' ? import('node:https').then((m) => m.default) : Promise.resolve(http)).then((lib) => ({
        request: lib.request,
        agent: keptAliveAgent(lib.Agent),
      }));
      agents.set(protocol, made);
    }
    return made;
  };

  return {
    async send(req) {
      const url = new URL(req.origin);
      const { request, agent } = await agentFor(url.protocol);
      const options: RequestOptions = {
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port,
        path: req.path,
        method: req.method,
        headers: req.headers,
        agent,
        // from connecting to the answer's last byte, renewed by every byte that comes
        timeout: req.timeoutMs,
      };
      return new Promise<TransportAnswer>((resolve, reject) => {
        let sent: ClientRequest;
        try {
          sent = request(options, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', (err) => reject(transportError(err)));
            res.on('end', () => {
              // An answer cut short ends too: only a complete one is an answer.
              if (!res.complete) return reject(new TransportError('ECONNRESET', 'the answer was cut short'));
              resolve({ status: res.statusCode ?? 0, headers: flatHeaders(res.headers), text: Buffer.concat(chunks).toString('utf8') });
            });
          });
        } catch (err) {
          // Node refuses a request it cannot write (a header value with a line break) before sending it.
          return reject(transportError(err));
        }
        sent.on('timeout', () => sent.destroy(new TransportError('TIMEOUT', `no answer within ${req.timeoutMs / 1000} s`)));
        sent.on('error', (err) => reject(transportError(err)));
        sent.end(req.body);
      });
    },
    close() {
      for (const made of agents.values()) void made.then(({ agent }) => agent.destroy());
      agents.clear();
    },
  };
}

/** An agent whose idle connections close after IDLE_CONNECTION_MS (the agent destroys an idle one that times out). */
function keptAliveAgent(AgentClass: typeof http.Agent): Agent {
  const agent = new AgentClass({ keepAlive: true });
  // After the agent's own listener, which clears the answered request's timeout.
  agent.on('free', (socket) => socket.setTimeout(IDLE_CONNECTION_MS));
  return agent;
}

function transportError(err: unknown): TransportError {
  if (err instanceof TransportError) return err;
  const e = err as { code?: string; message?: string; errors?: { code?: string }[] };
  // Connecting to a name with several addresses fails with every address's error in one.
  const code = e?.code ?? e?.errors?.[0]?.code;
  return new TransportError(code, e?.message ?? String(err));
}

function flatHeaders(raw: IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(raw)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
