// Scheduler benchmark (issue 3, point 8; issue 26, point 6): 10,000 schedule triggers due at the
// same instant, and how late their sessions start (session `started_at` minus the slot), on each
// store: the JSON-file store (synced writes) and PostgreSQL (a server of the bench's own on this
// machine, `synchronous_commit` on). The daemon's own services run in this process exactly as
// startDaemon builds them (record runner, the scheduler with its defaults); there is no HTTP in
// the path being measured. The burst is repeated a few times on each store, the stores taking
// turns, so one noisy moment on a shared machine does not decide the result.
// `node dist/bench/scheduler.js` runs it alone (SVC_BENCH_PROF=DIR also writes a CPU profile of
// each burst into DIR); bench/run.ts imports `run`.
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../daemon/clock.js';
import { createLogger } from '../daemon/logger.js';
import { DEFAULT_CONCURRENCY, DEFAULT_LEAD_MS } from '../daemon/scheduler/scheduler.js';
import { generateMasterKey } from '../daemon/secrets/secret-file.js';
import { buildServices, type Services } from '../daemon/services.js';
import { openStore } from '../daemon/store/index.js';
import { openPostgresStore } from '../daemon/store/postgres/postgres-store.js';
import type { Store } from '../daemon/store/store.js';
import { startProfiling, type ProfileSummary } from './cpu-profile.js';
import { addCounts, countsBetween, countStatements, figure, perUnit, totalOf, tripsOf, type StatementCounter, type StatementCounts } from './pg-statements.js';
import { startPostgresServer, type PostgresServer } from './postgres-server.js';
import { median, percentile } from './stats.js';

const TRIGGERS = 10_000;
const ROUNDS = 3;
const CREATE_CONCURRENCY = 64;
/** time between moving every trigger to the slot and the slot itself (moving 10,000 triggers on PostgreSQL takes seconds) */
const LEAD_MS = 10_000;
const DRAIN_DEADLINE_MS = 180_000;
const TARGET_P99_MS = 1_000;
/** what Hatchet publishes for an 8-vCPU database, runs started per second */
const HATCHET_RUNS_PER_SECOND = 2_000;

const silent = { info() {}, warn() {}, error() {} };

interface Round {
  lateness: number[];
  storedLateness: number[];
  drainMs: number;
  recorded: number;
  cpuMsPerSlot: number;
  /** the database server's CPU per slot, ms (PostgreSQL only) */
  dbCpuMsPerSlot: number;
  statements: StatementCounts;
  profile?: ProfileSummary;
  load: number;
}

/** One store under test, with the services running on it. */
interface Subject {
  name: string;
  store: Store;
  services: Services;
  teamId: string;
  setupMs: number;
  rounds: Round[];
  /** CPU time of the database server so far, µs (PostgreSQL only) */
  dbCpuMicros?: () => Promise<number>;
}

async function createAutomations(services: Services, teamId: string): Promise<void> {
  // Through the automation service, with a one-off far ahead; each round then moves them all.
  const far = new Date(Date.now() + 24 * 3_600_000).toISOString();
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATE_CONCURRENCY }, async () => {
      for (let i = next++; i < TRIGGERS; i = next++) {
        await services.automations.create(teamId, { name: `nightly-${i}`, prompt: `Summarise yesterday's activity for repository ${i}`, one_off_at: far } as never);
      }
    }),
  );
}

async function prepare(name: string, dataDir: string, store: Store, dbCpuMicros?: () => Promise<number>): Promise<Subject> {
  const services = buildServices({ store, clock: systemClock, options: { dataDir, masterKey: generateMasterKey() }, logger: createLogger('silent') });
  const t0 = performance.now();
  const team = await services.teams.createTeam({ slug: 'bench' });
  await createAutomations(services, team.id);
  // Start every round from a compacted store, as a daemon that has been running a while would.
  await store.compact();
  return { name, store, services, teamId: team.id, setupMs: performance.now() - t0, rounds: [], dbCpuMicros };
}

