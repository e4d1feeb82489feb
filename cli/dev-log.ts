// `--log-format pretty`: the daemon's pino lines read as a dev server's on a terminal, one short
// line per request and one per warning or error of the daemon. pino stays the only logger: this
// is the stream its JSON lines are written to, so redaction and key masking have already run.
import type { ChalkInstance } from 'chalk';
import { inert } from './terminal-text.js';

export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The fields of a pino line the readable form uses (Fastify's request lines, the daemon's own). */
export interface LogRecord {
  level?: number;
  time?: number;
  msg?: string;
  reqId?: string;
  req?: { method?: string; url?: string };
  res?: { statusCode?: number };
  responseTime?: number;
  component?: string;
  err?: { message?: string };
  reason?: string;
}

const WARN = 40;
const ERROR = 50;
const INFO = 30;
const LEVEL_NAMES: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** Requests seen but not yet completed, at most: a client that never finishes must not grow the map. */
const MAX_OPEN_REQUESTS = 10_000;

export interface DevLogFormatter {
  /** The readable line for one record (no newline), or null when it is left out. */
  format(record: LogRecord): string | null;
}

/**
 * Fastify logs a request twice: "incoming request" (method, url) and "request completed" (status,
 * time), joined by reqId. The readable line is printed at completion, with what the first said.
 */
export function createDevLogFormatter(options: { chalk: ChalkInstance; clock?: (time: number) => string }): DevLogFormatter {
  const c = options.chalk;
  const clock = options.clock ?? localTime;
  const open = new Map<string, { method: string; url: string }>();
  return {
    format(r) {
      const level = r.level ?? INFO;
      if (r.req && r.reqId !== undefined && r.res === undefined && level < WARN) {
        if (open.size >= MAX_OPEN_REQUESTS) open.delete(open.keys().next().value as string);
        open.set(r.reqId, { method: r.req.method ?? '?', url: r.req.url ?? '?' });
        return null;
      }
      const time = c.dim(clock(r.time ?? Date.now()));
      if (r.res && typeof r.res.statusCode === 'number' && r.reqId !== undefined) {
        const request = open.get(r.reqId) ?? { method: '?', url: '?' };
        open.delete(r.reqId);
        const status = r.res.statusCode;
        // A health check every few seconds from a probe would bury the requests a person makes.
        if (status === 200 && request.method === 'GET' && request.url.split('?')[0].endsWith('/health')) return null;
        const ms = `${Math.round(r.responseTime ?? 0)}ms`;
        const what = `${inert(request.method)} ${inert(request.url)}`;
        if (status >= 500) return `${time} ${c.red(`${what} ${c.bold(status)}`)} ${ms}`;
        if (status >= 400) return `${time} ${c.yellow(`${what} ${status}`)} ${ms}`;
        return `${time} ${what} ${c.green(status)} ${ms}`;
      }
      // The daemon's start-up and housekeeping notes (store opened, snapshot written) are for the
      // JSON log; a person asked for debug or trace sees those levels, dimmed.
      if (level === INFO) return null;
      const name = LEVEL_NAMES[level] ?? String(level);
      const detail = r.err?.message ?? r.reason;
      const text = `${name} ${r.component ? `${r.component}: ` : ''}${r.msg ?? ''}${detail ? ` (${detail})` : ''}`;
      const shown = inert(text.replace(/\s*\n\s*/g, ' '));
      if (level >= ERROR) return `${time} ${c.red(shown)}`;
      if (level >= WARN) return `${time} ${c.yellow(shown)}`;
      return `${time} ${c.dim(shown)}`;
    },
  };
}

/** HH:MM:SS in the local time zone, as a person reading the terminal reads the clock. */
function localTime(time: number): string {
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

export interface DevLogStream {
  /** what pino writes to: one JSON line per call */
  write(line: string): void;
  /**
   * Request lines are left out until this is called: the requests before it are the command's
   * own set-up (svc dev creating its team and key), whose 409 on a restart is no one's error.
   */
  showRequests(): void;
}

export function createDevLogStream(options: { write: (text: string) => void; chalk: ChalkInstance; clock?: (time: number) => string }): DevLogStream {
  const formatter = createDevLogFormatter(options);
  let requests = false;
  return {
    write(line) {
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        options.write(inert(line.trimEnd()) + '\n');
        return;
      }
      const text = formatter.format(record);
      if (text === null) return;
      if (!requests && record.res !== undefined && (record.level ?? INFO) < WARN) return;
      options.write(`${text}\n`);
    },
    showRequests() {
      requests = true;
    },
  };
}
