// Event ingest benchmark (issue 3, point 8): events per second and p50/p99 latency of
// `POST /teams/{slug}/webhooks/events` over HTTP against a real daemon (journal store with synced writes,
// record runner) whose team has 1,000 automations of which 10 match each event, measured in the
// same run as a bare Fastify route answering the same JSON. Each server runs in its own child
// process so the load generator (undici Pool, 32 requests in flight, loopback) never shares an
// event loop with it. Afterwards the daemon's data folder is reopened to check that every
// acknowledged event and its sessions were stored: the daemon is killed with SIGKILL first, so the
// journal alone must hold them. `node dist/bench/ingest.js` runs it alone; SVC_BENCH_PROF=DIR
// also writes a CPU profile of the daemon process into DIR (the daemon then stops gracefully, as
// the profile is written at exit).
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { median } from './stats.js';

const AUTOMATIONS = 1_000;
const MATCHING = 10;
const CONCURRENCY = 32;
/**
 * Requests per target before the timed turns: enough for V8 to have optimised each server's hot
 * path (with 300, the first timed turn of the daemon ran at two thirds of the later ones' speed).
 */
const WARMUP_REQUESTS = 3_000;
/**
 * The three targets take turns, ROUNDS times, so load from elsewhere on a shared machine falls on
 * all of them alike; each turn stops at whichever bound comes first.
 */
const ROUNDS = 4;
const MAX_REQUESTS_PER_TURN = { bare: 60_000, matched: 6_000, unmatched: 20_000 };
const MAX_SECONDS_PER_TURN = 3;
const TARGET_RATIO = 0.25;
const SLUG = 'bench';
const EVENT_TYPE = 'deploy.finished';

interface Served {
  url: string;
  adminToken?: string;
}

type ServeKind = 'daemon' | 'bare';

// ---- the child side ----

async function serveDaemon(dataDir: string): Promise<{ served: Served; close(): Promise<void> }> {
  const { startDaemon } = await import('../daemon/server.js');
  const d = await startDaemon({ dataDir, port: 0, logLevel: 'silent', rateLimit: 1_000_000_000, adminRateLimit: 1_000_000_000 });
  return { served: { url: d.url, adminToken: d.adminToken }, close: () => d.close() };
}

async function serveBare(): Promise<{ served: Served; close(): Promise<void> }> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });
  const answer = cannedAnswer();
  app.post('/api/v1/teams/:teamSlug/webhooks/events', async () => answer);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { served: { url: `http://127.0.0.1:${port}/api/v1` }, close: () => app.close() };
}

/** What the daemon answers for a matched event: 10 dispatches and the reason. */
function cannedAnswer() {
  const dispatched = Array.from({ length: MATCHING }, (_, i) => {
    const automationId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    return { automationId, idempotencyKey: `event:${automationId}:bench-0000000`, triggerIds: [`10000000-0000-4000-8000-${String(i).padStart(12, '0')}`] };
  });
  return { data: { accepted: true, dispatched, reason: `dispatched to ${MATCHING} automations` } };
}

async function childMain(kind: ServeKind, dataDir: string): Promise<void> {
  const server = kind === 'daemon' ? await serveDaemon(dataDir) : await serveBare();
  process.on('message', (msg) => {
    if (msg === 'cpu') process.send!({ cpu: process.cpuUsage(), elu: performance.eventLoopUtilization() });
    // (the daemon runs with --expose-gc: what the heap holds after a full collection)
    if (msg === 'heap') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send!({ heapUsed: process.memoryUsage().heapUsed });
    }
    if (msg !== 'stop') return;
    void server.close().then(() => process.exit(0));
  });
  process.send!({ served: server.served });
}

// ---- the parent side ----

interface Child {
  served: Served;
  /** the server process's CPU time so far (user + system, all its threads), in µs, and its main thread's busy time */
  usage(): Promise<Usage>;
  /** the server's heap in use after a full collection, bytes */
  heapUsed(): Promise<number>;
  stop(): Promise<void>;
  /** SIGKILL: nothing gets flushed or snapshotted on the way out */
  kill(): Promise<void>;
}

