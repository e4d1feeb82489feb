// Event ingest benchmark (issue 3, point 8; issue 26, point 6): events per second and p50/p99
// latency of `POST /teams/{slug}/webhooks/events` over HTTP against a real daemon (record runner)
// whose team has 1,000 automations of which 10 match each event, on each store: the JSON-file
// store (synced writes) and PostgreSQL (a server of the bench's own on this machine,
// `synchronous_commit` on), measured in the same run as a bare Fastify route answering the same
// JSON. Each server runs in its own child process so the load generator (undici Pool, 32
// requests in flight, loopback) never shares an event loop with it. Afterwards each daemon is
// killed with SIGKILL and its store reopened, to check that every acknowledged event and its
// sessions were stored. `node dist/bench/ingest.js` runs it alone; SVC_BENCH_PROF=DIR also
// writes the CPU profile of each daemon's profiled turn into DIR.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import type { ProfileSummary } from './cpu-profile.js';
import { addCounts, countsBetween, perUnit, totalOf, tripsOf, type StatementCounts } from './pg-statements.js';
import { startPostgresServer, type PostgresServer, type StatementTimes } from './postgres-server.js';
import { median } from './stats.js';

const AUTOMATIONS = 1_000;
const MATCHING = 10;
export const CONCURRENCY = 32;
/**
 * Requests per target before the timed turns: enough for V8 to have optimised each server's hot
 * path (with 300, the first timed turn of the daemon ran at two thirds of the later ones' speed).
 */
const WARMUP_REQUESTS = 3_000;
/**
 * The targets take turns, ROUNDS times, so load from elsewhere on a shared machine falls on all
 * of them alike; each turn stops at whichever bound comes first.
 */
const ROUNDS = 4;
const MAX_REQUESTS_PER_TURN = { bare: 60_000, matched: 6_000, unmatched: 20_000 };
const MAX_SECONDS_PER_TURN = 3;
/** the JSON-file store's matched ingest against the bare route */
const TARGET_RATIO = 0.25;
/** PostgreSQL's matched ingest against the JSON-file store's (issue 26) */
const POSTGRES_GOAL = 1 / 3;
/** what Hatchet publishes for an 8-vCPU database, runs started per second */
const HATCHET_RUNS_PER_SECOND = 2_000;
export const SLUG = 'bench';
export const EVENT_TYPE = 'deploy.finished';

interface Served {
  url: string;
  adminToken?: string;
}

/** The daemon's store: a data folder, or a PostgreSQL URL (the data folder then holds only secrets). */
interface StoreSpec {
  dataDir: string;
  url?: string;
}

// ---- the child side ----

