/**
 * Baseline for the QUEUED_WRITE benchmark: a bare BullMQ Queue + Worker with
 * a no-op processor, in its own child process, fed over HTTP exactly like the
 * runtime is (autocannon POSTs, one job per request, 202 + jobId back).
 *
 *   POST /enqueue/:id  Queue.add('call', {instanceId, body}) → 202 {jobId}
 *   GET  /ready        PING
 *
 * Queue/Worker settings mirror runtime/queue/job-queue.ts: same connection
 * options (maxRetriesPerRequest null, worker on a duplicate connection), same
 * concurrency (WORKER_CONCURRENCY), lock duration, stalled interval, and the
 * same per-job options (random UUID job id, attempts, backoff, removeOn*).
 * What it leaves out is exactly what the runtime adds: the per-instance FIFO
 * (Lua enqueue + zset), the lease, the state read/commit and the projection.
 *
 * env: PORT, REDIS_URL, QUEUE_NAME (default bare-bench), WORKER_CONCURRENCY (default 16),
 *      JOB_LOCK_MS (default 30000)
 */
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { Queue, Worker } from 'bullmq';
import express, { type Request, type Response } from 'express';
import { Redis } from 'ioredis';

const port = Number(process.env.PORT);
const redisUrl = process.env.REDIS_URL;
const queueName = process.env.QUEUE_NAME || 'bare-bench';
const concurrency = Number(process.env.WORKER_CONCURRENCY || 16);
const lockMs = Number(process.env.JOB_LOCK_MS || 30000);
if (!Number.isInteger(port) || port <= 0 || !redisUrl) {
  console.error('bare-bullmq-worker: PORT and REDIS_URL are required');
  process.exit(2);
}

const RESULT_TTL_S = 7 * 24 * 3600;
const connection = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
const workerConnection = connection.duplicate();
const queue = new Queue(queueName, { connection });
const worker = new Worker(queueName, () => Promise.resolve({ ok: true }), {
  connection: workerConnection,
  concurrency,
  lockDuration: lockMs,
  stalledInterval: lockMs,
  maxStalledCount: 3,
});
worker.on('error', (err) => console.error('bare worker error', err));

const app = express();
app.disable('x-powered-by');
app.set('etag', false);

app.get('/ready', async (_req: Request, res: Response) => {
  try {
    await connection.ping();
    await worker.waitUntilReady();
    res.json({ status: 'ready' });
  } catch (err) {
    res.status(503).json({ status: 'not_ready', message: (err as Error).message });
  }
});

app.use(express.json({ limit: '16mb', type: () => true, strict: false }));

app.post('/enqueue/:id', async (req: Request, res: Response) => {
  try {
    const jobId = randomUUID();
    // the JSON body is passed on as it came, never read here
    const body: unknown = req.body ?? {};
    await queue.add(
      'call',
      {
        kind: 'call',
        classId: 'Counter',
        method: 'queuedAdd',
        instanceId: String(req.params.id),
        body,
      },
      {
        jobId,
        attempts: 4,
        backoff: { type: 'exponential', delay: 500 },
        removeOnComplete: { age: RESULT_TTL_S },
        removeOnFail: { age: RESULT_TTL_S },
      },
    );
    res.status(202).json({ jobId, status: 'queued' });
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
  const force = setTimeout(() => process.exit(0), 5000);
  force.unref();
  server.close();
  server.closeAllConnections();
  void (async () => {
    try {
      await worker.close();
      await queue.close();
    } finally {
      workerConnection.disconnect();
      connection.disconnect();
      process.exit(0);
    }
  })();
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
