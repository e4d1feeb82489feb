// Fleet benchmark (issue 27, point 6): several real `svc daemon start --store URL` processes on one
// PostgreSQL database (a server of the bench's own, bench/postgres-server.ts). First 10,000
// schedule triggers all due at one instant, with three daemons sharing the slots; then matched
// event ingest sent to one daemon, and the same load split over two daemons on one database.
// The daemons are child processes of `bin/svc.js`, as an operator runs them; the bench seeds the
// triggers in-process through the store before they start, and reads the results with SQL.
// `node dist/bench/fleet.js` runs it alone; bench/run.ts imports `run`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { systemClock } from '../daemon/clock.js';
import { createLogger } from '../daemon/logger.js';
import { DEFAULT_LEAD_MS } from '../daemon/scheduler/scheduler.js';
import { buildServices } from '../daemon/services.js';
import { openPostgresStore } from '../daemon/store/postgres/postgres-store.js';
import { CONCURRENCY, EVENT_TYPE, SLUG, eventBody, load, seedTeam } from './ingest.js';
import { countsBetween, figure, perUnit, totalOf, type StatementCounts } from './pg-statements.js';
import { startPostgresServer, type PostgresServer, type StatementTimes } from './postgres-server.js';
import { treeCpuMicros } from './proc-cpu.js';
import { median, percentile } from './stats.js';

const TRIGGERS = 10_000;
const ROUNDS = 3;
const DAEMONS = 3;
const CREATE_CONCURRENCY = 64;
/** between the last daemon being up (and the triggers moved) and the slot */
const LEAD_MS = 5_000;
const DRAIN_DEADLINE_MS = 60_000;
const TARGET_P99_MS = 1_000;
const INGEST_REQUESTS = 4_000;
const INGEST_SECONDS = 8;
const ADMIN_TOKEN = `svc_admin_${'b'.repeat(32)}`;
const MASTER_KEY = 'c'.repeat(64);
const READY = /^svc daemon listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
const SVC = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));

const silent = { info() {}, warn() {}, error() {} };

interface Daemon {
  child: ChildProcess;
  url: string;
}

