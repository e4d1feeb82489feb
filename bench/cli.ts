// CLI start-up cost (issue 5): wall time of `svc --version` and `svc events send` against bare
// `node -e ''` and against a plain fetch POST script doing the same request, as ratios.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDaemon } from '../daemon/server.js';
import { median, percentile } from './stats.js';

const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const RUNS = 25;

// Asynchronous spawns: the daemon runs in this process, so a blocking spawnSync would starve it.
function runOnce(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

async function timeCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const ms = await runOnce(args, env);
    if (i >= 2) times.push(ms); // the first runs warm the disk cache
  }
  return times;
}

export async function run(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-cli-'));
  const daemon = await startDaemon({ dataDir: join(dir, 'data'), port: 0, logLevel: 'silent', rateLimit: 1_000_000 });
  try {
    const admin = { authorization: `Bearer ${daemon.adminToken}`, 'content-type': 'application/json' };
    await fetch(`${daemon.url}/admin/teams`, { method: 'POST', headers: admin, body: JSON.stringify({ slug: 'bench' }) });
    const key = ((await (await fetch(`${daemon.url}/admin/teams/bench/keys`, { method: 'POST', headers: admin, body: '{}' })).json()) as { data: { key: string } }).data.key;

    const fetchScript = join(dir, 'fetch-post.mjs');
    await writeFile(
      fetchScript,
      `const r = await fetch(process.env.SVC_BASE_URL + '/teams/bench/webhooks/events', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.SVC_API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ event_type: 'bench.ping', data: { n: 1 } }) });\nif (!r.ok) process.exit(1);\nawait r.text();\n`,
    );
    const env = { ...process.env, SVC_BASE_URL: daemon.url, SVC_API_KEY: key, SVC_TEAM: 'bench', HOME: dir, XDG_CONFIG_HOME: join(dir, 'config') };
    const rows = [
      { name: "node -e ''", times: await timeCommand(['-e', ''], env) },
      { name: 'plain fetch POST script', times: await timeCommand([fetchScript], env) },
      { name: 'svc --version', times: await timeCommand([SVC, '--version'], env) },
      { name: 'svc --help', times: await timeCommand([SVC, '--help'], env) },
      { name: 'svc events send', times: await timeCommand([SVC, 'events', 'send', '--type', 'bench.ping', '--data', '{"n":1}'], env) },
    ];
    const bare = median(rows[0].times);
    const plain = median(rows[1].times);
    const send = median(rows[4].times);
    const table = rows
      .map((r) => `| ${r.name} | ${median(r.times).toFixed(1)} | ${percentile(r.times, 90).toFixed(1)} | ${(median(r.times) / bare).toFixed(2)}x | ${(median(r.times) / plain).toFixed(2)}x |`)
      .join('\n');
    const ratio = send / plain;
    return [
      '## CLI start-up',
      '',
      `Wall time of whole processes (${RUNS} runs each after 2 warm-ups, \`SVC_API_KEY\`/\`SVC_BASE_URL\` set as in CI), against a daemon on loopback.`,
      '',
      '| command | median ms | p90 ms | vs node -e \'\' | vs plain fetch |',
      '|---|---|---|---|---|',
      table,
      '',
      `Target: \`svc events send\` at most 1.5x the plain-fetch script. Measured: ${ratio.toFixed(2)}x — ${ratio <= 1.5 ? 'met' : 'NOT met'}.`,
    ].join('\n');
  } finally {
    await daemon.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await run());
