// GET /metrics (CONTRACT §11): the admin token only, Prometheus text format, and series that
// count what the daemon did, each labelled with the daemon's id.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockInOneWindow, createTeam, startTestDaemon, type Requester, type TestDaemon } from '../helpers/daemon.js';
import { parseExposition, samplesOf, valueOf, type Sample } from '../helpers/prometheus-text.js';
import { deliveryOf, PROVIDER_CASES } from '../helpers/provider-deliveries.js';
import { testStoreKind } from '../helpers/test-store.js';

const EVENTS_ROUTE = '/api/v1/teams/:teamSlug/webhooks/events';
/** requests per minute per team key: enough for one test's own key, and a 429 after */
const RATE_LIMIT = 6;

let d: TestDaemon;
let instance: string;

beforeAll(async () => {
  // The 429 test counts its key's requests in one window.
  d = await startTestDaemon({ rateLimit: RATE_LIMIT, now: clockInOneWindow() });
  instance = (await d.as(null)('GET', '/health')).body.data.instance;
});
afterAll(() => d.destroy());

async function scrape(daemon: TestDaemon = d): Promise<Sample[]> {
  const res = await daemon.admin('GET', '/metrics');
  expect(res.status).toBe(200);
  return parseExposition(res.body as string);
}

/** How much each named sample grew between two scrapes. */
const grew = (before: Sample[], after: Sample[]) => (name: string, labels: Record<string, string> = {}) => valueOf(after, name, labels) - valueOf(before, name, labels);

