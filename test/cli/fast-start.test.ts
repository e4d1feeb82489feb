// `svc --help` and `svc --version` must stay fast: they may not load React, Ink, the keychain
// library, the HTTP client, conf, or any command module. Measured by tracing every module the
// real process resolves (test/helpers/module-trace.ts).
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import module from 'node:module';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SVC_BIN } from '../helpers/cli.js';
import { writeModuleTracer } from '../helpers/module-trace.js';

let dir: string;
let tracer: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-trace-'));
  tracer = await writeModuleTracer(dir, join(dir, 'modules.txt'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function trace(args: string[]): Promise<{ status: number | null; modules: string[] }> {
  const file = join(dir, 'modules.txt');
  await writeFile(file, '');
  const r = spawnSync(process.execPath, ['--import', tracer, SVC_BIN, ...args], { env: process.env, encoding: 'utf8' });
  return { status: r.status, modules: (await readFile(file, 'utf8')).split('\n').filter(Boolean) };
}

const FORBIDDEN = [/\/node_modules\/(react|ink|@napi-rs|undici|conf|ajv|chalk)\//, /\/dist\/cli\/commands\/.+\//, /\/dist\/cli\/context\.js/, /\/dist\/shared\/client\.js/, /\/dist\/daemon\//];

describe('fast start', () => {
  for (const args of [['--version'], ['--help'], ['help']]) {
    it(`svc ${args.join(' ')} loads no React, keychain, HTTP client, conf or command module`, async () => {
      const { status, modules } = await trace(args);
      expect(status).toBe(0);
      // (the trace works) `svc --version` alone is answered before the CLI itself loads
      const entry = args[0] === '--version' ? '/dist/cli/version.js' : '/dist/cli/main.js';
      expect(modules.some((m) => m.endsWith(entry))).toBe(true);
      if (args[0] === '--version') expect(modules.filter((m) => m.endsWith('/dist/cli/main.js'))).toEqual([]);
      const loaded = modules.filter((m) => FORBIDDEN.some((re) => re.test(m)));
      expect(loaded).toEqual([]);
    });
  }

  /** `svc ARGS` with credentials from the environment against a port nothing listens on: exit 7, and what it loaded on the way. */
  async function traceUnanswered(args: string[]): Promise<string[]> {
    const file = join(dir, 'modules.txt');
    await writeFile(file, '');
    const r = spawnSync(process.execPath, ['--import', tracer, SVC_BIN, ...args, '--no-wait'], {
      env: { ...process.env, SVC_BASE_URL: 'http://127.0.0.1:9', SVC_TEAM: 't', SVC_API_KEY: 'svc_team_x', NO_COLOR: '' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(7);
    return (await readFile(file, 'utf8')).split('\n').filter(Boolean);
  }

  it('a piped API call with credentials from the environment loads no chalk, conf, keychain, React or undici index', async () => {
    const modules = await traceUnanswered(['api', '/teams/{team}/x']);
    expect(modules.some((m) => m.endsWith('/dist/shared/client.js'))).toBe(true);
    expect(modules.filter((m) => /node_modules\/(react|ink|@napi-rs|conf|ajv|chalk)\/|node_modules\/undici\/index\.js/.test(m))).toEqual([]);
    // Nor Node's own undici, which importing node:http loads on Node 26 (for http.WebSocket).
    expect(modules.filter((m) => m.startsWith('builtin:'))).toEqual([]);
  });

  it('automations create without a filter loads no JSONPath or regex library; with one, it checks it first', async () => {
    const cron = await traceUnanswered(['automations', 'create', '--name', 'n', '--prompt', 'p', '--cron', '0 1 * * *']);
    expect(cron.some((m) => m.endsWith('/dist/cli/commands/automations/create.js'))).toBe(true);
    expect(cron.filter((m) => /node_modules\/(json-p3|re2js)\//.test(m))).toEqual([]);
    const filtered = await traceUnanswered(['automations', 'create', '--name', 'n', '--prompt', 'p', '--event-type', 'x', '--filter', '$.data.env equals prod']);
    expect(filtered.some((m) => /node_modules\/json-p3\//.test(m))).toBe(true);
  });

  it('automations create of an event trigger loads no cron parser; of a cron, it checks the cron first', async () => {
    const cronParser = /node_modules\/(cron-parser|luxon)\//;
    const event = await traceUnanswered(['automations', 'create', '--name', 'n', '--prompt', 'p', '--event-type', 'x']);
    expect(event.some((m) => m.endsWith('/dist/cli/commands/automations/create.js'))).toBe(true);
    expect(event.filter((m) => cronParser.test(m))).toEqual([]);
    const cron = await traceUnanswered(['automations', 'create', '--name', 'n', '--prompt', 'p', '--cron', '0 1 * * *']);
    expect(cron.some((m) => cronParser.test(m))).toBe(true);
  });

  it("keeps the compiled code of its modules in Node's compile cache where Node has one (22.1+), and reuses it", async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'svc-compile-cache-'));
    try {
      const help = () => spawnSync(process.execPath, [SVC_BIN, 'help'], { env: { ...process.env, TMPDIR: tmp, NODE_COMPILE_CACHE: '', NODE_DEBUG_NATIVE: 'COMPILE_CACHE' }, encoding: 'utf8' });
      const first = help();
      expect(first.status).toBe(0);
      const cached = await readdir(join(tmp, 'node-compile-cache'), { recursive: true }).catch(() => []);
      if (typeof (module as { enableCompileCache?: unknown }).enableCompileCache !== 'function') {
        expect(cached).toEqual([]);
        return;
      }
      expect(cached.length).toBeGreaterThan(10);
      // the second start reads the CLI's entry from the cache instead of compiling it
      const main = pathToFileURL(join(SVC_BIN, '../../dist/cli/main.js')).href;
      expect(help().stderr).toContain(`V8 code cache for ESM ${main} was accepted`);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('svc help login loads the login command but still no keychain or HTTP client', async () => {
    const { status, modules } = await trace(['help', 'login']);
    expect(status).toBe(0);
    expect(modules.some((m) => m.endsWith('/dist/cli/commands/auth/login.js'))).toBe(true);
    expect(modules.filter((m) => /node_modules\/(react|ink|@napi-rs|undici|conf)\//.test(m))).toEqual([]);
  });
});
