// Scheduler benchmark (issue 3, point 8): 10,000 schedule triggers due at the same instant, and
// how late their sessions start (session `started_at` minus the slot). The daemon's own services
// run in this process exactly as startDaemon builds them (journal store with synced writes, record
// runner, the scheduler with its defaults); there is no HTTP in the path being measured.
// The burst is repeated a few times on the same store so one noisy moment on a shared machine
// does not decide the result. `node dist/bench/scheduler.js` runs it alone (SVC_BENCH_PROF=DIR also
// writes a CPU profile of each burst into DIR); bench/run.ts
// imports `run`.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { systemClock } from '../daemon/clock.js';
import { createLogger } from '../daemon/logger.js';
import { DEFAULT_CONCURRENCY } from '../daemon/scheduler/scheduler.js';
import { generateMasterKey } from '../daemon/secrets/secret-file.js';
import { buildServices, type Services } from '../daemon/services.js';
import { openStore, type JournalStore } from '../daemon/store/index.js';
import { median, percentile } from './stats.js';

const TRIGGERS = 10_000;
const ROUNDS = 3;
const CREATE_CONCURRENCY = 64;
/** time between moving every trigger to the slot and the slot itself */
const LEAD_MS = 2_000;
const DRAIN_DEADLINE_MS = 180_000;
const TARGET_P99_MS = 1_000;

const silent = { info() {}, warn() {}, error() {} };

interface Round {
  lateness: number[];
  storedLateness: number[];
  drainMs: number;
  recorded: number;
  cpuMsPerSlot: number;
  load: number;
}

/** With SVC_BENCH_PROF=DIR, a CPU profile of each burst (not of the setup) is written into DIR. */
async function startProfile(): Promise<{ stop(name: string): Promise<void> } | null> {
  const dir = process.env.SVC_BENCH_PROF;
  if (!dir) return null;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(name) {
      const { profile } = await session.post('Profiler.stop');
      await writeFile(join(dir, `scheduler-${name.replace(/[:.]/g, '-')}.cpuprofile`), JSON.stringify(profile));
      session.disconnect();
    },
  };
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

/** Moves every trigger to one slot a few seconds ahead, waits for the burst, measures it. */
async function burst(store: JournalStore, services: Services, teamId: string): Promise<Round> {
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
  if (Date.now() >= slot.getTime()) throw new Error('setup overran the slot; raise LEAD_MS');

  await new Promise((r) => setTimeout(r, slot.getTime() - Date.now()));
  const profiler = await startProfile();
  const load = loadavg()[0];
  const cpuBefore = process.cpuUsage();
  const deadline = Date.now() + DRAIN_DEADLINE_MS;
  const started = async () =>
    store.read(async (tx) => (await tx.list('sessions', { team_id: teamId })).filter((s) => s.idempotency_key?.endsWith(slotIso)).length);
  // The scheduler says when it has nothing left in flight; the sessions are counted only then.
  do {
    await new Promise((r) => setTimeout(r, 100));
    await services.scheduler.idle();
  } while (Date.now() < deadline && (await started()) < TRIGGERS);
  const cpu = process.cpuUsage(cpuBefore);
  await profiler?.stop(slotIso);

  const sessions = (await store.read((tx) => tx.list('sessions', { team_id: teamId }))).filter((s) => s.idempotency_key?.endsWith(slotIso));
  const recorded = await store.read(async (tx) => (await tx.list('triggers', { team_id: teamId })).filter((t) => t.status === 'completed').length);
  const lateness: number[] = [];
  const storedLateness: number[] = [];
  let last = 0;
  for (const s of sessions) {
    // schedule:{trigger id (a UUID, no colon)}:{slot ISO}
    const key = s.idempotency_key!;
    const due = Date.parse(key.slice(key.indexOf(':', 'schedule:'.length) + 1));
    const started = Date.parse(s.started_at ?? s.updated_at);
    lateness.push(started - due);
    storedLateness.push(Date.parse(s.created_at) - due);
    last = Math.max(last, started);
  }
  return { lateness, storedLateness, drainMs: last - slot.getTime(), recorded, cpuMsPerSlot: (cpu.user + cpu.system) / 1000 / TRIGGERS, load };
}

export async function run(): Promise<string> {
  const dir = await mkdtemp(join(process.env.SVC_BENCH_DIR ?? tmpdir(), 'svc-bench-scheduler-'));
  const store = await openStore({ dataDir: dir, logger: silent });
  const services = buildServices({ store, clock: systemClock, options: { dataDir: dir, masterKey: generateMasterKey() }, logger: createLogger('silent') });
  const rounds: Round[] = [];
  let setupMs = 0;
  try {
    const t0 = performance.now();
    const team = await services.teams.createTeam({ slug: 'bench' });
    await createAutomations(services, team.id);
    setupMs = performance.now() - t0;
    // Start every round from a compacted store, as a daemon that has been running a while would.
    await store.compact();
    for (let r = 0; r < ROUNDS; r++) {
      rounds.push(await burst(store, services, team.id));
      await store.compact();
    }
  } finally {
    await services.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }

  const ms = (v: number) => `${Math.round(v).toLocaleString('en')} ms`;
  const p99s = rounds.map((r) => percentile(r.lateness, 99));
  const complete = rounds.every((r) => r.lateness.length === TRIGGERS && r.recorded === TRIGGERS);
  const medianP99 = median(p99s);
  const met = complete && medianP99 < TARGET_P99_MS;
  const n = TRIGGERS.toLocaleString('en');
  return [
    '## Scheduler',
    '',
    `${n} automations in one team, each with one schedule trigger, all due at the same instant;`,
    `the burst is run ${ROUNDS} times. The daemon's services run in-process as startDaemon builds them`,
    `(journal store with synced writes, record runner, scheduler defaults: up to ${DEFAULT_CONCURRENCY.toLocaleString('en')} session starts in`,
    'flight, leases and run records written 512 to a transaction). Every slot goes through lease,',
    'idempotent session start and run record. Lateness is the session\'s `started_at` (set when the',
    'runner has taken the first turn) minus its slot, read from the idempotency key',
    '`schedule:{trigger}:{slot}`; "stored" is when the session was durably queued.',
    '',
    '| Round | Sessions | Lateness p50 | Lateness p99 | Max | Stored p50 / p99 | CPU per slot | Load average |',
    '|---|---|---|---|---|---|---|---|',
    ...rounds.map(
      (r, i) =>
        `| ${i + 1} | ${r.lateness.length.toLocaleString('en')} (recorded ${r.recorded.toLocaleString('en')}) | ${ms(percentile(r.lateness, 50))} | ${ms(percentile(r.lateness, 99))} | ${ms(r.drainMs)} | ${ms(percentile(r.storedLateness, 50))} / ${ms(percentile(r.storedLateness, 99))} | ${(r.cpuMsPerSlot * 1000).toFixed(0)} µs | ${r.load.toFixed(1)} |`,
    ),
    '',
    `Target: p99 lateness under ${ms(TARGET_P99_MS)}, taken as the median p99 of the rounds (${ms(medianP99)}): **${met ? 'met' : 'not met'}**.`,
    `The burst is CPU-bound on one event loop (CPU per slot above covers the lease, the session's two`,
    `writes, the runner hand-over and the run record), so its lateness grows with that cost times the`,
    `number of slots, and with whatever else the ${cpus().length} cores are doing (the load average column).`,
    `Setup: ${n} automations created through the automation service in ${ms(setupMs)}.`,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write((await run()) + '\n');
}
