// Daemon start-up: how long `svc daemon start` takes from the process's start to its "listening"
// line on a fresh JSON-file data folder, and what starting a daemon costs inside a process that
// has started one already (as each test worker does, many times): the first app of a process
// compiles every route's schemas, the later ones take the compiled functions (schema-compilers.ts).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startDaemon } from '../daemon/server.js';
import { median, percentile } from './stats.js';

const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const PROCESS_RUNS = 12;
const IN_PROCESS_RUNS = 15;
const LISTENING = /^svc daemon listening on /m;

/** ms from spawning `svc daemon start` to its listening line; then it is stopped. */
function timeProcessStart(dataDir: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [SVC, 'daemon', 'start', '--data', dataDir, '--port', '0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let ms: number | undefined;
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (ms === undefined && LISTENING.test(out)) {
        ms = Number(process.hrtime.bigint() - start) / 1e6;
        child.kill('SIGTERM');
      }
    });
    child.on('error', reject);
    child.on('close', (code) => (ms !== undefined ? resolve(ms) : reject(new Error(`svc daemon start exited ${code} before listening`))));
  });
}

/** ms of one startDaemon in this process, and of its close. */
async function timeInProcessStart(dataDir: string): Promise<number> {
  const start = process.hrtime.bigint();
  const daemon = await startDaemon({ dataDir, port: 0, logLevel: 'silent' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  await daemon.close();
  return ms;
}

export async function run(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-daemon-start-'));
  try {
    const processTimes: number[] = [];
    // (the first run warms the disk cache)
    for (let i = 0; i <= PROCESS_RUNS; i++) {
      const ms = await timeProcessStart(join(dir, `p${i}`));
      if (i > 0) processTimes.push(ms);
    }
    // In a process of its own: this one may have started daemons already (other suites of the run).
    const { stdout } = await promisify(execFile)(process.execPath, [fileURLToPath(import.meta.url), '--in-process', dir]);
    const { first, later } = JSON.parse(stdout) as { first: number; later: number[] };
    const row = (name: string, times: number[]) => `| ${name} | ${median(times).toFixed(0)} | ${percentile(times, 90).toFixed(0)} | ${times.length} |`;
    return [
      '## Daemon start-up',
      '',
      `Wall time on a fresh JSON-file data folder. A process: from spawning \`svc daemon start\` to its "listening" line (${PROCESS_RUNS} runs after one`,
      'warm-up). In one process whose daemon modules are loaded: `startDaemon` until it listens, the first time (every route\'s',
      'validator compiled; serializers are built when a route first answers) and each time after (the validators taken from the first).',
      '',
      '| start | median ms | p90 ms | runs |',
      '|---|---|---|---|',
      row('`svc daemon start`, a process', processTimes),
      row('first daemon of a process', [first]),
      row('each later daemon of the same process', later),
      '',
      `A later daemon of a process starts in ${((median(later) / first) * 100).toFixed(0)}% of the first one's time.`,
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The in-process figures, in a fresh process (see run). */
async function inProcessStarts(dir: string): Promise<{ first: number; later: number[] }> {
  // The daemon's modules are loaded by the import above: the first start here compiles the schemas.
  const first = await timeInProcessStart(join(dir, 'first'));
  const later: number[] = [];
  for (let i = 0; i < IN_PROCESS_RUNS; i++) later.push(await timeInProcessStart(join(dir, `i${i}`)));
  return { first, later };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--in-process');
  console.log(at >= 0 ? JSON.stringify(await inProcessStarts(process.argv[at + 1])) : await run());
}
