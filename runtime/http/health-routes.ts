/** What operators and orchestrators probe: liveness, readiness and the Prometheus scrape. */
import express from 'express';
import type { HttpDeps } from './deps';

export function healthRoutes(deps: HttpDeps): express.Router {
  const router = express.Router();
  router.get('/health', (_req, res) => {
    // the pid tells which runtime process answered (PROCESSES > 1)
    res.json({ status: 'ok', pid: process.pid });
  });
  router.get('/ready', async (_req, res) => {
    try {
      res.json({ status: 'ready', ...(await deps.ready()) });
    } catch (err) {
      res.status(503).json({ status: 'not_ready', message: (err as Error).message });
    }
  });
  const metrics = deps.metrics;
  if (metrics) {
    router.get('/metrics', async (_req, res) => {
      try {
        const { contentType, body } = await metrics.scrape();
        res.setHeader('content-type', contentType);
        res.send(body);
      } catch (err) {
        // a gauge read from Redis failed: no stale values, the scrape fails
        res
          .status(503)
          .type('text/plain')
          .send(`metrics unavailable: ${(err as Error).message}\n`);
      }
    });
  }
  return router;
}
