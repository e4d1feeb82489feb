// The daemon's one logger (pino, which Fastify uses too). Structured JSON lines on stderr so
// stdout carries only the "listening" line a script waits for.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino(
    {
      level,
      // Keys and tokens travel in these headers; request bodies (env var values) are never logged.
      redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'], censor: '[redacted]' },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
