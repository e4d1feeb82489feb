import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { createDevLogFormatter, createDevLogStream, type LogRecord } from '../../cli/dev-log.js';

const chalk = new Chalk({ level: 1 });
const clock = () => '14:02:11';
const at = 1_795_877_250_000;

/** Fastify's two lines of one request, as pino writes them. */
function request(reqId: string, method: string, url: string, statusCode: number, responseTime = 3.2): LogRecord[] {
  return [
    { level: 30, time: at, reqId, req: { method, url }, msg: 'incoming request' },
    { level: 30, time: at, reqId, res: { statusCode }, responseTime, msg: 'request completed' },
  ];
}

function lines(records: LogRecord[]): string[] {
  const f = createDevLogFormatter({ chalk, clock });
  return records.map((r) => f.format(r)).filter((l): l is string => l !== null);
}

describe('the dev log formatter', () => {
  it('prints one line per request at completion: time, method, path, status and ms', () => {
    expect(lines(request('r1', 'POST', '/api/v1/teams/acme/webhooks/events', 200))).toEqual([
      '\u001b[2m14:02:11\u001b[22m POST /api/v1/teams/acme/webhooks/events \u001b[32m200\u001b[39m 3ms',
    ]);
  });

  it('colours 4xx yellow and 5xx red', () => {
    expect(lines(request('r1', 'GET', '/api/v1/nothing', 404, 1))).toEqual(['\u001b[2m14:02:11\u001b[22m \u001b[33mGET /api/v1/nothing 404\u001b[39m 1ms']);
    expect(lines(request('r2', 'POST', '/api/v1/teams/acme/automations', 500, 12.6))).toEqual([
      '\u001b[2m14:02:11\u001b[22m \u001b[31mPOST /api/v1/teams/acme/automations \u001b[1m500\u001b[22m\u001b[39m 13ms',
    ]);
  });

  it('leaves out health checks that answered 200, but not a failing one', () => {
    expect(lines([...request('h1', 'GET', '/api/v1/health', 200), ...request('h2', 'GET', '/api/v1/health?verbose=1', 200)])).toEqual([]);
    expect(lines(request('h3', 'GET', '/api/v1/health', 503)).map((l) => l.replace(/\u001b\[\d+m/g, ''))).toEqual(['14:02:11 GET /api/v1/health 503 3ms']);
  });

  it('joins the two lines of each request by id, however they interleave', () => {
    const [aIn, aDone] = request('a', 'GET', '/api/v1/a', 200);
    const [bIn, bDone] = request('b', 'GET', '/api/v1/b', 201);
    expect(lines([aIn, bIn, bDone, aDone]).map((l) => l.replace(/\u001b\[\d+m/g, ''))).toEqual(['14:02:11 GET /api/v1/b 201 3ms', '14:02:11 GET /api/v1/a 200 3ms']);
  });

  it('gives a warning or an error of the daemon one line with its component and cause; drops info notes', () => {
    expect(
      lines([
        { level: 30, time: at, component: 'store', msg: 'store opened' },
        { level: 40, time: at, component: 'scheduler', msg: 'a slot could not be claimed', err: { message: 'lease lost' } },
        { level: 50, time: at, component: 'sessions', msg: 'could not record this daemon\'s claim on its sessions', err: { message: 'disk full\nat line 2' } },
      ]),
    ).toEqual([
      '\u001b[2m14:02:11\u001b[22m \u001b[33mwarn scheduler: a slot could not be claimed (lease lost)\u001b[39m',
      '\u001b[2m14:02:11\u001b[22m \u001b[31merror sessions: could not record this daemon\'s claim on its sessions (disk full at line 2)\u001b[39m',
    ]);
  });

  it('shows text from requests inert: no escape sequence reaches the terminal', () => {
    expect(lines(request('e', 'GET', '/api/v1/x\u001b[2J', 404))[0]).toContain('/api/v1/x\\x1b[2J');
  });
});

describe('the dev log stream', () => {
  it('holds request lines back until showRequests (the command\'s own set-up calls), never warnings', () => {
    let out = '';
    const stream = createDevLogStream({ write: (t) => void (out += t), chalk: new Chalk({ level: 0 }), clock });
    const write = (r: LogRecord) => stream.write(`${JSON.stringify(r)}\n`);
    request('setup', 'POST', '/api/v1/admin/teams', 409).forEach(write);
    write({ level: 40, time: at, msg: 'request refused upstream', reason: 'GitHub answered 502' });
    stream.showRequests();
    request('user', 'GET', '/api/v1/teams/dev/automations', 200).forEach(write);
    expect(out).toBe('14:02:11 warn request refused upstream (GitHub answered 502)\n14:02:11 GET /api/v1/teams/dev/automations 200 3ms\n');
  });
});