/** One `svc daemon start` on `store`; `all` collects it so it is killed whatever happens. */
async function startDaemon(all: ChildProcess[], store: string, dataDir: string): Promise<Daemon> {
  const args = [SVC, 'daemon', 'start', '--store', store, '--data', dataDir, '--port', '0', '--log-level', 'warn', '--rate-limit', '10000000', '--admin-rate-limit', '10000000'];
  const child = spawn(process.execPath, args, { env: { ...process.env, SVC_ADMIN_TOKEN: ADMIN_TOKEN, SVC_MASTER_KEY: MASTER_KEY }, stdio: ['ignore', 'pipe', 'inherit'] });
  all.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('daemon did not start within 30 s')), 30_000);
    child.once('exit', (code) => reject(new Error(`daemon exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = READY.exec(line.trim());
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { child, url };
}

async function stopAll(all: ChildProcess[]): Promise<void> {
  await Promise.all(
    all.splice(0).map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const kill = setTimeout(() => c.kill('SIGKILL'), 10_000);
          c.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}

/**
 * The sessions a daemon started for schedule slots, from its own /metrics: a session the record
 * runner completes at once carries no claim, so the rows do not say which daemon stored it.
 */
async function scheduledStarts(d: Daemon): Promise<number> {
  const res = await fetch(`${d.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  const line = (await res.text()).split('\n').find((l) => l.startsWith('svc_sessions_started_total{') && l.includes('origin="schedule"'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

interface SchedulerRound {
  sessions: number;
  keys: number;
  lateness: number[];
  drainMs: number;
  /** the sessions each daemon started */
  split: number[];
  crashed: number;
  load: number;
  /** what the burst cost, from the slot until the count was reached and looked at again */
  cost: BurstCost;
}

/** What a burst cost: CPU of the daemons and of the database, its transactions and statements. */
interface BurstCost {
  daemonCpuMicros: number;
  databaseCpuMicros: number;
  committed: number;
  /** transactions rolled back: serialisation failures and deadlocks retried, unique keys broken */
  rolledBack: number;
  statements: StatementCounts;
}

/** The running totals a burst's cost is the difference of. */
async function costSoFar(pgServer: PostgresServer, database: string, daemons: readonly Daemon[]): Promise<BurstCost> {
  const [daemonCpu, databaseCpuMicros, tx, times] = await Promise.all([
    Promise.all(daemons.map((d) => treeCpuMicros(d.child.pid!))),
    pgServer.cpuMicros(),
    pgServer.query(database, 'SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = $1', [database]),
    pgServer.statementTimes(database),
  ]);
  const statements: StatementCounts = {};
  for (const [kind, t] of Object.entries(times)) statements[kind] = { n: t.calls, ms: t.ms };
  return {
    daemonCpuMicros: daemonCpu.reduce((a, b) => a + b, 0),
    databaseCpuMicros,
    committed: Number(tx.rows[0].xact_commit),
    rolledBack: Number(tx.rows[0].xact_rollback),
    statements,
  };
}

function costBetween(before: BurstCost, after: BurstCost): BurstCost {
  return {
    daemonCpuMicros: after.daemonCpuMicros - before.daemonCpuMicros,
    databaseCpuMicros: after.databaseCpuMicros - before.databaseCpuMicros,
    committed: after.committed - before.committed,
    rolledBack: after.rolledBack - before.rolledBack,
    statements: countsBetween(before.statements, after.statements),
  };
}

async function schedulerRound(pgServer: PostgresServer, dir: string, round: number): Promise<SchedulerRound> {
  const database = `svc_bench_fleet_${round}`;
  const url = await pgServer.createDatabase(database);
  const store = await openPostgresStore({ url, logger: silent });
  const children: ChildProcess[] = [];
  try {
    // Seeded with a slot far ahead, through the automation service with its scheduler stopped at once after.
    const services = buildServices({ store, clock: systemClock, options: { dataDir: dir, masterKey: MASTER_KEY }, logger: createLogger('silent') });
    const team = await services.teams.createTeam({ slug: 'bench' });
    const far = new Date(Date.now() + 24 * 3_600_000).toISOString();
    let next = 0;
    await Promise.all(
      Array.from({ length: CREATE_CONCURRENCY }, async () => {
        for (let i = next++; i < TRIGGERS; i = next++) {
          await services.automations.create(team.id, { name: `nightly-${i}`, prompt: `Summarise yesterday's activity for repository ${i}`, one_off_at: far } as never);
        }
      }),
    );
    await services.stop();
    const daemons: Daemon[] = [];
    for (let d = 0; d < DAEMONS; d++) daemons.push(await startDaemon(children, url, join(dir, `r${round}-d${d}`)));
    const slot = new Date(Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000);
    const slotIso = slot.toISOString();
    // One write moves every trigger to the slot; the publish tells every daemon's scheduler.
    await store.write(async (tx) => {
      for (const t of await tx.list('triggers', { team_id: team.id })) {
        tx.put('triggers', { ...t, one_off_at: slotIso, next_run_at: slotIso, status: 'active', lease_owner: null, lease_until: null });
      }
    });
    await store.publish('schedules');
    if (Date.now() >= slot.getTime()) throw new Error('moving the triggers overran the slot; raise LEAD_MS');
    const costBefore = await costSoFar(pgServer, database, daemons);
    await new Promise((r) => setTimeout(r, slot.getTime() - Date.now()));
    const load = loadavg()[0];
    const deadline = Date.now() + DRAIN_DEADLINE_MS;
    const count = async () => Number((await pgServer.query(database, "SELECT count(*) AS n FROM sessions WHERE idempotency_key LIKE 'schedule:%'")).rows[0].n);
    while (Date.now() < deadline && (await count()) < TRIGGERS) await new Promise((r) => setTimeout(r, 250));
    // A second look after the count is reached: a duplicate start would show up here.
    await new Promise((r) => setTimeout(r, 2_000));
    const cost = costBetween(costBefore, await costSoFar(pgServer, database, daemons));
    const { rows } = await pgServer.query(
      database,
      `SELECT idempotency_key, extract(epoch FROM started_at::timestamptz) * 1000 AS started
         FROM sessions WHERE idempotency_key LIKE 'schedule:%'`,
    );
    const keys = new Set<string>();
    const lateness: number[] = [];
    let last = slot.getTime();
    for (const r of rows as { idempotency_key: string; started: string | null }[]) {
      keys.add(r.idempotency_key);
      // schedule:{trigger id (a UUID, no colon)}:{slot ISO}
      const due = Date.parse(r.idempotency_key.slice(r.idempotency_key.indexOf(':', 'schedule:'.length) + 1));
      if (r.started === null) continue;
      const started = Number(r.started);
      lateness.push(started - due);
      last = Math.max(last, started);
    }
    return {
      sessions: rows.length,
      keys: keys.size,
      lateness,
      drainMs: last - slot.getTime(),
      split: (await Promise.all(daemons.map(scheduledStarts))).sort((a, b) => b - a),
      crashed: children.filter((c) => c.exitCode !== null || c.signalCode !== null).length,
      load,
      cost,
    };
  } finally {
    await stopAll(children);
    await store.close();
  }
}

interface IngestResult {
  daemons: number;
  ok: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
  statements: number;
  load: number;
}

const callsOf = (t: StatementTimes) => Object.values(t).reduce((a, c) => a + c.calls, 0);

/** Seeds a database through one daemon, then sends one load over `daemons` daemons on it. */
async function ingestRun(pgServer: PostgresServer, dir: string, daemons: number): Promise<IngestResult> {
  const database = `svc_bench_fleet_ingest_${daemons}`;
  const url = await pgServer.createDatabase(database);
  const children: ChildProcess[] = [];
  const pools: Pool[] = [];
  try {
    const fleet: Daemon[] = [];
    for (let d = 0; d < daemons; d++) fleet.push(await startDaemon(children, url, join(dir, `ingest${daemons}-d${d}`)));
    for (const d of fleet) pools.push(new Pool(new URL(d.url).origin, { connections: CONCURRENCY }));
    const prefix = new URL(fleet[0].url).pathname;
    const key = await seedTeam(pools[0], prefix, ADMIN_TOKEN);
    const path = `${prefix}/teams/${SLUG}/webhooks/events`;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    // Warm every daemon up alike before the timed load.
    await Promise.all(pools.map((p, i) => load(p, path, headers, (n) => eventBody(EVENT_TYPE, n, `warm${i}`), 300, 5, CONCURRENCY / daemons)));
    const before = callsOf(await pgServer.statementTimes(database));
    const load1 = loadavg()[0];
    const results = await Promise.all(
      pools.map((p, i) => load(p, path, headers, (n) => eventBody(EVENT_TYPE, n, `run${i}`), INGEST_REQUESTS / daemons, INGEST_SECONDS, CONCURRENCY / daemons)),
    );
    const after = callsOf(await pgServer.statementTimes(database));
    const ok = results.reduce((a, r) => a + r.ok, 0);
    return {
      daemons,
      ok,
      errors: results.reduce((a, r) => a + r.errors, 0),
      seconds: Math.max(...results.map((r) => r.seconds)),
      latenciesMs: results.flatMap((r) => r.latenciesMs),
      statements: (after - before) / Math.max(1, ok),
      load: load1,
    };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await stopAll(children);
  }
}

export async function run(): Promise<string> {
  const dir = await mkdtemp(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svc-bench-fleet-'));
  let postgres: PostgresServer | undefined;
  const rounds: SchedulerRound[] = [];
  const ingest: IngestResult[] = [];
  let pgSettings = '';
  try {
    postgres = await startPostgresServer();
    pgSettings = await postgres.settings();
    for (let r = 0; r < ROUNDS; r++) rounds.push(await schedulerRound(postgres, dir, r));
    ingest.push(await ingestRun(postgres, dir, 1));
    ingest.push(await ingestRun(postgres, dir, 2));
  } finally {
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return report(rounds, ingest, pgSettings);
}

function report(rounds: SchedulerRound[], ingest: IngestResult[], pgSettings: string): string {
  const ms = (v: number) => `${Math.round(v).toLocaleString('en')} ms`;
  const n = TRIGGERS.toLocaleString('en');
  const rate = (r: SchedulerRound) => r.sessions / Math.max(0.001, r.drainMs / 1000);
  const complete = rounds.every((r) => r.sessions === TRIGGERS && r.keys === TRIGGERS && r.crashed === 0);
  const p99 = median(rounds.map((r) => percentile(r.lateness, 99)));
  const perSecond = (r: IngestResult) => r.ok / Math.max(1e-9, r.seconds);
  const [one, two] = ingest;
  const last = rounds[rounds.length - 1];
  const perSlot = (micros: number) => `${Math.round(micros / TRIGGERS)} µs`;
  return [
    '## Several daemons on one PostgreSQL',
    '',
    `${DAEMONS} daemon processes (\`svc daemon start --store URL\`, record runner) on one PostgreSQL database (a server the bench starts on this machine,`,
    `reached over its Unix socket: ${pgSettings}). ${n} automations in one team, each with a one-off schedule trigger, seeded through the store`,
    `before the daemons start, then all moved to one slot ${LEAD_MS / 1000} s after the last daemon is up; ${ROUNDS} rounds, a fresh database each.`,
    `Each daemon leases the slots it can up to ${DEFAULT_LEAD_MS / 1000} s before their time (the scheduler's default) and starts their sessions at it: the`,
    'sessions/s are the starts alone, and the CPU columns count from the move on, the leases included.',
    'Sessions and distinct idempotency keys are counted in the database; lateness is `started_at` minus the slot read from the key',
    '`schedule:{trigger}:{slot}`; sessions/s is the sessions over the time from the slot to the last start; the split is the sessions each',
    'daemon started (its `svc_sessions_started_total{origin="schedule"}`), largest first.',
    '',
    '| Round | Sessions | Distinct keys | Sessions/s | Lateness p50 | Lateness p99 | Max | Split between daemons | Daemons\' CPU per slot | Database CPU per slot | Transactions committed / rolled back | Load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rounds.map(
      (r, i) =>
        `| ${i + 1} | ${r.sessions.toLocaleString('en')}${r.crashed ? ` (${r.crashed} daemon(s) exited)` : ''} | ${r.keys.toLocaleString('en')} | ${rate(r).toFixed(0)} | ` +
        `${ms(percentile(r.lateness, 50))} | ${ms(percentile(r.lateness, 99))} | ${ms(r.drainMs)} | ${r.split.map((x) => x.toLocaleString('en')).join(' / ')} | ` +
        `${perSlot(r.cost.daemonCpuMicros)} | ${perSlot(r.cost.databaseCpuMicros)} | ${r.cost.committed.toLocaleString('en')} / ${r.cost.rolledBack.toLocaleString('en')} | ${r.load.toFixed(1)} |`,
    ),
    '',
    `- Target p99 lateness under ${ms(TARGET_P99_MS)}, taken as the median p99 of the rounds (${ms(p99)}): **${complete && p99 < TARGET_P99_MS ? 'met' : 'not met'}**` +
      `${complete ? `; every round started exactly ${n} sessions, one per key` : '; NOT every round started exactly one session per slot'}; ` +
      `${median(rounds.map(rate)).toFixed(0)} sessions/s (median of the rounds).`,
    `- Where a burst's time goes (last round): CPU is counted from the move (the leases included) until the sessions were counted and looked at again 2 s later, ` +
      `all three daemons together and the database's processes, over the ${n} slots. Statements per slot: **${figure(totalOf(last.cost.statements) / TRIGGERS)}**: ` +
      `${perUnit(last.cost.statements, TRIGGERS)}. A rolled-back transaction is one the database refused (a serialisation failure or deadlock, run again) or a unique key broken.`,
    '',
    `Matched ingest: the ingest benchmark's team (1,000 event automations, 10 matching each event) seeded through one daemon, then`,
    `${CONCURRENCY} requests in flight (up to ${INGEST_REQUESTS.toLocaleString('en')} events or ${INGEST_SECONDS} s) sent to one daemon, and the same load split in half over two daemons on one`,
    'database (each run on a fresh database). Statements per matched event are every statement the database executed during the timed load',
    '(pg_stat_statements), over the events acknowledged.',
    '',
    '| Daemons | Acknowledged | Errors | Events/s | p50 | p99 | Statements per event | Load average |',
    '|---|---|---|---|---|---|---|---|',
    ...ingest.map(
      (r) =>
        `| ${r.daemons} | ${r.ok.toLocaleString('en')} | ${r.errors} | ${perSecond(r).toFixed(0)} | ${ms(percentile(r.latenciesMs, 50))} | ${ms(percentile(r.latenciesMs, 99))} | ` +
        `${figure(r.statements)} | ${r.load.toFixed(1)} |`,
    ),
    '',
    `- Two daemons against one: **${(perSecond(two) / perSecond(one)).toFixed(2)}×** the events/s. On this ${cpus().length}-core machine the database, the daemons and`,
    '  the load generator share the same cores, so the ratio shows contention between them, not how a fleet scales on machines of its own.',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write((await run()) + '\n');
}