async function spawnServer(kind: ServeKind, dataDir = ''): Promise<Child> {
  const execArgv = kind === 'daemon' ? ['--expose-gc', ...(process.env.SVC_BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SVC_BENCH_PROF}`] : [])] : [];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve', kind, dataDir], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const served = await new Promise<Served>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { served: Served }).served));
    child.once('exit', (code) => reject(new Error(`${kind} server exited early (code ${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    served,
    usage: () =>
      new Promise<Usage>((resolve) => {
        const onMessage = (m: unknown) => {
          const { cpu, elu } = m as { cpu?: NodeJS.CpuUsage; elu?: EventLoopUtilization };
          if (!cpu || !elu) return;
          child.off('message', onMessage);
          resolve({ cpuMicros: cpu.user + cpu.system, elu });
        };
        child.on('message', onMessage);
        child.send('cpu');
      }),
    heapUsed: () =>
      new Promise<number>((resolve) => {
        const onMessage = (m: unknown) => {
          const { heapUsed } = m as { heapUsed?: number };
          if (heapUsed === undefined) return;
          child.off('message', onMessage);
          resolve(heapUsed);
        };
        child.on('message', onMessage);
        child.send('heap');
      }),
    async stop() {
      child.send('stop');
      await exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

interface Usage {
  cpuMicros: number;
  elu: EventLoopUtilization;
}

interface LoadResult {
  requests: number;
  ok: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
  /** CPU time the server process spent during the load, µs */
  serverCpuMicros: number;
  /** time the server's event loop was busy during the load, ms */
  serverBusyMs: number;
}

async function load(pool: Pool, path: string, headers: Record<string, string>, body: (i: number) => string, max: number, maxSeconds: number): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  let issued = 0;
  let ok = 0;
  let errors = 0;
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < max && performance.now() < deadline) {
        const i = issued++;
        const start = performance.now();
        try {
          const res = await pool.request({ path, method: 'POST', headers, body: body(i) });
          await res.body.text();
          if (res.statusCode === 200) ok++;
          else errors++;
        } catch {
          errors++;
        }
        latenciesMs.push(performance.now() - start);
      }
    }),
  );
  return { requests: issued, ok, errors, seconds: (performance.now() - t0) / 1000, latenciesMs, serverCpuMicros: 0, serverBusyMs: 0 };
}