/** Moves every trigger to one slot a few seconds ahead, waits for the burst, measures it. */
async function burst(s: Subject, statements: StatementCounter): Promise<Round> {
  const { store, services, teamId } = s;
  const slot = new Date(Math.ceil((Date.now() + LEAD_MS) / 1000) * 1000);
  const slotIso = slot.toISOString();
  // One write leaves the state 10,000 updates (or creates) would, without waiting for them.
  await store.write(async (tx) => {
    for (const t of await tx.list('triggers', { team_id: teamId })) {
      tx.put('triggers', { ...t, one_off_at: slotIso, next_run_at: slotIso, status: 'active', lease_owner: null, lease_until: null });
    }
  });
  services.scheduler.schedulesChanged();
  await services.scheduler.idle();
  const before = await store.read((tx) => tx.count('sessions', { team_id: teamId }));
  // Measured from a little before the scheduler leases the slots ahead of their time: the CPU
  // per slot is the lease's, the start's and the record's.
  const measureFrom = slot.getTime() - DEFAULT_LEAD_MS - 500;
  if (Date.now() >= measureFrom) throw new Error('setup overran the start of the measurement; raise LEAD_MS');
  await new Promise((r) => setTimeout(r, measureFrom - Date.now()));
  const profiling = process.env.SVC_BENCH_PROF ? await startProfiling() : undefined;
  const load = loadavg()[0];
  const cpuBefore = process.cpuUsage();
  const dbBefore = (await s.dbCpuMicros?.()) ?? 0;
  const statementsBefore = statements.snapshot();
  const deadline = Date.now() + DRAIN_DEADLINE_MS;
  // The scheduler says when it has nothing left in flight; the sessions are counted only then.
  do {
    await new Promise((r) => setTimeout(r, 100));
    await services.scheduler.idle();
  } while (Date.now() < deadline && (await store.read((tx) => tx.count('sessions', { team_id: teamId }))) - before < TRIGGERS);
  const statementsAfter = statements.snapshot();
  const cpu = process.cpuUsage(cpuBefore);
  const dbCpuMicros = ((await s.dbCpuMicros?.()) ?? 0) - dbBefore;
  const profile = await profiling?.stop(`scheduler-${s.name}-${slotIso}`);

  const sessions = (await store.read((tx) => tx.list('sessions', { team_id: teamId }))).filter((x) => x.idempotency_key?.endsWith(slotIso));
  const recorded = await store.read(async (tx) => (await tx.list('triggers', { team_id: teamId })).filter((t) => t.status === 'completed').length);
  const lateness: number[] = [];
  const storedLateness: number[] = [];
  let last = 0;
  for (const x of sessions) {
    // schedule:{trigger id (a UUID, no colon)}:{slot ISO}
    const key = x.idempotency_key!;
    const due = Date.parse(key.slice(key.indexOf(':', 'schedule:'.length) + 1));
    const started = Date.parse(x.started_at ?? x.updated_at);
    lateness.push(started - due);
    storedLateness.push(Date.parse(x.created_at) - due);
    last = Math.max(last, started);
  }
  return {
    lateness,
    storedLateness,
    drainMs: last - slot.getTime(),
    recorded,
    cpuMsPerSlot: (cpu.user + cpu.system) / 1000 / TRIGGERS,
    dbCpuMsPerSlot: dbCpuMicros / 1000 / TRIGGERS,
    statements: countsBetween(statementsBefore, statementsAfter),
    profile,
    load,
  };
}

