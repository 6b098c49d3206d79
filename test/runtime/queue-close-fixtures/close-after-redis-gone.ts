/**
 * A stopping process whose Redis went away (test/runtime/queue-close.test.ts
 * runs it as a child): a BullMQ worker and queue on an embedded Redis, the
 * Redis stopped, then each closed through closeWithin with a 500 ms bound.
 * Prints the two outcomes as one JSON line and exits, as runtime/main.ts does
 * after stop(): BullMQ leaves a worker it could not close with live timers,
 * which would otherwise keep this process (or a jest worker) alive.
 */
import { Queue, Worker } from 'bullmq';
import { closeWithin } from '../../../runtime/queue/close';
import { createLogger } from '../../../runtime/logger';
import { startEmbeddedRedis } from '../../../runtime/redis/embedded-redis';

async function main(): Promise<void> {
  const redis = await startEmbeddedRedis({});
  const url = new URL(redis.url);
  const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
  const queue = new Queue('close-test', { connection });
  const worker = new Worker('close-test', async () => undefined, { connection });
  worker.on('error', () => undefined);
  queue.on('error', () => undefined);
  await worker.waitUntilReady();
  await queue.waitUntilReady();
  await redis.stop();
  const logger = createLogger('silent');
  const workerOutcome = await closeWithin('test worker', worker, 500, logger);
  const queueOutcome = await closeWithin('test queue', queue, 500, logger);
  process.stdout.write(`${JSON.stringify({ worker: workerOutcome, queue: queueOutcome })}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