async function json(pool: Pool, method: 'POST' | 'GET', path: string, token: string, body?: unknown): Promise<any> {
  const res = await pool.request({
    path,
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} answered ${res.statusCode}: ${text}`);
  return JSON.parse(text);
}

/** A team with AUTOMATIONS event automations: MATCHING of them listen to the benchmark event. */
async function seedTeam(pool: Pool, prefix: string, adminToken: string): Promise<string> {
  await json(pool, 'POST', `${prefix}/admin/teams`, adminToken, { slug: SLUG, name: 'Bench' });
  const key = (await json(pool, 'POST', `${prefix}/admin/teams/${SLUG}/keys`, adminToken, { name: 'bench' })).data.key as string;
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < AUTOMATIONS) {
        const i = next++;
        const matching = i % (AUTOMATIONS / MATCHING) === 0;
        await json(pool, 'POST', `${prefix}/teams/${SLUG}/automations`, key, {
          name: `automation ${i}`,
          prompt: `React to the event (automation ${i})`,
          triggers: [
            {
              kind: 'event',
              // The others listen to 99 other event types, a tenth of them under another provider.
              provider: matching || i % 10 !== 1 ? 'generic' : 'github',
              event_type: matching ? EVENT_TYPE : `other.${i % 99}`,
              filters: [{ jsonPath: '$.data.env', operator: 'equals', value: 'prod' }],
            },
          ],
        });
      }
    }),
  );
  return key;
}

interface Target {
  pool: Pool;
  path: string;
  headers: Record<string, string>;
  server: Child;
}

/** One turn of load on a target; event ids carry `run` so no turn repeats another's ids. */
async function turn(t: Target, type: string, run: string, max: number): Promise<LoadResult> {
  const before = await t.server.usage();
  const result = await load(t.pool, t.path, t.headers, (i) => eventBody(type, i, run), max, MAX_SECONDS_PER_TURN);
  const after = await t.server.usage();
  return { ...result, serverCpuMicros: after.cpuMicros - before.cpuMicros, serverBusyMs: performance.eventLoopUtilization(after.elu, before.elu).active };
}

const emptyResult = (): LoadResult => ({ requests: 0, ok: 0, errors: 0, seconds: 0, latenciesMs: [], serverCpuMicros: 0, serverBusyMs: 0 });
const merge = (a: LoadResult, b: LoadResult): LoadResult => ({
  requests: a.requests + b.requests,
  ok: a.ok + b.ok,
  errors: a.errors + b.errors,
  seconds: a.seconds + b.seconds,
  latenciesMs: a.latenciesMs.concat(b.latenciesMs),
  serverCpuMicros: a.serverCpuMicros + b.serverCpuMicros,
  serverBusyMs: a.serverBusyMs + b.serverBusyMs,
});

const eventBody = (type: string, i: number, run: string) =>
  JSON.stringify({
    event_type: type,
    id: `${run}-${i}`,
    source: 'ci.example.com',
    subject: 'api',
    data: { env: 'prod', service: 'api', sha: '3f786850e387550fdab836ed7e6dc881de23001b', duration_ms: 48_213 },
  });

/** Server CPU time per acknowledged request, µs. */
const cpuPerRequest = (r: LoadResult) => r.serverCpuMicros / Math.max(1, r.ok);
/** Share of the turns' time the server's main thread (its event loop) was busy. */
const mainThreadBusy = (r: LoadResult) => r.serverBusyMs / 1000 / Math.max(1e-9, r.seconds);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

interface Row {
  label: string;
  result: LoadResult;
}

function row({ label, result }: Row): string {
  const sorted = result.latenciesMs.slice().sort((a, b) => a - b);
  const rps = result.ok / result.seconds;
  return `| ${label} | ${result.ok} | ${result.errors} | ${rps.toFixed(0)} | ${quantile(sorted, 0.5).toFixed(2)} ms | ${quantile(sorted, 0.99).toFixed(2)} ms | ${cpuPerRequest(result).toFixed(0)} µs | ${(mainThreadBusy(result) * 100).toFixed(0)}% |`;
}

export async function benchIngest(): Promise<string> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-bench-ingest-'));
  const load1 = loadavg()[0];
  const headersFor = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });
  try {
    const bare = await spawnServer('bare');
    const daemon = await spawnServer('daemon', dataDir);
    const barePool = new Pool(new URL(bare.served.url).origin, { connections: CONCURRENCY });
    const pool = new Pool(new URL(daemon.served.url).origin, { connections: CONCURRENCY });
    const prefix = new URL(daemon.served.url).pathname;
    const path = `${prefix}/teams/${SLUG}/webhooks/events`;
    const seedStart = performance.now();
    const key = await seedTeam(pool, prefix, daemon.served.adminToken!);
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const headers = headersFor(key);
    // Same client, same path, same body sizes, same answer bytes; the bare route ignores the key.
    const bareTarget = { pool: barePool, path, headers, server: bare };
    const daemonTarget = { pool, path, headers, server: daemon };

    const sample = await json(pool, 'POST', path, key, JSON.parse(eventBody(EVENT_TYPE, 0, 'sample')));
    if (sample.data.dispatched.length !== MATCHING) throw new Error(`expected ${MATCHING} dispatches, got ${JSON.stringify(sample.data)}`);
    await turn(bareTarget, EVENT_TYPE, 'warm', WARMUP_REQUESTS);
    const warm = await turn(daemonTarget, EVENT_TYPE, 'warm', WARMUP_REQUESTS);
    const warmMiss = await turn(daemonTarget, 'nobody.listens', 'warm-miss', WARMUP_REQUESTS);

    let bareResult = emptyResult();
    /** per round, matched events/s over the bare route's requests/s of the turn just before */
    const roundRatios: number[] = [];
    let matched = emptyResult();
    let unmatched = emptyResult();
    for (let r = 0; r < ROUNDS; r++) {
      const bareTurn = await turn(bareTarget, EVENT_TYPE, `bare${r}`, MAX_REQUESTS_PER_TURN.bare);
      const matchedTurn = await turn(daemonTarget, EVENT_TYPE, `run${r}`, MAX_REQUESTS_PER_TURN.matched);
      roundRatios.push(matchedTurn.ok / matchedTurn.seconds / (bareTurn.ok / bareTurn.seconds));
      bareResult = merge(bareResult, bareTurn);
      matched = merge(matched, matchedTurn);
      unmatched = merge(unmatched, await turn(daemonTarget, 'nobody.listens', `miss${r}`, MAX_REQUESTS_PER_TURN.unmatched));
    }
    // What the daemon keeps per matched event: its heap after a full collection, before and after
    // one more matched turn, once the timed turns are over (a forced collection resizes the young
    // generation, which would slow the turn after it).
    const heapBefore = await daemon.heapUsed();
    const memoryTurn = await turn(daemonTarget, EVENT_TYPE, 'memory', MAX_REQUESTS_PER_TURN.matched);
    const retainedPerEvent = ((await daemon.heapUsed()) - heapBefore) / Math.max(1, memoryTurn.ok);
    await barePool.close();
    await pool.close();
    await bare.stop();
    const killed = !process.env.SVC_BENCH_PROF;
    if (killed) await daemon.kill();
    else await daemon.stop();

    // Every acknowledged event (and each matched one's 10 sessions) must be in the data folder.
    const ackedEvents = 1 + warm.ok + warmMiss.ok + matched.ok + unmatched.ok + memoryTurn.ok;
    const ackedSessions = (1 + warm.ok + matched.ok + memoryTurn.ok) * MATCHING;
    const { openStore } = await import('../daemon/store/index.js');
    const silent = { info() {}, warn() {}, error() {} };
    const store = await openStore({ dataDir, logger: silent });
    const [storedEvents, storedSessions] = await store.read(async (tx) => [await tx.count('events'), await tx.count('sessions')]);
    await store.close();
    const durable = storedEvents === ackedEvents && storedSessions === ackedSessions;

    const bareRps = bareResult.ok / bareResult.seconds;
    const ratio = matched.ok / matched.seconds / bareRps;
    const unmatchedRatio = unmatched.ok / unmatched.seconds / bareRps;
    return [
      '## Event ingest',
      '',
      `\`POST /teams/{slug}/webhooks/events\` over loopback HTTP, ${CONCURRENCY} requests in flight (undici Pool), after ` +
        `${WARMUP_REQUESTS} warm-up requests per target (matched and unmatched events for the daemon); the three targets take turns ${ROUNDS} times, each turn bounded by a ` +
        `request count and ${MAX_SECONDS_PER_TURN} s, and the table sums the turns. The daemon runs in its own process with the ` +
        `journal store (on disk before every acknowledgement) and the record runner; its team has ${AUTOMATIONS} event automations ` +
        `(seeded over HTTP in ${seedSeconds.toFixed(1)} s), ${MATCHING} of which match each benchmark event (same provider and type, ` +
        `a \`$.data.env equals "prod"\` filter), so every matched event starts ${MATCHING} sessions. The bare route is Fastify ` +
        'in its own process answering the same JSON without doing anything.',
      `Load average when the run started: ${load1.toFixed(1)} on a machine shared with other work (absolute figures move with it; ` +
        'the ratios within one run compare).',
      '',
      '| Target | Acknowledged | Errors | Requests/s | p50 | p99 | server CPU per request | server main thread busy |',
      '|---|---|---|---|---|---|---|---|',
      row({ label: 'bare Fastify route', result: bareResult }),
      row({ label: `daemon, event matching ${MATCHING} of ${AUTOMATIONS} automations`, result: matched }),
      row({ label: `daemon, event matching none (stored, no session)`, result: unmatched }),
      '',
      `- Matched ingest throughput is **${(ratio * 100).toFixed(1)}%** of the bare route (target ≥ ${TARGET_RATIO * 100}%: ` +
        `${ratio >= TARGET_RATIO ? 'met' : 'not met'}; round by round ${roundRatios.map((x) => `${(x * 100).toFixed(1)}%`).join(', ')}, ` +
        `median ${(median(roundRatios) * 100).toFixed(1)}%). Each matched event starts ${MATCHING} sessions ` +
        `(${((matched.ok / matched.seconds) * MATCHING).toFixed(0)} sessions/s here). The matched events of a team that reach ` +
        'dispatch in the same turn of the event loop (several at a time under this load) share one write transaction, on disk ' +
        `before the answers: it stores their event rows, their sessions (${MATCHING} per event, each referring to its event row, ` +
        "which also gives its idempotency key: one index entry per event), stored completed with the record runner's answer on the session row " +
        '(no message rows), and one counter update per trigger. In memory the sessions of a batch are one run, and so are its receipts (ids sharing a prefix; ' +
        'each member keeps only the fields it does not share), and receipts that dispatched to the same automations share one list. The journal writes a run ' +
        'of alike rows as one entry, their shared fields once, and compactions build snapshots in a worker thread at background priority.',
      `- Server CPU per request (the server process's user + system time over the turns, all its threads, divided by the ` +
        `requests it acknowledged): a matched event costs the daemon ${(cpuPerRequest(matched) / cpuPerRequest(bareResult)).toFixed(1)}x ` +
        `what the bare route spends on a request, an unmatched one ${(cpuPerRequest(unmatched) / cpuPerRequest(bareResult)).toFixed(1)}x. ` +
        'The bare route shares the machine with the load generator, which then needs most of the other core; the daemon, ' +
        'busy with each event far longer, leaves the generator idle most of the time. "Main thread busy" is the share of the ' +
        "turns' time the server's event loop was at work (its event loop utilisation): near 100%, throughput is bound by " +
        'the work on that one thread, not by waiting for the disk.',
      `- Memory: the daemon's heap after a full collection grows by **${(retainedPerEvent / 1024).toFixed(1)} KB per matched ` +
        `event** (its receipt, its ${MATCHING} sessions, their index entries), measured over ${memoryTurn.ok} more matched events after the timed turns.`,
      `- Unmatched ingest (match lookup through the trigger index, the reason, a durable event row; the rows of a turn ` +
        `share one write): ` +
        `**${(unmatchedRatio * 100).toFixed(1)}%** of the bare route.`,
      `- Durability: ${ackedEvents} events and ${ackedSessions} sessions acknowledged; ` +
        `${killed ? 'after a SIGKILL of the daemon, replaying its journal' : 'after a graceful stop (profiling), reopening the data folder'} found ` +
        `${storedEvents} events and ${storedSessions} sessions (${durable ? 'all present' : 'MISMATCH'}).`,
      '- The daemon runs with logging off (`logLevel: \'silent\'`), as the bare route has no logger. At the default level ' +
        '(`info`), Fastify\'s two log lines per request cost about 15% of both daemon figures on this machine (measured ' +
        'separately, logs to /dev/null).',
    ].join('\n');
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

export const run = benchIngest;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const serveAt = process.argv.indexOf('--serve');
  if (serveAt >= 0) await childMain(process.argv[serveAt + 1] as ServeKind, process.argv[serveAt + 2] ?? '');
  else process.stdout.write(`${await benchIngest()}\n`);
}
