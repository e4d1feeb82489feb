// What README.md and docs/cli.md promise, run as a new user would: the README quick start through
// the real `svc dev` and the real binary, and the places where a first run found the CLI
// disagreeing with its docs.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runSvc, useSandboxedProcesses } from '../helpers/cli.js';
import { testStoreArgs } from '../helpers/test-store.js';

const cli = useSandboxedProcesses();
const servers: Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((res) => s.close(() => res()));
});

describe('README quick start', () => {
  it('svc dev, then the example commands through profile dev, then Ctrl-C exits 0', async () => {
    const dev = cli.spawn(['dev', '--port', '0'], { env: { SVC_LOG_LEVEL: 'warn' } });
    await dev.waitForLine(/^svc daemon listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    await dev.waitForStderr(/Ctrl-C stops the daemon\./);
    expect(dev.stderr()).toContain('svc --profile dev automations list');

    const create = await runSvc(cli.sb, [
      '--profile', 'dev', 'automations', 'create', '--name', 'nightly', '--prompt', 'Summarise the day',
      '--cron', '0 18 * * 1-5', '--tz', 'Europe/Berlin',
    ]);
    expect(create.code, create.stderr).toBe(0);
    expect(create.stderr).toMatch(/^Created automation "nightly" \([0-9a-f-]{36}\)\.$/m);
    expect(create.stdout).toContain('cron "0 18 * * 1-5" in Europe/Berlin');

    const send = await runSvc(cli.sb, ['--profile', 'dev', 'events', 'send', '--type', 'deploy.finished', '--data', '{"env":"prod"}']);
    expect(send.code, send.stderr).toBe(0);
    expect(send.stdout).toMatch(/^Nothing dispatched: no active automation listens to provider "generic" event "deploy.finished"$/m);

    const list = await runSvc(cli.sb, ['--profile', 'dev', 'sessions', 'list']);
    expect(list.code, list.stderr).toBe(0);

    // The GitHub webhook tried offline: a connection, an automation on it, a signed sample delivery.
    const connection = await runSvc(cli.sb, ['--profile', 'dev', 'connections', 'create', '--provider', 'github', '--name', 'acme/web', '--json']);
    expect(connection.code, connection.stderr).toBe(0);
    const id = connection.json<{ id: string }>().id;
    const review = await runSvc(cli.sb, [
      '--profile', 'dev', 'automations', 'create', '--name', 'PR review', '--prompt', 'Review the pull request',
      '--provider', 'github', '--connection', id, '--event-type', 'pull_request.opened', '--filter', '$.data.pull_request.base.ref equals main',
    ]);
    expect(review.code, review.stderr).toBe(0);
    const delivered = await runSvc(cli.sb, ['--profile', 'dev', 'connections', 'test', id, '--event', 'pull_request.opened', '--set', 'pull_request.base.ref=main']);
    expect(delivered.code, delivered.stderr).toBe(0);
    expect(delivered.stderr).toMatch(/Delivered github pull_request\.opened \S+ to connection .*: dispatched to 1 automation/);

    dev.child.kill('SIGINT');
    expect((await dev.exited).code).toBe(0);
  });
});

describe('help matches docs/cli.md', () => {
  it('svc skills scan --help states the --ref default (main) once', async () => {
    const r = await runSvc(cli.sb, ['skills', 'scan', '--help']);
    expect(r.code).toBe(0);
    const refLine = r.stdout.split('\n').find((l) => l.trimStart().startsWith('--ref'))!;
    expect(refLine).toBeDefined();
    expect(refLine.match(/default/g)).toHaveLength(1);
    expect(refLine).toMatch(/main/);
  });

  it('svc automations update --help does not claim --tz defaults to UTC (a replaced schedule keeps its zone)', async () => {
    const r = await runSvc(cli.sb, ['automations', 'update', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain('--tz <zone> IANA time zone of --cron and --at (default UTC; update: a replaced schedule keeps its zone)');
  });

  it('svc ui is documented and refuses without a terminal (exit 2)', async () => {
    const r = await runSvc(cli.sb, ['ui']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/need a terminal/);
  });
});

describe('svc daemon start on a taken port', () => {
  it('exits 1 (docs/cli.md: cannot start) with a message that says what to do, not a bare EADDRINUSE', async () => {
    const blocker = createServer();
    servers.push(blocker);
    await new Promise<void>((res) => blocker.listen(0, '127.0.0.1', () => res()));
    const port = (blocker.address() as AddressInfo).port;

    const dir = join(cli.sb.home, 'd');
    const store = await testStoreArgs(dir);
    const r = await runSvc(cli.sb, ['daemon', 'start', '--port', String(port), '--data', dir, ...store], {
      env: { SVC_LOG_LEVEL: 'silent' },
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(r.stderr).toContain('--port');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace without SVC_DEBUG

    // the failed start left nothing behind that blocks the next one
    const p = cli.spawn(['daemon', 'start', '--port', '0', '--data', dir, ...store], { env: { SVC_LOG_LEVEL: 'warn' } });
    await p.waitForLine(/^svc daemon listening on /);
  });
});
