// GET /metrics (CONTRACT §11): this daemon's series for Prometheus, with the admin token (they
// show what every team does).
import { MetricsResponse } from '../../shared/schemas/index.js';
import type { App } from '../http/types.js';
import type { DaemonMetrics } from '../metrics/metrics.js';

export function metricsRoutes(app: App, metrics: DaemonMetrics): void {
  app.get('/metrics', { config: { auth: 'admin' }, schema: { tags: ['meta'], response: { 200: MetricsResponse } } }, async (_req, reply) =>
    reply.type(metrics.contentType).send(await metrics.scrape()),
  );
}
