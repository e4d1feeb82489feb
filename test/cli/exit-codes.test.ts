// Every exit code of CONTRACT §10, through the real bin/svc.js against a scripted HTTP server (for
// statuses a healthy daemon does not produce on demand), plus the error-to-code table itself.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiFailure, AuthRequiredError, CancelledError, ConflictError, ConnectionFailure, NothingDispatchedError, UsageError } from '../../cli/errors.js';
import { EXIT, exitCodeFor } from '../../cli/exit-codes.js';
import { type CliSandbox, envFor, makeSandbox, runSvc } from '../helpers/cli.js';

describe('exitCodeFor', () => {
  it('maps each error class and HTTP status to its exit code', () => {
    const cases: [unknown, number][] = [
      [new Error('bug'), 1],
      [new UsageError('x'), 2],
      [new CancelledError(), 2],
      [new AuthRequiredError('x'), 3],
      [new ApiFailure(401, 'UNAUTHORIZED', 'x'), 3],
      [new ApiFailure(404, 'NOT_FOUND', 'x'), 4],
      [new ApiFailure(400, 'VALIDATION_ERROR', 'x'), 5],
      [new ApiFailure(409, 'CONFLICT', 'x'), 5],
      [new ConflictError('x'), 5],
      [new ApiFailure(413, 'PAYLOAD_TOO_LARGE', 'x'), 5],
      [new ApiFailure(429, 'RATE_LIMITED', 'x'), 6],
      [new ApiFailure(500, 'INTERNAL_ERROR', 'x'), 7],
      [new ApiFailure(502, 'SKILL_SOURCE_UNAVAILABLE', 'x'), 7],
      [new ConnectionFailure('http://h', 'refused'), 7],
      [new ApiFailure(402, 'EXECUTION_DENIED', 'x'), 8],
      [new NothingDispatchedError(), 9],
      [new ApiFailure(418, 'HTTP_418', 'x'), 1],
    ];
    for (const [err, code] of cases) expect(exitCodeFor(err), String(err)).toBe(code);
    expect(EXIT.NOTHING_DISPATCHED).toBe(9);
  });
});