export async function run(): Promise<string> {
  const dir = await mkdtemp(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svc-bench-scheduler-'));
  const statements = countStatements();
  let postgres: PostgresServer | undefined;
  const subjects: Subject[] = [];
  let pgSettings = '';
  try {
    postgres = await startPostgresServer();
    pgSettings = await postgres.settings();
    subjects.push(await prepare('JSON file', dir, await openStore({ dataDir: dir, logger: silent })));
    const url = await postgres.createDatabase('svc_bench_scheduler');
    const pgServer = postgres;
    subjects.push(await prepare('PostgreSQL', dir, await openPostgresStore({ url, logger: silent }), () => pgServer.cpuMicros()));
    for (let r = 0; r < ROUNDS; r++) {
      for (const s of subjects) {
        s.rounds.push(await burst(s, statements));
        await s.store.compact();
      }
    }
  } finally {
    for (const s of subjects) {
      await s.services.stop();
      await s.store.close();
    }
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  }
  return report(subjects, pgSettings);
}

function report(subjects: Subject[], pgSettings: string): string {
  const [file, postgres] = subjects;
  const ms = (v: number) => `${Math.round(v).toLocaleString('en')} ms`;
  const n = TRIGGERS.toLocaleString('en');
  const complete = (s: Subject) => s.rounds.every((r) => r.lateness.length === TRIGGERS && r.recorded === TRIGGERS);
  const medianP99 = (s: Subject) => median(s.rounds.map((r) => percentile(r.lateness, 99)));
  const sessionsPerSecond = (r: Round) => TRIGGERS / Math.max(0.001, r.drainMs / 1000);
  const medianRate = (s: Subject) => median(s.rounds.map(sessionsPerSecond));
  const fileMet = complete(file) && medianP99(file) < TARGET_P99_MS;
  const statementsOf = postgres.rounds.reduce<StatementCounts>((acc, r) => addCounts(acc, r.statements), {});
  const slots = TRIGGERS * postgres.rounds.length;
  const round = postgres.rounds[postgres.rounds.length - 1];
  return [
    '## Scheduler',
    '',
    `${n} automations in one team, each with one schedule trigger, all due at the same instant; the burst is run ${ROUNDS} times on each store,`,
    `the stores taking turns. The daemon's services run in-process as startDaemon builds them (record runner, scheduler defaults: up to`,
    `${DEFAULT_CONCURRENCY.toLocaleString('en')} session starts in flight, slots leased ${DEFAULT_LEAD_MS / 1000} s before their time, leases and run records written 512 to a`,
    `transaction), one set on the JSON-file store (synced writes), one on PostgreSQL (a server the bench starts on this machine, reached over its Unix socket:`,
    `${pgSettings}). Every slot goes through lease (before its time), idempotent session start (at its time) and run record. Lateness is the`,
    'session\'s `started_at` (set when the runner has taken the first turn) minus its slot, read from the idempotency key `schedule:{trigger}:{slot}`;',
    '"stored" is when the session was durably queued. Sessions/s is the burst\'s sessions over the time from the slot to the last one\'s start;',
    'CPU is counted from half a second before the leases begin, so it covers all three steps.',
    '',
    '| Store | Round | Sessions | Sessions/s | Lateness p50 | Lateness p99 | Max | Stored p50 / p99 | CPU per slot (this process) | database CPU per slot | Load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...subjects.flatMap((s) =>
      s.rounds.map(
        (r, i) =>
          `| ${s.name} | ${i + 1} | ${r.lateness.length.toLocaleString('en')} (recorded ${r.recorded.toLocaleString('en')}) | ${sessionsPerSecond(r).toFixed(0)} | ` +
          `${ms(percentile(r.lateness, 50))} | ${ms(percentile(r.lateness, 99))} | ${ms(r.drainMs)} | ${ms(percentile(r.storedLateness, 50))} / ${ms(percentile(r.storedLateness, 99))} | ` +
          `${(r.cpuMsPerSlot * 1000).toFixed(0)} µs | ${s === postgres ? `${(r.dbCpuMsPerSlot * 1000).toFixed(0)} µs` : '–'} | ${r.load.toFixed(1)} |`,
      ),
    ),
    '',
    `- JSON-file store: target p99 lateness under ${ms(TARGET_P99_MS)}, taken as the median p99 of the rounds (${ms(medianP99(file))}): **${fileMet ? 'met' : 'not met'}**; ` +
      `${medianRate(file).toFixed(0)} sessions/s (median of the rounds).`,
    `- PostgreSQL: median p99 lateness ${ms(medianP99(postgres))}${complete(postgres) ? '' : ' (NOT every slot started and recorded)'}, ` +
      `**${medianRate(postgres).toFixed(0)} sessions/s** (median of the rounds), ${((medianRate(postgres) / medianRate(file)) * 100).toFixed(1)}% of the JSON-file store's ` +
      `(Hatchet publishes about ${HATCHET_RUNS_PER_SECOND.toLocaleString('en')} runs/s on an 8-vCPU database).`,
    `- Statements per slot on PostgreSQL: **${figure(totalOf(statementsOf) / slots)}** in **${figure(tripsOf(statementsOf) / slots)}** round trips: ${perUnit(statementsOf, slots)}.`,
    `- A burst is CPU-bound: this process's CPU per slot covers the lease, the session's write, the runner hand-over and the run record; ` +
      `on PostgreSQL the database's processes spend the CPU in the last column besides, on the same ${cpus().length} cores. Lateness grows ` +
      'with that cost times the number of slots, and with whatever else the cores are doing (the load average column).' +
      (round.profile ? ` This process's CPU profile of the last PostgreSQL burst, by what the code belongs to: ${round.profile.parts.slice(0, 6).map((p) => `${p.part} ${(p.share * 100).toFixed(1)}%`).join(', ')}.` : ''),
    `- Setup: ${n} automations created through the automation service in ${subjects.map((s) => `${ms(s.setupMs)} on ${s.name}`).join(', ')}.`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write((await run()) + '\n');
}
