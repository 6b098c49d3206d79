/**
 * Baseline for the runtime benchmark: a bare express 5 + ioredis server, run
 * as its own child process by bench/runtime.bench.ts.
 *
 *   GET  /read/:id   one Redis GET of a small JSON value, returned as JSON
 *   POST /write/:id  GET + SET of that value (count + 1), not atomic (a bare handler)
 *   GET  /ready      PING
 *
 * It uses the same ioredis options as the runtime's main connection
 * (enableAutoPipelining) and the same JSON body parser settings, so the
 * comparison measures what the runtime adds on top of express + Redis.
 *
 * env: PORT, REDIS_URL, BASE_PREFIX (key prefix, default `bench:base:`)
 */
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';
import { Redis } from 'ioredis';

const port = Number(process.env.PORT);
const redisUrl = process.env.REDIS_URL;
const prefix = process.env.BASE_PREFIX || 'bench:base:';
if (!Number.isInteger(port) || port <= 0 || !redisUrl) {
  console.error('baseline-server: PORT and REDIS_URL are required');
  process.exit(2);
}

const redis = new Redis(redisUrl, { maxRetriesPerRequest: 3, enableAutoPipelining: true });
const app = express();
app.disable('x-powered-by');
app.set('etag', false);

app.get('/ready', async (_req: Request, res: Response) => {
  try {
    await redis.ping();
    res.json({ status: 'ready' });
  } catch (err) {
    res.status(503).json({ status: 'not_ready', message: (err as Error).message });
  }
});

app.use(express.json({ limit: '16mb', type: () => true, strict: false }));

app.get('/read/:id', async (req: Request, res: Response) => {
  try {
    const raw = await redis.get(prefix + String(req.params.id));
    if (raw === null) {
      res.status(404).json({ message: 'not found' });
      return;
    }
    res.json(JSON.parse(raw));
  } catch (err) {
    res.status(500).json({ message: (err as Error).message });
  }
});

app.post('/write/:id', async (req: Request, res: Response) => {
  try {
    const key = prefix + String(req.params.id);
    const raw = await redis.get(key);
    const state = (raw ? JSON.parse(raw) : { count: 0 }) as { count: number };
    const by = (req.body as { by?: number } | undefined)?.by ?? 1;
    state.count = (state.count ?? 0) + by;
    await redis.set(key, JSON.stringify(state));
    res.json({ count: state.count });
  } catch (err) {
    res.status(500).json({ message: (err as Error).message });
  }
});

const server: Server = app.listen(port, '127.0.0.1');
server.on('error', (err) => {
  console.error(err);
  process.exit(1);
});

let stopping = false;
function shutdown(): void {
  if (stopping) return;
  stopping = true;
  const force = setTimeout(() => process.exit(0), 3000);
  force.unref();
  server.close(() => {
    redis.disconnect();
    process.exit(0);
  });
  server.closeAllConnections();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