describe('exit codes of the real CLI', () => {
  let server: Server;
  let url: string;
  let reply: (res: ServerResponse, count: number) => void;
  let count = 0;
  let seen: { url?: string; authorization?: string } = {};
  let sb: CliSandbox;

  const envelope = (res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { code, message: `scripted ${code}` } }));
  };

  beforeAll(async () => {
    sb = await makeSandbox();
    server = createServer((req, res) => {
      seen = { url: req.url, authorization: req.headers.authorization };
      req.resume();
      req.on('end', () => reply(res, ++count));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await sb.cleanup();
  });
  beforeEach(() => {
    count = 0;
  });

  const api = (args: string[], extraEnv: Record<string, string> = {}) =>
    runSvc(sb, ['api', ...args], { env: { ...envFor({ url, key: 'svc_team_scripted', team: 'acme' }), ...extraEnv } });

  const statuses: [number, string, number][] = [
    [400, 'VALIDATION_ERROR', 5],
    [401, 'UNAUTHORIZED', 3],
    [402, 'EXECUTION_DENIED', 8],
    [404, 'NOT_FOUND', 4],
    [409, 'CONFLICT', 5],
    [413, 'PAYLOAD_TOO_LARGE', 5],
    [500, 'INTERNAL_ERROR', 7],
    [502, 'SESSION_START_FAILED', 7],
  ];
  for (const [status, code, exit] of statuses) {
    it(`HTTP ${status} ${code} exits ${exit} with the message on stderr and nothing on stdout`, async () => {
      reply = (res) => envelope(res, status, code);
      const r = await api(['-X', 'POST', '/teams/{team}/things', '-f', 'a=1']);
      expect(r.code, r.stderr).toBe(exit);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`scripted ${code}`);
      expect(r.stderr).toContain(`HTTP ${status}`);
    });
  }

  it('a 401 tells the user to run svc login, or to check the key from the environment', async () => {
    reply = (res) => envelope(res, 401, 'UNAUTHORIZED');
    const r = await api(['/teams/{team}/things']);
    expect(r.stderr).toContain('SVC_API_KEY');
    expect(r.stderr).not.toContain('svc_team_scripted');
  });

  it('takes SVC_API_KEY and SVC_TEAM with the newline a saved CI secret ends in; a key with a control character inside is a usage error, sent nowhere', async () => {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [] }));
    };
    const ok = await api(['/teams/{team}/things'], { SVC_API_KEY: 'svc_team_scripted\r\n', SVC_TEAM: 'acme\n' });
    expect([ok.code, ok.stderr]).toEqual([0, '']);
    expect(seen).toEqual({ url: '/api/v1/teams/acme/things', authorization: 'Bearer svc_team_scripted' });

    for (const [key, problem] of [['svc_team_a\u0001b', 'contains a control character'], ['svc_team_a\nb', 'contains whitespace']]) {
      const bad = await api(['/teams/{team}/things'], { SVC_API_KEY: key });
      expect([bad.code, bad.stdout, bad.stderr.trim()]).toEqual([2, '', `error: SVC_API_KEY ${problem}: it must hold exactly one key`]);
    }
    expect(count).toBe(1);
  });

  it('with nothing configured, every team command exits 3 for the missing URL; with a URL and key but no team, 2', async () => {
    for (const args of [['automations', 'list'], ['sessions', 'list'], ['env', 'list'], ['events', 'list'], ['skills', 'scan', 'https://github.com/a/b']]) {
      const r = await runSvc(sb, args);
      expect([r.code, r.stderr], args.join(' ')).toEqual([3, expect.stringContaining('no daemon URL')]);
    }
    const noTeam = await runSvc(sb, ['sessions', 'list'], { env: { SVC_BASE_URL: url, SVC_API_KEY: 'svc_team_x' } });
    expect([noTeam.code, noTeam.stderr]).toEqual([2, expect.stringContaining('no team')]);
  });

  it('says where to look: a missing team names its sources, a 500 points at the daemon\'s log', async () => {
    reply = (res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: 'team not found' } }));
    };
    const missing = await api(['/teams/{team}/things']);
    expect([missing.code, missing.stderr]).toEqual([4, "error: team not found (NOT_FOUND, HTTP 404)\nThe team comes from --team, SVC_TEAM or the profile (`svc auth status` shows which): check its slug, and that the key is that team's.\n"]);
    reply = (res) => envelope(res, 500, 'INTERNAL_ERROR');
    const failed = await api(['/teams/{team}/things']);
    expect(failed.stderr).toContain('The daemon failed, not the request: its log has the details');
  });

  it('a project key in SVC_API_KEY on a team command says so, and a refused key from the environment is blamed there, not on login', async () => {
    count = 0;
    const project = await runSvc(sb, ['automations', 'list'], { env: envFor({ url, key: 'svc_proj_scripted', team: 'acme' }) });
    expect([project.code, project.stderr.trim()]).toEqual([3, "error: SVC_API_KEY holds a project key (svc_proj_…), and this command needs a team key: set SVC_API_KEY to one, or unset it to use profile 'default'"]);
    expect(count).toBe(0);

    reply = (res) => envelope(res, 401, 'UNAUTHORIZED');
    const status = await runSvc(sb, ['auth', 'status', '--check'], { env: envFor({ url, key: 'svc_team_scripted', team: 'acme' }) });
    expect([status.code, status.stderr.trim().split('\n').at(-1)]).toEqual([3, 'error: the key in SVC_API_KEY was refused by the daemon: check that variable']);
  });

  it('a 401 to a stored key says to log in again, though SVC_ADMIN_TOKEN is set for another kind of route', async () => {
    await mkdir(sb.configDir, { recursive: true, mode: 0o700 });
    await writeFile(join(sb.configDir, 'config.json'), JSON.stringify({ profiles: { default: { url, team: 'acme' } } }));
    await writeFile(join(sb.configDir, 'credentials.json'), JSON.stringify({ version: 1, keys: { default: 'svc_team_stored' } }), { mode: 0o600 });
    reply = (res) => envelope(res, 401, 'UNAUTHORIZED');
    const r = await runSvc(sb, ['automations', 'list'], { env: { SVC_ADMIN_TOKEN: 'svc_admin_x' } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('Run `svc login`');
    expect(r.stderr).not.toContain('from the environment');
    const fromEnv = await runSvc(sb, ['automations', 'list'], { env: { SVC_API_KEY: 'svc_team_env' } });
    expect(fromEnv.stderr).toContain('The key from the environment was refused: check SVC_API_KEY.');
    // The other tests share this sandbox and expect no stored profile.
    await rm(join(sb.configDir, 'config.json'));
    await rm(join(sb.configDir, 'credentials.json'));
  });

  it('a 429 exits 6 at once (CONTRACT §10), naming the wait and --wait', async () => {
    reply = (res) => envelope(res, 429, 'RATE_LIMITED', { 'retry-after': '30' });
    for (const args of [['/teams/{team}/things'], ['--no-wait', '/teams/{team}/things']]) {
      count = 0;
      const r = await api(args);
      expect(r.code).toBe(6);
      expect(count).toBe(1);
    }
  });

  it('with --wait a 429 is waited out and retried once, then succeeds with exit 0', async () => {
    reply = (res, n) => {
      if (n === 1) envelope(res, 429, 'RATE_LIMITED', { 'retry-after': '0' });
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data: { ok: true } }));
      }
    };
    const r = await api(['--wait', '/teams/{team}/things']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true });
    expect(r.stderr).toContain('Rate limited');
    expect(count).toBe(2);
  });

  it('with --wait, a second 429 exits 6, without suggesting the --wait it was given', async () => {
    reply = (res) => envelope(res, 429, 'RATE_LIMITED', { 'retry-after': '0' });
    const r = await api(['--wait', '/teams/{team}/things']);
    expect(r.code).toBe(6);
    expect(count).toBe(2);
    expect(r.stderr).toContain('Rate limited again after waiting for the window to reset');
    expect(r.stderr).not.toContain('pass --wait');
  });

  it('a GET answered 5xx is tried three times before exit 7; a POST once', async () => {
    reply = (res) => envelope(res, 503, 'INTERNAL_ERROR');
    expect((await api(['/teams/{team}/things'])).code).toBe(7);
    expect(count).toBe(3);
    count = 0;
    expect((await api(['-X', 'POST', '/teams/{team}/things'])).code).toBe(7);
    expect(count).toBe(1);
  });

  it('a daemon that never answers exits 7 once SVC_TIMEOUT passes, after one try; a bad SVC_TIMEOUT is a usage error', async () => {
    reply = () => undefined;
    const r = await api(['/teams/{team}/things'], { SVC_TIMEOUT: '0.5' });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('no answer within 0.5 s');
    expect(count).toBe(1);
    server.closeAllConnections();
    const bad = await api(['/teams/{team}/things'], { SVC_TIMEOUT: 'soon' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SVC_TIMEOUT must be a number of seconds');
    const zero = await api(['/teams/{team}/things'], { SVC_TIMEOUT: '0' });
    expect([zero.code, zero.stderr.trim()]).toEqual([2, "error: SVC_TIMEOUT must be a number of seconds above 0, at most 86400 (got '0')"]);
  });

  it('a path with spaces or a newline reaches the daemon percent-encoded', async () => {
    reply = (res) => envelope(res, 404, 'NOT_FOUND');
    const r = await api(['/teams/{team}/env-vars/bad name\nhere']);
    expect(r.code).toBe(4);
    expect(count).toBe(1);
  });

  it('hostile input files are refused (5, as invalid input) naming the file, and nothing is sent: a YAML alias bomb, JSON nested 50,000 deep', async () => {
    const dir = sb.home;
    const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    await writeFile(join(dir, 'bomb.yaml'), `${laughs.join('\n')}\n`);
    const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    await writeFile(join(dir, 'deep.json'), deep);
    await writeFile(join(dir, 'deep.yaml'), deep);
    const env = envFor({ url, key: 'svc_team_scripted', team: 'acme' });
    const runs: [string[], string][] = [
      [['automations', 'create', '-f', join(dir, 'bomb.yaml')], 'bomb.yaml'],
      [['automations', 'apply', '-f', join(dir, 'bomb.yaml')], 'bomb.yaml'],
      [['automations', 'apply', '-f', join(dir, 'deep.yaml')], 'deep.yaml'],
      [['events', 'send', '--type', 'x', '--data', `@${join(dir, 'deep.json')}`], 'deep.json'],
      [['api', '/teams/{team}/automations', '--input', join(dir, 'deep.json')], 'deep.json'],
    ];
    for (const [args, file] of runs) {
      const r = await runSvc(sb, args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(5);
      expect(r.stderr).toContain(file);
      expect(r.stderr).not.toContain('Maximum call stack');
    }
    expect(count).toBe(0);
  });

  it('an empty --url or --team is a usage error, not a silent fall-back to the profile', async () => {
    for (const flag of ['--url', '--team']) {
      const r = await runSvc(sb, ['automations', 'list', flag, ''], { env: envFor({ url, key: 'svc_team_scripted', team: 'acme' }) });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`${flag} must not be empty`);
    }
    expect(count).toBe(0);
  });

  it('an unreachable daemon exits 7 and says so', async () => {
    const r = await runSvc(sb, ['api', '/health'], { env: { SVC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain('cannot reach http://127.0.0.1:9');
  });

  it('no key at all exits 3 without sending anything', async () => {
    reply = (res) => envelope(res, 500, 'INTERNAL_ERROR');
    const r = await runSvc(sb, ['api', '/teams/acme/things'], { env: { SVC_BASE_URL: url } });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('svc login');
    expect(count).toBe(0);
  });

  it('success prints only the JSON of data on stdout', async () => {
    reply = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [{ id: 1 }], next_cursor: 'c' }));
    };
    const r = await api(['/teams/{team}/things', '--json']);
    expect(r.code).toBe(0);
    expect(r.json()).toEqual([{ id: 1 }]);
    expect(r.stderr).toContain('cursor=c');
  });
});
