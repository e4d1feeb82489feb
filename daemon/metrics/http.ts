// Counts every answer by route pattern and status, and times it. Rate-limited answers (429) are
// counted here, whoever gave them, so the rate limiter itself knows nothing of metrics.
import type { FastifyInstance } from 'fastify';
import { UNMATCHED_ROUTE, type DaemonMetrics } from './metrics.js';

/** Call before the routes are registered, so the hook runs for all of them and for 404s. */
export function countRequests(app: FastifyInstance, metrics: DaemonMetrics): void {
  app.addHook('onResponse', (req, reply, done) => {
    // The declared pattern (`/api/v1/teams/:teamSlug/...`), never the URL, which holds ids and
    // names without bound; every request no route took shares one label.
    const route = req.is404 ? UNMATCHED_ROUTE : (req.routeOptions.url ?? UNMATCHED_ROUTE);
    metrics.requestAnswered(req.method, route, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