describe('GET /metrics', () => {
  it('refuses a request without the admin token, a team key included, with 401', async () => {
    const { key } = await createTeam(d, 'outsider');
    for (const token of [null, key, 'svc_admin_not-the-token-of-this-daemon']) {
      const res = await d.as(token)('GET', '/metrics');
      expect([token, res.status, res.body.error?.code]).toEqual([token, 401, 'UNAUTHORIZED']);
    }
  });

  it("answers Prometheus text format, every series labelled with the daemon's id as /health gives it", async () => {
    const res = await d.admin('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4(;|$)/);
    const samples = parseExposition(res.body as string);
    expect(samples.length).toBeGreaterThan(20);
    const foreign = samples.filter((s) => s.labels.svc_instance !== instance);
    expect(foreign).toEqual([]);
    expect(samples.some((s) => 'instance' in s.labels)).toBe(false);
    // the process itself: CPU, memory and event loop lag
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(samplesOf(samples, name), name).toHaveLength(1);
    }
    expect(samplesOf(samples, 'svc_info')).toEqual([{ name: 'svc_info', labels: { svc_instance: instance, version: expect.stringMatching(/^\d+\.\d+\.\d+$/), store: testStoreKind() }, value: 1 }]);
  });

  it('counts events received, dispatched and rejected, the sessions they start, and requests by route pattern and status', async () => {
    const slug = 'metered';
    const { api } = await createTeam(d, slug);
    const created = await api('POST', `/teams/${slug}/automations`, { name: 'on deploy', prompt: 'p', triggers: [{ kind: 'event', event_type: 'deploy.finished' }] });
    expect(created.status).toBe(201);
    const before = await scrape();

    const send = (body: object, query = '') => api('POST', `/teams/${slug}/webhooks/events${query}`, body);
    expect((await send({ event_type: 'deploy.finished', id: 'evt-1' })).body.data.accepted).toBe(true);
    // the same event id again: dispatched to the session the first delivery started, none new
    expect((await send({ event_type: 'deploy.finished', id: 'evt-1' })).body.data.accepted).toBe(true);
    expect((await send({ event_type: 'build.started', id: 'evt-2' })).body.data.accepted).toBe(false);
    expect((await send({ event_type: 'deploy.finished', id: 'evt-3' }, '?dry_run=true')).body.data.accepted).toBe(true);
    const badKey = await d.as('svc_team_0000000000000000000000000000000000')('POST', `/teams/${slug}/webhooks/events`, { event_type: 'deploy.finished' });
    expect(badKey.status).toBe(401);
    expect((await d.as(null)('GET', `/teams/${slug}/no-such-thing/evt-1`)).status).toBe(404);

    const after = await scrape();
    const delta = grew(before, after);
    expect({
      received: delta('svc_events_received_total'),
      dispatched: delta('svc_events_dispatched_total'),
      unmatched: delta('svc_events_rejected_total', { reason: 'unmatched' }),
      refused: delta('svc_events_rejected_total', { reason: 'refused' }),
      startedByEvent: delta('svc_sessions_started_total', { origin: 'event' }),
      startedOtherwise: delta('svc_sessions_started_total', { origin: 'api' }) + delta('svc_sessions_started_total', { origin: 'schedule' }),
      // the record runner answers at once: the session is complete as it starts
      completed: delta('svc_sessions_finished_total', { outcome: 'completed' }),
      failed: delta('svc_sessions_finished_total', { outcome: 'failed' }),
    }).toEqual({ received: 3, dispatched: 2, unmatched: 1, refused: 0, startedByEvent: 1, startedOtherwise: 0, completed: 1, failed: 0 });

    // four answers of the events route: three sent (the dry run is a request too), one bad key
    expect(delta('svc_http_requests_total', { method: 'POST', route: EVENTS_ROUTE, status: '200' })).toBe(4);
    expect(delta('svc_http_requests_total', { method: 'POST', route: EVENTS_ROUTE, status: '401' })).toBe(1);
    expect(delta('svc_http_request_duration_seconds_count', { method: 'POST', route: EVENTS_ROUTE, status: '200' })).toBe(4);
    expect(delta('svc_http_requests_total', { method: 'GET', route: '(unmatched)', status: '404' })).toBe(1);
    // Routes are the declared patterns: no slug, id or event id of a URL becomes a label value.
    const routes = new Set(samplesOf(after, 'svc_http_requests_total').map((s) => s.labels.route));
    expect(routes).toContain('/api/v1/admin/teams');
    for (const route of routes) expect(route).toMatch(/^(\(unmatched\)|\/api\/v1(\/(:?[a-zA-Z]+|[a-z-]+))*(\.json)?)$/);
    expect([...routes].filter((r) => /metered|evt-|outsider/.test(r))).toEqual([]);

    // every write the daemon made went through the timed store
    const writes = valueOf(after, 'svc_store_write_duration_seconds_count', { store: testStoreKind(), wait: 'durable' });
    expect(writes).toBeGreaterThan(0);
    expect(valueOf(after, 'svc_store_write_duration_seconds_bucket', { store: testStoreKind(), wait: 'durable', le: '+Inf' })).toBe(writes);
  });

  it('counts answers of 429, whichever route gave them', async () => {
    const { api } = await createTeam(d, 'limited');
    const before = await scrape();
    const statuses: number[] = [];
    for (let i = 0; i <= RATE_LIMIT; i++) statuses.push((await api('GET', '/teams/limited/automations')).status);
    expect(statuses).toEqual([...Array(RATE_LIMIT).fill(200), 429]);
    const delta = grew(before, await scrape());
    expect(delta('svc_http_rate_limited_total')).toBe(1);
    expect(delta('svc_http_requests_total', { method: 'GET', route: '/api/v1/teams/:teamSlug/automations', status: '429' })).toBe(1);
  });

  it('declares, before any is counted, every outcome dashboards may ask for, and deliveries by provider and outcome', async () => {
    const res = await d.admin('GET', '/metrics');
    const text = res.body as string;
    const samples = parseExposition(text);
    for (const outcome of ['completed', 'failed', 'cancelled']) expect(samplesOf(samples, 'svc_sessions_finished_total', { outcome })).toHaveLength(1);
    for (const reason of ['unmatched', 'refused', 'not_admitted', 'error']) expect(samplesOf(samples, 'svc_events_rejected_total', { reason })).toHaveLength(1);
    expect(samplesOf(samples, 'svc_scheduler_lateness_seconds_count')).toHaveLength(1);
    expect(samplesOf(samples, 'svc_scheduler_leases_taken_over_total')).toHaveLength(1);
    expect(text).toContain('# TYPE svc_deliveries_total counter');
  });

  it('counts provider deliveries by provider and what the log says of them', async () => {
    const { api } = await createTeam(d, 'hooked');
    const conn = (await api('POST', '/teams/hooked/connections', { provider: 'github', name: 'gh' })).body.data;
    const c = PROVIDER_CASES.find((x) => x.provider === 'github')!;
    const before = await scrape();
    const good = await deliveryOf(c, conn.secret, { now: new Date(), deliveryId: randomUUID() });
    const forged = await deliveryOf(c, 'not the secret', { now: new Date(), deliveryId: randomUUID() });
    for (const x of [good, good, forged]) await d.as(null)('POST', `/hooks/${conn.id}`, undefined, { headers: x.headers, raw: x.body });
    const delta = grew(before, await scrape());
    expect(delta('svc_deliveries_total', { provider: 'github', outcome: 'accepted' })).toBe(1);
    expect(delta('svc_deliveries_total', { provider: 'github', outcome: 'duplicate' })).toBe(1);
    expect(delta('svc_deliveries_total', { provider: 'github', outcome: 'rejected' })).toBe(1);
  });

  it("shows the PostgreSQL pool's connections on PostgreSQL, and no pool on the JSON-file store", async () => {
    const samples = await scrape();
    const total = samplesOf(samples, 'svc_postgres_pool_connections');
    if (testStoreKind() === 'file') {
      expect(total).toEqual([]);
      return;
    }
    expect(total).toHaveLength(1);
    expect(total[0].value).toBeGreaterThan(0);
    expect(valueOf(samples, 'svc_postgres_pool_idle_connections')).toBeLessThanOrEqual(total[0].value);
    expect(samplesOf(samples, 'svc_postgres_pool_waiting_requests')).toHaveLength(1);
  });

  it('is in the OpenAPI document: the admin token, a text/plain answer', async () => {
    const { paths } = (await d.as(null)('GET', '/openapi.json')).body;
    const op = paths['/metrics'].get;
    expect(op.security).toEqual([{ adminToken: [] }]);
    expect(op.operationId).toBe('getMetrics');
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/plain']);
    expect(op.responses['200'].content['text/plain'].schema.type).toBe('string');
  });
});

