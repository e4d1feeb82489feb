// The daemon's services, built once per instance and handed to the routes.
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { DaemonOptions } from './config.js';
import type { EventMetrics, SchedulerMetrics, SessionMetrics } from './metrics/reporters.js';
import type { Store } from './store/store.js';
import { AutomationService } from './automations/service.js';
import { publicApiBase } from './connections/api-base.js';
import { ConnectionService } from './connections/service.js';
import { EventService } from './dispatch/service.js';
import { correctRefusedEventReceipts } from './dispatch/recovered-refusals.js';
import { EnvVarService } from './env-vars/service.js';
import { ProjectService } from './projects/service.js';
import { runnerFactory } from './runner/factory.js';
import { Scheduler } from './scheduler/scheduler.js';
import { Sealer } from './secrets/sealer.js';
import { AutomationHealth } from './sessions/automation-health.js';
import { InstanceClaims } from './sessions/claims.js';
import { SessionService } from './sessions/service.js';
import { SkillScanner } from './skills/scanner.js';
import { storeScanCache } from './skills/store-cache.js';
import { TeamService } from './teams/service.js';

export interface Services {
  teams: TeamService;
  automations: AutomationService;
  envVars: EnvVarService;
  /** connections, their secrets and delivery log (CONTRACT §12) */
  connections: ConnectionService;
  /** the API base URL of `--public-url`, which webhook URLs start with; undefined: the request's own */
  publicApiBase: string | undefined;
  projects: ProjectService;
  skills: SkillScanner;
  sessions: SessionService;
  events: EventService;
  /** run outcomes -> automation consecutive_failures / last_error / auto-disable */
  automationHealth: AutomationHealth;
  scheduler: Scheduler;
  /** stops background work (scheduler, runners) before the store closes */
  stop: () => Promise<void>;
}

export interface ServiceDeps {
  store: Store;
  clock: Clock;
  options: DaemonOptions;
  /** what /metrics counts of events, sessions and the scheduler (none when absent) */
  metrics?: EventMetrics & SessionMetrics & SchedulerMetrics;
  logger: Logger;
  /** this daemon's id, written as `lease_owner` */
  instanceId?: string;
  /**
   * this daemon's claims on its sessions, already started (its row written) so that no session it
   * stores is ever claimed without one; made and started here when not given
   */
  claims?: InstanceClaims;
}

export function buildServices(deps: ServiceDeps): Services {
  const { store, clock } = deps;
  // Every daemon's scheduler on this store hears of a change made here, this one's at once.
  const schedules = { schedulesChanged: () => store.publish('schedules') };
  const skills = new SkillScanner({
    apiUrl: deps.options.githubApiUrl,
    rawUrl: deps.options.githubRawUrl,
    token: deps.options.githubToken,
    cache: storeScanCache(store, clock),
    logger: deps.logger,
  });
  const sealer = new Sealer(deps.options.masterKey!);
  const envVars = new EnvVarService(store, clock, sealer);
  const apiBase = publicApiBase(deps.options.publicUrl);
  const automationHealth = new AutomationHealth(store, clock, schedules);
  const claims = deps.claims ?? startedClaims(deps);
  const sessions = new SessionService({
    store,
    clock,
    claims,
    runner: runnerFactory({ options: deps.options, envVars, log: deps.logger.child({ component: 'runner' }) }),
    health: automationHealth,
    log: deps.logger.child({ component: 'sessions' }),
    refusedAtRecovery: correctRefusedEventReceipts,
    metrics: deps.metrics,
  });
  // Sessions the previous daemon process left queued or running are settled now, and on a shared
  // database those of any daemon whose claim expires from now on (see recover()).
  void sessions.recover();
  const schedulerLog = deps.logger.child({ component: 'scheduler' });
  const scheduler: Scheduler = new Scheduler({
    store,
    clock,
    startSessions: (reqs) => sessions.startMany(reqs),
    catchUpWindowMs: deps.options.catchUpWindowMs,
    // A data folder is locked to this daemon: leases in it are a dead daemon's. A database is
    // shared: a lease there may be a live daemon's, and is taken over only once it expires.
    exclusive: store.kind === 'file',
    instanceId: deps.instanceId,
    leaseMs: deps.options.leaseTtlMs,
    log: schedulerLog,
    metrics: deps.metrics,
  });
  // The store is open: missed slots are dealt with now, then the scheduler sleeps until the next.
  scheduler.start().catch((err) => schedulerLog.error({ err }, 'scheduler failed to start'));
  return {
    teams: new TeamService(store, clock),
    automations: new AutomationService(store, clock, schedules),
    envVars,
    connections: new ConnectionService(store, clock, sealer),
    publicApiBase: apiBase,
    projects: new ProjectService(store, clock, schedules),
    skills,
    sessions,
    events: new EventService(store, clock, sessions, deps.metrics),
    automationHealth,
    scheduler,
    stop: async () => {
      // First: no new slots fire, and the ones in flight finish while the runner still takes them.
      await scheduler.stop();
      await skills.close();
      await sessions.stop();
    },
  };
}

function startedClaims(deps: ServiceDeps): InstanceClaims {
  const claims = new InstanceClaims({
    store: deps.store,
    clock: deps.clock,
    instanceId: deps.instanceId,
    claimMs: deps.options.leaseTtlMs,
    exclusive: deps.store.kind === 'file',
    log: deps.logger.child({ component: 'sessions' }),
  });
  claims.start().catch((err: unknown) => deps.logger.error({ err }, 'could not record this daemon\'s claim on its sessions'));
  return claims;
}
