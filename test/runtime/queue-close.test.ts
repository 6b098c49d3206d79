/**
 * A stopping process closes its BullMQ workers within a bound even when Redis
 * is gone: Worker.close() alone waits for a reconnecting connection that may
 * never end (taskforcesh/bullmq#4656), which hung a runtime's stop() after a
 * Redis restart. Real Redis, real BullMQ worker.
 */
import { Queue, Worker } from 'bullmq';
import { closeWithin } from '../../runtime/queue/close';
import { createLogger } from '../../runtime/logger';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../runtime/redis/embedded-redis';

let redis: EmbeddedRedis | undefined;
afterAll(async () => {
  await redis?.stop();
});

test('a worker and a queue whose Redis went away are closed within the bound, by force', async () => {
  redis = await startEmbeddedRedis({});
  const url = new URL(redis.url);
  const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
  const queue = new Queue('close-test', { connection });
  const worker = new Worker('close-test', async () => undefined, { connection });
  worker.on('error', () => undefined);
  queue.on('error', () => undefined);
  await worker.waitUntilReady();
  await queue.waitUntilReady();
  await redis.stop();
  redis = undefined;
  const started = Date.now();
  await closeWithin('test worker', worker, 500, createLogger('silent'));
  await closeWithin('test queue', queue, 500, createLogger('silent'));
  // each close: its own bound, plus as much again for the forced close at most
  expect(Date.now() - started).toBeLessThan(4 * 500 + 1_000);
});

test('a healthy worker closes normally, well within the bound', async () => {
  redis = await startEmbeddedRedis({});
  const url = new URL(redis.url);
  const worker = new Worker('close-test-2', async () => undefined, { connection: { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null } });
  await worker.waitUntilReady();
  const started = Date.now();
  await closeWithin('test worker', worker, 5_000, createLogger('silent'));
  expect(Date.now() - started).toBeLessThan(5_000);
  expect(worker.closing).toBeTruthy();
});
