// GET /metrics (CONTRACT §11): the admin token only, Prometheus text format, and series that
// count what the daemon did, each labelled with the daemon's id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { parseExposition, samplesOf, valueOf, type Sample } from '../helpers/prometheus-text.js';
import { testStoreKind } from '../helpers/test-store.js';

const EVENTS_ROUTE = '/api/v1/teams/:teamSlug/webhooks/events';
/** requests per minute per team key: enough for one test's own key, and a 429 after */
const RATE_LIMIT = 6;

let d: TestDaemon;
let instance: string;

beforeAll(async () => {
  d = await startTestDaemon({ rateLimit: RATE_LIMIT });
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

  it('counts requests by route pattern and status, and times store writes', async () => {
    const slug = 'metered';
    const { api } = await createTeam(d, slug);
    const before = await scrape();

    const send = (body: object) => api('POST', `/teams/${slug}/webhooks/events`, body);
    expect((await send({ event_type: 'deploy.finished', id: 'evt-1' })).status).toBe(200);
    expect((await send({ event_type: 'build.started', id: 'evt-2' })).status).toBe(200);
    const badKey = await d.as('svc_team_0000000000000000000000000000000000')('POST', `/teams/${slug}/webhooks/events`, { event_type: 'deploy.finished' });
    expect(badKey.status).toBe(401);
    expect((await d.as(null)('GET', `/teams/${slug}/no-such-thing/evt-1`)).status).toBe(404);

    const after = await scrape();
    const delta = grew(before, after);
    expect(delta('svc_http_requests_total', { method: 'POST', route: EVENTS_ROUTE, status: '200' })).toBe(2);
    expect(delta('svc_http_requests_total', { method: 'POST', route: EVENTS_ROUTE, status: '401' })).toBe(1);
    expect(delta('svc_http_request_duration_seconds_count', { method: 'POST', route: EVENTS_ROUTE, status: '200' })).toBe(2);
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
    // Nothing delivers to a provider yet (issue 28): the series is declared, with no sample.
    expect(text).toContain('# TYPE svc_deliveries_total counter');
    expect(samplesOf(samples, 'svc_deliveries_total')).toEqual([]);
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
