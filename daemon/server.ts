// Starts a daemon: lock the data folder, open the store, build the app, listen. One function
// serves `svc daemon start`, `svc dev`, the tests and the benchmarks.
import { randomUUID } from 'node:crypto';
import { buildApp, API_PREFIX } from './app.js';
import { systemClock } from './clock.js';
import type { DaemonOptions, RunningDaemon } from './config.js';
import { makeFolder } from './make-folder.js';
import { generateAdminToken, readOrCreateSecret } from './secrets/secret-file.js';
import { loadMasterKey } from './secrets/master-key.js';
import { parseMasterKey } from './secrets/sealer.js';
import { createLogger } from './logger.js';
import { buildServices } from './services.js';
import { InstanceClaims, lastInstanceOf } from './sessions/claims.js';
import { openStore, type JournalStore } from './store/index.js';
import { DaemonMetrics } from './metrics/metrics.js';
import { timedWrites } from './metrics/timed-store.js';
import { VERSION } from './routes/meta.js';
import { isPostgresUrl } from './store/store-url.js';
import type { Store } from './store/store.js';
import type { App } from './http/types.js';
import { watchConnections } from './http/stalled-connections.js';
import { acquireDataDirLock } from './store/lock.js';

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const postgresUrl = options.store !== undefined && isPostgresUrl(options.store) ? options.store : undefined;
  // `store` as a folder is the JSON-file store there, as `dataDir` is (CONTRACT §11).
  const dataDir = postgresUrl === undefined && options.store !== undefined ? options.store : options.dataDir;
  const opts: DaemonOptions = { host: '127.0.0.1', port: 8787, ...options, dataDir };
  if (opts.adminToken !== undefined) checkAdminToken(opts.adminToken);
  if (opts.masterKey !== undefined) parseMasterKey(opts.masterKey);

  await makeFolder(opts.dataDir, 0o700);
  const logger = createLogger(opts.logLevel ?? 'info', opts.logStream);
  const clock = opts.now ?? systemClock;
  const instanceId = randomUUID();
  const fileDir = postgresUrl === undefined ? opts.dataDir : undefined;
  let store: Store | undefined;
  // A database is shared by design (every promise holds across daemons); a folder is one daemon's.
  const releaseLock =
    fileDir === undefined
      ? async () => undefined
      : await acquireDataDirLock(fileDir, {
          logger: logger.child({ component: 'lock' }),
          // Another process may write the folder now: this daemon must not, or the journals interleave.
          onLost: () =>
            (store as JournalStore | undefined)?.refuseWrites(
              new Error('the data folder lock was lost (another process may be using the folder): this daemon takes no more writes; stop it'),
            ),
        });
  let app: App | undefined;
  try {
    const adminToken = opts.adminToken ?? (await readOrCreateSecret(opts.dataDir, 'admin-token', generateAdminToken));
    const storeLogger = logger.child({ component: 'store' });
    // (the PostgreSQL store, and its driver, loaded only by a daemon that uses it)
    const postgres = postgresUrl !== undefined ? await import('./store/postgres/postgres-store.js') : undefined;
    const openedStore: Store = (store =
      postgres !== undefined
        ? await postgres.openPostgresStore({ url: postgresUrl!, logger: storeLogger, retentionDays: opts.retentionDays, now: clock, poolSize: opts.poolSize })
        : await openStore({
            dataDir: fileDir!,
            logger: storeLogger,
            compactThresholdBytes: opts.compactThresholdBytes,
            retentionDays: opts.retentionDays,
            now: clock,
          }));
    const masterKey = await loadMasterKey(opts.dataDir, opts.masterKey, openedStore);
    const metrics = new DaemonMetrics({ instanceId, store: openedStore.kind, version: VERSION });
    if (postgres !== undefined && openedStore instanceof postgres.PostgresStore) metrics.watchPool(() => openedStore.poolCounts());
    // Services and routes write through it; the daemon itself closes the store it opened.
    const timedStore = timedWrites(openedStore, (wait, seconds) => metrics.storeWrite(wait, seconds));
    // A database is shared: this daemon's row is written before it stores a session it claims.
    const claims = new InstanceClaims({
      store: timedStore,
      clock,
      instanceId,
      claimMs: opts.leaseTtlMs,
      exclusive: openedStore.kind === 'file',
      previous: openedStore.kind === 'file' ? undefined : await lastInstanceOf(opts.dataDir, instanceId),
      log: logger.child({ component: 'sessions' }),
    });
    await claims.start();
    const services = buildServices({ store: timedStore, clock, options: { ...opts, masterKey }, logger, instanceId, claims, metrics });
    app = await buildApp({
      store: timedStore,
      instanceId,
      metrics,
      services,
      clock,
      adminToken,
      rateLimit: opts.rateLimit ?? 60,
      adminRateLimit: opts.adminRateLimit ?? 600,
      authFailureLimit: opts.authFailureLimit ?? 30,
      deliveryRateLimit: opts.deliveryRateLimit ?? 600,
      githubAppSecret: opts.githubWebhookSecret,
      logger,
    });
    // As soon as the stop begins, before the port closes: no more of the sessions a crash left
    // queued are handed over (they stay queued for the next start), so the stop waits only for
    // the hand-overs already under way; and the scheduler fires no more slots, giving back those
    // it leased ahead, so that other daemons on the store fire them on time while this one drains
    // its connections (services.stop() below waits for the slots in flight).
    app.addHook('preClose', (done) => {
      services.sessions.stopHandingOverLeftQueued();
      void services.scheduler.stop();
      done();
    });
    // Background work stops before the store closes, so nothing writes to a closed store.
    app.addHook('onClose', async () => {
      await services.stop();
      await openedStore.close();
    });

    const connections = watchConnections(app.server);
    // A retry of an event whose sessions a crash left queued must find them registered as being
    // handed over (it then waits for the runner's answer): no request before recovery has read them.
    await services.sessions.recoveryListed();
    await app.listen({ host: opts.host, port: opts.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : opts.port!;
    const hostForUrl = opts.host!.includes(':') ? `[${opts.host}]` : opts.host;

    const running = app;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${hostForUrl}:${port}${API_PREFIX}`,
      port,
      adminToken,
      close: () =>
        (closing ??= (async () => {
          const stopCutting = connections.cutStalledAfter(STALLED_CONNECTION_GRACE_MS);
          try {
            await running.close();
          } finally {
            stopCutting();
            await releaseLock();
          }
        })()),
    };
  } catch (err) {
    // Closing the app closes the store through its onClose hook; without an app, close the store.
    if (app) await app.close().catch(() => undefined);
    else await store?.close().catch(() => undefined);
    await releaseLock();
    throw err;
  }
}

/** How long a stop waits for connections that are not sending a request, or stall in one. */
const STALLED_CONNECTION_GRACE_MS = 3000;

/** Bytes of secret a chosen admin token must carry after its prefix: it guards every team. */
const MIN_ADMIN_TOKEN_SECRET = 16;

function checkAdminToken(token: string): void {
  if (!token.startsWith('svc_admin_')) throw new Error('SVC_ADMIN_TOKEN must start with svc_admin_');
  const secret = token.slice('svc_admin_'.length);
  if (secret.length < MIN_ADMIN_TOKEN_SECRET || /\s/.test(secret)) {
    throw new Error(`SVC_ADMIN_TOKEN needs at least ${MIN_ADMIN_TOKEN_SECRET} characters after svc_admin_, without spaces (it guards every team); leave it unset to have one generated`);
  }
}
