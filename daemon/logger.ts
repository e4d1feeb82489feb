// The daemon's one logger (pino, which Fastify uses too). Structured JSON lines on stderr so
// stdout carries only the "listening" line a script waits for.
import type { FastifyRequest } from 'fastify';
import { pino, type Logger } from 'pino';
import { maskKeys } from './mask-keys.js';

export type { Logger };

/** `stream`: where the JSON lines go instead of stderr (written to synchronously, line by line). */
export function createLogger(level: string, stream?: { write(line: string): void }): Logger {
  const logger = pino(
    {
      level,
      // Keys and tokens travel in these headers; request bodies (env var values) are never logged.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
    },
    stream ?? logDestination(2),
  );
  // Fastify takes a given logger's `serializers` over its own: the request line it logs is
  // Fastify's, with any key a caller put in the URL or the Host header masked.
  return Object.assign(logger, {
    serializers: { req: (req: FastifyRequest) => ({ ...fastifyRequestLine(req), url: maskKeys(req.url), host: req.host === undefined ? undefined : maskKeys(req.host) }) },
  });
}

/**
 * Lines written to `fd` through pino's own destination (sonic-boom), which stops writing there on
 * EPIPE only. Any other write error that lasts (EIO once the terminal it wrote to has closed,
 * EBADF) went on as an uncaught exception, and at exit sonic-boom's flushSync retries such a
 * write forever, blocking the thread: the process hung, deaf even to SIGTERM. Logging to `fd`
 * stops instead, and the daemon goes on without it.
 */
export function logDestination(fd: number): ReturnType<typeof pino.destination> {
  const dest = pino.destination({ fd, sync: false });
  dest.on('error', () => {
    const nothing = () => undefined;
    Object.assign(dest, { write: nothing, flush: nothing, flushSync: nothing, end: nothing, destroy: nothing });
  });
  return dest;
}

/** What Fastify logs of a request by default (lib/logger-pino.js). */
function fastifyRequestLine(req: FastifyRequest) {
  return { method: req.method, url: req.url, host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}