async function serveDaemon(spec: StoreSpec): Promise<{ served: Served; close(): Promise<void> }> {
  const { startDaemon } = await import('../daemon/server.js');
  const d = await startDaemon({ dataDir: spec.dataDir, store: spec.url, port: 0, logLevel: 'silent', rateLimit: 1_000_000_000, adminRateLimit: 1_000_000_000 });
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

type Request = 'usage' | 'heap' | 'profile-start' | 'profile-stop' | 'stop';

async function childMain(kind: 'daemon' | 'bare', spec: StoreSpec): Promise<void> {
  // Counted from the first statement on: the wrapper goes in before the daemon loads the driver.
  const statements = spec.url ? (await import('./pg-statements.js')).countStatements() : undefined;
  const server = kind === 'daemon' ? await serveDaemon(spec) : await serveBare();
  const { startProfiling } = await import('./cpu-profile.js');
  let profiling: Awaited<ReturnType<typeof startProfiling>> | undefined;
  process.on('message', async (message) => {
    const msg = message as Request;
    if (msg === 'usage') {
      process.send!({ usage: { cpuMicros: cpuMicros(), elu: performance.eventLoopUtilization(), statements: statements?.snapshot() ?? {} } });
    } else if (msg === 'heap') {
      // (the daemon runs with --expose-gc: what the heap holds after a full collection)
      (globalThis as { gc?: () => void }).gc?.();
      process.send!({ heapUsed: process.memoryUsage().heapUsed });
    } else if (msg === 'profile-start') {
      profiling = await startProfiling();
      process.send!({ profiling: true });
    } else if (msg === 'profile-stop') {
      process.send!({ profile: await profiling!.stop(`ingest-${spec.url ? 'postgres' : 'file'}`) });
    } else if (msg === 'stop') {
      void server.close().then(() => process.exit(0));
    }
  });
  process.send!({ served: server.served });
}

const cpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

// ---- the parent side ----

interface Usage {
  /** the process's CPU time so far (user + system, all its threads), µs */
  cpuMicros: number;
  /** its main thread's busy time */
  elu: EventLoopUtilization;
  /** statements sent to PostgreSQL so far, by kind */
  statements: StatementCounts;
}

interface Child {
  served: Served;
  usage(): Promise<Usage>;
  /** the server's heap in use after a full collection, bytes */
  heapUsed(): Promise<number>;
  /** profiles what runs between this and the promise's `stop` */
  profile(): Promise<{ stop(): Promise<ProfileSummary> }>;
  stop(): Promise<void>;
  /** SIGKILL: nothing gets flushed or snapshotted on the way out */
  kill(): Promise<void>;
}

async function spawnServer(kind: 'daemon' | 'bare', spec: StoreSpec = { dataDir: '' }): Promise<Child> {
  const execArgv = kind === 'daemon' ? ['--expose-gc'] : [];
  const args = ['--serve', kind, spec.dataDir, ...(spec.url ? [spec.url] : [])];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), args, { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const served = await new Promise<Served>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { served: Served }).served));
    child.once('exit', (code) => reject(new Error(`${kind} server exited early (code ${code})`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  /** Sends a request and waits for the answer that carries `field`. */
  const ask = <T>(msg: Request, field: string) =>
    new Promise<T>((resolve) => {
      const onMessage = (m: unknown) => {
        const answer = (m as Record<string, unknown>)[field];
        if (answer === undefined) return;
        child.off('message', onMessage);
        resolve(answer as T);
      };
      child.on('message', onMessage);
      child.send(msg);
    });
  return {
    served,
    usage: () => ask<Usage>('usage', 'usage'),
    heapUsed: () => ask<number>('heap', 'heapUsed'),
    async profile() {
      await ask('profile-start', 'profiling');
      return { stop: () => ask<ProfileSummary>('profile-stop', 'profile') };
    },
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
  /** CPU time the database server's processes spent during the load, µs */
  dbCpuMicros: number;
  /** statements the server sent to the database during the load, by kind */
  statements: StatementCounts;
  /** what the database spent executing them, by kind (pg_stat_statements) */
  dbTimes: StatementTimes;
}

/** `concurrency` requests in flight (another value when one load is split over several daemons). */
export async function load(pool: Pool, path: string, headers: Record<string, string>, body: (i: number) => string, max: number, maxSeconds: number, concurrency = CONCURRENCY) {
  const latenciesMs: number[] = [];
  let issued = 0;
  let ok = 0;
  let errors = 0;
  const t0 = performance.now();
  const deadline = t0 + maxSeconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
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
  return { requests: issued, ok, errors, seconds: (performance.now() - t0) / 1000, latenciesMs };
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
export async function seedTeam(pool: Pool, prefix: string, adminToken: string): Promise<string> {
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
  /** the database server behind the target (PostgreSQL only) */
  db?: Database;
}

interface Database {
  /** its CPU time so far, µs */
  cpuMicros(): Promise<number>;
  /** what its statements have cost so far */
  statementTimes(): Promise<StatementTimes>;
}

/** One turn of load on a target; event ids carry `run` so no turn repeats another's ids. */
async function turn(t: Target, type: string, run: string, max: number): Promise<LoadResult> {
  const [before, dbBefore, timesBefore] = await Promise.all([t.server.usage(), t.db?.cpuMicros() ?? 0, t.db?.statementTimes() ?? {}]);
  const result = await load(t.pool, t.path, t.headers, (i) => eventBody(type, i, run), max, MAX_SECONDS_PER_TURN);
  const [after, dbAfter, timesAfter] = await Promise.all([t.server.usage(), t.db?.cpuMicros() ?? 0, t.db?.statementTimes() ?? {}]);
  return {
    ...result,
    serverCpuMicros: after.cpuMicros - before.cpuMicros,
    serverBusyMs: performance.eventLoopUtilization(after.elu, before.elu).active,
    dbCpuMicros: dbAfter - dbBefore,
    statements: countsBetween(before.statements, after.statements),
    dbTimes: timesBetween(timesBefore, timesAfter),
  };
}

function timesBetween(before: StatementTimes, after: StatementTimes): StatementTimes {
  const out: StatementTimes = {};
  for (const [kind, t] of Object.entries(after)) {
    const calls = t.calls - (before[kind]?.calls ?? 0);
    if (calls > 0) out[kind] = { calls, ms: t.ms - (before[kind]?.ms ?? 0) };
  }
  return out;
}

function addTimes(a: StatementTimes, b: StatementTimes): StatementTimes {
  const out: StatementTimes = { ...a };
  for (const [kind, t] of Object.entries(b)) out[kind] = { calls: (out[kind]?.calls ?? 0) + t.calls, ms: (out[kind]?.ms ?? 0) + t.ms };
  return out;
}

const emptyResult = (): LoadResult => ({ requests: 0, ok: 0, errors: 0, seconds: 0, latenciesMs: [], serverCpuMicros: 0, serverBusyMs: 0, dbCpuMicros: 0, statements: {}, dbTimes: {} });
const merge = (a: LoadResult, b: LoadResult): LoadResult => ({
  requests: a.requests + b.requests,
  ok: a.ok + b.ok,
  errors: a.errors + b.errors,
  seconds: a.seconds + b.seconds,
  latenciesMs: a.latenciesMs.concat(b.latenciesMs),
  serverCpuMicros: a.serverCpuMicros + b.serverCpuMicros,
  serverBusyMs: a.serverBusyMs + b.serverBusyMs,
  dbCpuMicros: a.dbCpuMicros + b.dbCpuMicros,
  statements: addCounts(a.statements, b.statements),
  dbTimes: addTimes(a.dbTimes, b.dbTimes),
});

export const eventBody = (type: string, i: number, run: string) =>
  JSON.stringify({
    event_type: type,
    id: `${run}-${i}`,
    source: 'ci.example.com',
    subject: 'api',
    data: { env: 'prod', service: 'api', sha: '3f786850e387550fdab836ed7e6dc881de23001b', duration_ms: 48_213 },
  });

const perSecond = (r: LoadResult) => r.ok / Math.max(1e-9, r.seconds);
/** Server CPU time per acknowledged request, µs. */
const cpuPerRequest = (r: LoadResult) => r.serverCpuMicros / Math.max(1, r.ok);
const dbCpuPerRequest = (r: LoadResult) => r.dbCpuMicros / Math.max(1, r.ok);
/** Share of the turns' time the server's main thread (its event loop) was busy. */
const mainThreadBusy = (r: LoadResult) => r.serverBusyMs / 1000 / Math.max(1e-9, r.seconds);

/**
 * The bare route is the yardstick only when it ran as fast as its server could: below this share
 * of main-thread time, the load generator (on the other core) set its pace, and a ratio to it
 * flatters the daemon.
 */
const SATURATED_BUSY = 0.9;

function fileVerdict(fileRatio: number, bare: LoadResult): string {
  const busy = mainThreadBusy(bare);
  if (busy < SATURATED_BUSY) return `not judged: the bare route's main thread was only ${pct(busy)} busy, so the load generator set its rate`;
  return fileRatio >= TARGET_RATIO ? 'met' : 'not met';
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function row(label: string, result: LoadResult, withDb: boolean): string {
  const sorted = result.latenciesMs.slice().sort((a, b) => a - b);
  const db = withDb ? `${dbCpuPerRequest(result).toFixed(0)} µs` : '–';
  return `| ${label} | ${result.ok} | ${result.errors} | ${perSecond(result).toFixed(0)} | ${quantile(sorted, 0.5).toFixed(2)} ms | ${quantile(sorted, 0.99).toFixed(2)} ms | ${cpuPerRequest(result).toFixed(0)} µs | ${(mainThreadBusy(result) * 100).toFixed(0)}% | ${db} |`;
}

/** One store under test: its daemon, and what was measured on it. */
interface Subject {
  name: string;
  spec: StoreSpec;
  daemon: Child;
  pool: Pool;
  target: Target;
  key: string;
  seedSeconds: number;
  warm: LoadResult;
  warmMiss: LoadResult;
  matched: LoadResult;
  unmatched: LoadResult;
  /** per round, matched events/s over the bare route's requests/s of the same round */
  roundRatios: number[];
  retainedPerEvent: number;
  memoryTurn: LoadResult;
  profile?: ProfileSummary;
  profileTurn?: LoadResult;
}

async function prepare(name: string, spec: StoreSpec, db?: Database): Promise<Subject> {
  const daemon = await spawnServer('daemon', spec);
  const pool = new Pool(new URL(daemon.served.url).origin, { connections: CONCURRENCY });
  const prefix = new URL(daemon.served.url).pathname;
  const seedStart = performance.now();
  const key = await seedTeam(pool, prefix, daemon.served.adminToken!);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const path = `${prefix}/teams/${SLUG}/webhooks/events`;
  const target = { pool, path, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, server: daemon, db };
  const sample = await json(pool, 'POST', path, key, JSON.parse(eventBody(EVENT_TYPE, 0, 'sample')));
  if (sample.data.dispatched.length !== MATCHING) throw new Error(`${name}: expected ${MATCHING} dispatches, got ${JSON.stringify(sample.data)}`);
  const empty = emptyResult();
  return { name, spec, daemon, pool, target, key, seedSeconds, warm: empty, warmMiss: empty, matched: empty, unmatched: empty, roundRatios: [], retainedPerEvent: 0, memoryTurn: empty };
}

/** Reopens the store of a daemon killed with SIGKILL: its events and sessions. */
async function storedCounts(spec: StoreSpec): Promise<{ events: number; sessions: number }> {
  const silent = { info() {}, warn() {}, error() {} };
  const store = spec.url
    ? await (await import('../daemon/store/postgres/postgres-store.js')).openPostgresStore({ url: spec.url, logger: silent })
    : await (await import('../daemon/store/index.js')).openStore({ dataDir: spec.dataDir, logger: silent });
  try {
    const [events, sessions] = await store.read(async (tx) => [await tx.count('events'), await tx.count('sessions')]);
    return { events, sessions };
  } finally {
    await store.close();
  }
}

export async function benchIngest(): Promise<string> {
  const base = await mkdtemp(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svc-bench-ingest-'));
  const load1 = loadavg()[0];
  let postgres: PostgresServer | undefined;
  const subjects: Subject[] = [];
  const children: Child[] = [];
  try {
    postgres = await startPostgresServer();
    const pgSettings = await postgres.settings();
    const bare = await spawnServer('bare');
    children.push(bare);
    const barePool = new Pool(new URL(bare.served.url).origin, { connections: CONCURRENCY });
    const file = await prepare('JSON file', { dataDir: join(base, 'file') });
    subjects.push(file);
    const database = 'svc_bench_ingest';
    const pgUrl = await postgres.createDatabase(database);
    const pgServer = postgres;
    const pgSubject = await prepare('PostgreSQL', { dataDir: join(base, 'postgres'), url: pgUrl }, {
      cpuMicros: () => pgServer.cpuMicros(),
      statementTimes: () => pgServer.statementTimes(database),
    });
    subjects.push(pgSubject);
    for (const s of subjects) children.push(s.daemon);
    // Same client, same path, same body sizes, same answer bytes; the bare route ignores the key.
    const bareTarget: Target = { pool: barePool, path: file.target.path, headers: file.target.headers, server: bare };

    await turn(bareTarget, EVENT_TYPE, 'warm', WARMUP_REQUESTS);
    for (const s of subjects) {
      s.warm = await turn(s.target, EVENT_TYPE, 'warm', WARMUP_REQUESTS);
      s.warmMiss = await turn(s.target, 'nobody.listens', 'warm-miss', WARMUP_REQUESTS);
    }

    let bareResult = emptyResult();
    /** per round, PostgreSQL's matched events/s over the JSON-file store's */
    const pgOverFile: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const bareTurn = await turn(bareTarget, EVENT_TYPE, `bare${r}`, MAX_REQUESTS_PER_TURN.bare);
      bareResult = merge(bareResult, bareTurn);
      const rates: number[] = [];
      for (const s of subjects) {
        const matchedTurn = await turn(s.target, EVENT_TYPE, `run${r}`, MAX_REQUESTS_PER_TURN.matched);
        s.roundRatios.push(perSecond(matchedTurn) / perSecond(bareTurn));
        rates.push(perSecond(matchedTurn));
        s.matched = merge(s.matched, matchedTurn);
      }
      pgOverFile.push(rates[1] / rates[0]);
      for (const s of subjects) s.unmatched = merge(s.unmatched, await turn(s.target, 'nobody.listens', `miss${r}`, MAX_REQUESTS_PER_TURN.unmatched));
    }
    for (const s of subjects) {
      // What the daemon keeps per matched event: its heap after a full collection, before and
      // after one more matched turn, once the timed turns are over (a forced collection resizes
      // the young generation, which would slow the turn after it).
      const heapBefore = await s.daemon.heapUsed();
      s.memoryTurn = await turn(s.target, EVENT_TYPE, 'memory', MAX_REQUESTS_PER_TURN.matched);
      s.retainedPerEvent = ((await s.daemon.heapUsed()) - heapBefore) / Math.max(1, s.memoryTurn.ok);
      // Where the daemon's time goes: one more matched turn under V8's CPU profiler.
      const profiling = await s.daemon.profile();
      s.profileTurn = await turn(s.target, EVENT_TYPE, 'profile', MAX_REQUESTS_PER_TURN.matched);
      s.profile = await profiling.stop();
    }
    await barePool.close();
    await bare.stop();
    for (const s of subjects) {
      await s.pool.close();
      await s.daemon.kill();
    }
    children.length = 0;

    // Every acknowledged event (and each matched one's 10 sessions) must be in the store.
    const durability = await Promise.all(
      subjects.map(async (s) => {
        const matchedOk = 1 + s.warm.ok + s.matched.ok + s.memoryTurn.ok + s.profileTurn!.ok;
        const acked = { events: matchedOk + s.warmMiss.ok + s.unmatched.ok, sessions: matchedOk * MATCHING };
        const stored = await storedCounts(s.spec);
        return { acked, stored, ok: stored.events === acked.events && stored.sessions === acked.sessions };
      }),
    );
    return report({ bareResult, subjects, pgOverFile, durability, load1, pgSettings });
  } finally {
    for (const c of children) await c.kill().catch(() => undefined);
    await postgres?.stop();
    await rm(base, { recursive: true, force: true });
  }
}

interface Findings {
  bareResult: LoadResult;
  subjects: Subject[];
  pgOverFile: number[];
  durability: { acked: { events: number; sessions: number }; stored: { events: number; sessions: number }; ok: boolean }[];
  load1: number;
  pgSettings: string;
}

function report({ bareResult, subjects, pgOverFile, durability, load1, pgSettings }: Findings): string {
  const [file, postgres] = subjects;
  const bareRps = perSecond(bareResult);
  const ratio = (s: Subject) => perSecond(s.matched) / bareRps;
  const pgRatio = median(pgOverFile);
  const sessionsPerSecond = (s: Subject) => perSecond(s.matched) * MATCHING;
  const statements = postgres.matched.statements;
  const events = postgres.matched.ok;
  const transactions = statements.BEGIN?.n ?? 0;
  // Per matched event on PostgreSQL: the daemon's CPU, the database's, and the wall time the
  // two cores had for it.
  const wallMicros = 1e6 / perSecond(postgres.matched);
  const profileLines = subjects.map(
    (s) =>
      `  - ${s.name}: ${s.profile!.parts
        .slice(0, 7)
        .map((p) => `${p.part} ${pct(p.share)}`)
        .join(', ')}. Functions with the most self time: ${s.profile!.top
        .slice(0, 5)
        .map((f) => `\`${f.name}\` ${pct(f.share)}`)
        .join(', ')}.`,
  );
  return [
    '## Event ingest',
    '',
    `\`POST /teams/{slug}/webhooks/events\` over loopback HTTP, ${CONCURRENCY} requests in flight (undici Pool), on each store, after ` +
      `${WARMUP_REQUESTS} warm-up requests per target (matched and unmatched events for each daemon); the targets take turns ${ROUNDS} times, each turn bounded by a ` +
      `request count and ${MAX_SECONDS_PER_TURN} s, and the table sums the turns. Each daemon runs in its own process with the ` +
      'record runner, one on the JSON-file store (on disk before every acknowledgement), one on PostgreSQL ' +
      `(a server the bench starts on this machine, reached over its Unix socket, with its default settings: ${pgSettings}; every write transaction SERIALIZABLE). ` +
      `Each daemon's team has ${AUTOMATIONS} event automations ` +
      `(seeded over HTTP: ${subjects.map((s) => `${s.seedSeconds.toFixed(1)} s on ${s.name}`).join(', ')}), ${MATCHING} of which match each benchmark event (same provider and type, ` +
      `a \`$.data.env equals "prod"\` filter), so every matched event starts ${MATCHING} sessions. The bare route is Fastify ` +
      'in its own process answering the same JSON without doing anything.',
    `Load average when the run started: ${load1.toFixed(1)} on ${cpus().length} cores shared with other work (absolute figures move with it; ` +
      'the ratios within one run compare). PostgreSQL, both daemons and the load generator share those cores.',
    '',
    '| Target | Acknowledged | Errors | Requests/s | p50 | p99 | server CPU per request | server main thread busy | database CPU per request |',
    '|---|---|---|---|---|---|---|---|---|',
    row('bare Fastify route', bareResult, false),
    ...subjects.flatMap((s) => [
      row(`${s.name}: event matching ${MATCHING} of ${AUTOMATIONS} automations`, s.matched, s === postgres),
      row(`${s.name}: event matching none (stored, no session)`, s.unmatched, s === postgres),
    ]),
    '',
    `- JSON-file store: matched ingest is **${pct(ratio(file))}** of the bare route (target ≥ ${TARGET_RATIO * 100}%: ` +
      `${fileVerdict(ratio(file), bareResult)}; round by round ${file.roundRatios.map(pct).join(', ')}, ` +
      `median ${pct(median(file.roundRatios))}), ${sessionsPerSecond(file).toFixed(0)} sessions/s.`,
    `- PostgreSQL: matched ingest is **${pct(pgRatio)}** of the JSON-file store's (median of the rounds: ${pgOverFile.map(pct).join(', ')}; ` +
      `goal ≥ ${pct(POSTGRES_GOAL)}: ${pgRatio >= POSTGRES_GOAL ? 'met' : 'not met'}), ${pct(ratio(postgres))} of the bare route: ` +
      `${perSecond(postgres.matched).toFixed(0)} events/s, **${sessionsPerSecond(postgres).toFixed(0)} sessions started per second** ` +
      `on ${cpus().length} cores with the database on the same machine (Hatchet publishes about ${HATCHET_RUNS_PER_SECOND.toLocaleString('en')} runs/s on an 8-vCPU database).`,
    `- Statements per matched event on PostgreSQL: **${(totalOf(statements) / Math.max(1, events)).toFixed(2)}** in ` +
      `**${(tripsOf(statements) / Math.max(1, events)).toFixed(2)}** round trips (the connections are pipelined: statements asked for together ` +
      'are written together and wait once), counted in the daemon process by wrapping the driver\'s `query`: ' +
      `${perUnit(statements, events)}. The matched events that reach dispatch together are one write, and the writes that queue ` +
      `while a transaction runs share the next one: ${(events / Math.max(1, transactions)).toFixed(1)} events per transaction here ` +
      `(${transactions} transactions, each ending in a commit that waits for its WAL flush). The reads before the write (the API key, the team, ` +
      "the triggers listening to the event's key and their automations) go outside any transaction, the reads of concurrent requests " +
      'in one turn of the event loop together, on one connection.',
    `- PostgreSQL's own time executing them (pg_stat_statements), µs per matched event: ${perEventTimes(postgres.matched.dbTimes, events)}.`,
    `- Where the time goes, per matched event on PostgreSQL: ${wallMicros.toFixed(0)} µs of wall time (the inverse of the rate; ` +
      `${cpus().length} cores give ${(wallMicros * cpus().length).toFixed(0)} core-µs), of which the daemon process spent ` +
      `${cpuPerRequest(postgres.matched).toFixed(0)} µs of CPU and PostgreSQL's processes ${dbCpuPerRequest(postgres.matched).toFixed(0)} µs ` +
      `(read from /proc; the JSON-file daemon spends ${cpuPerRequest(file.matched).toFixed(0)} µs in all). The rest is the load generator ` +
      'and waiting: each daemon writes one transaction at a time, so the event loop is idle while a write waits for its statements and its commit. ' +
      'The daemons\' CPU profiles over one more matched turn each, self time by what the code belongs to:',
    ...profileLines,
    `- Memory: the daemon's heap after a full collection grows by ${subjects.map((s) => `**${(s.retainedPerEvent / 1024).toFixed(1)} KB** on ${s.name}`).join(' and ')} per matched ` +
      `event, measured over ${file.memoryTurn.ok} and ${postgres.memoryTurn.ok} more matched events after the timed turns (PostgreSQL keeps no rows in the daemon).`,
    `- Unmatched ingest (match lookup through the trigger index, the reason, a durable event row; the rows of a turn ` +
      `share one write): ${subjects.map((s) => `**${pct(perSecond(s.unmatched) / bareRps)}** of the bare route on ${s.name}`).join(', ')}.`,
    `- Durability: each daemon was killed with SIGKILL after its turns and its store reopened: ` +
      subjects
        .map((s, i) => {
          const d = durability[i];
          return `${s.name} acknowledged ${d.acked.events} events and ${d.acked.sessions} sessions and holds ${d.stored.events} and ${d.stored.sessions} (${d.ok ? 'all present' : 'MISMATCH'})`;
        })
        .join('; ') +
      '.',
    '- The daemons run with logging off (`logLevel: \'silent\'`), as the bare route has no logger. At the default level ' +
      '(`info`), Fastify\'s two log lines per request cost about 15% of the JSON-file daemon\'s figures on this machine (measured ' +
      'separately, logs to /dev/null).',
  ].join('\n');
}

/** Execution time per unit by statement kind, largest first. */
function perEventTimes(times: StatementTimes, units: number): string {
  return Object.entries(times)
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([kind, t]) => `\`${kind}\` ${((t.ms * 1000) / Math.max(1, units)).toFixed(0)}`)
    .join(', ');
}

export const run = benchIngest;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const serveAt = process.argv.indexOf('--serve');
  if (serveAt >= 0) {
    const [kind, dataDir, url] = process.argv.slice(serveAt + 1);
    await childMain(kind as 'daemon' | 'bare', { dataDir: dataDir ?? '', url });
  } else {
    process.stdout.write(`${await benchIngest()}\n`);
  }
}