describe('sessions finished, with a runner that reports turns later', () => {
  let exec: TestDaemon;
  let api: Requester;

  beforeAll(async () => {
    // the turn's JSON arrives on stdin: a prompt saying so fails it, any other completes it
    exec = await startTestDaemon({ runner: 'exec', runnerCommand: "if grep -q 'please fail'; then exit 3; else echo answered; fi" });
    ({ api } = await createTeam(exec, 'runs'));
  });
  afterAll(() => exec.destroy());

  async function finalStatusOf(sessionId: string): Promise<string> {
    for (;;) {
      const { status } = (await api('GET', `/teams/runs/sessions/${sessionId}`)).body.data;
      if (status !== 'queued' && status !== 'running') return status;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('counts each session once as started and once as it completes or fails', async () => {
    const before = await scrape(exec);
    const ok = await api('POST', '/teams/runs/sessions', { prompt: 'say hello' });
    const bad = await api('POST', '/teams/runs/sessions', { prompt: 'please fail' });
    expect([ok.status, bad.status]).toEqual([201, 201]);
    expect([await finalStatusOf(ok.body.data.session_id), await finalStatusOf(bad.body.data.session_id)]).toEqual(['completed', 'failed']);
    // A session's status is readable once its write is applied; the counter moves once the write
    // is durable, a moment later.
    await expect
      .poll(async () => {
        const delta = grew(before, await scrape(exec));
        return {
          started: delta('svc_sessions_started_total', { origin: 'api' }),
          completed: delta('svc_sessions_finished_total', { outcome: 'completed' }),
          failed: delta('svc_sessions_finished_total', { outcome: 'failed' }),
        };
      }, { timeout: 5000, interval: 20 })
      .toEqual({ started: 2, completed: 1, failed: 1 });
  });
});
