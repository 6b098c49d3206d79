/**
 * A stopping process closes its BullMQ workers within a bound even when Redis
 * is gone: Worker.close() alone waits for a reconnecting connection that may
 * never end (taskforcesh/bullmq#4656), which hung a runtime's stop() after a
 * Redis restart. Real Redis, real BullMQ worker. What is checked is how
 * each close ended, not how long it took: a hang is caught by the test's own
 * timeout, and wall-clock bounds belong in bench/.
 */
import { Queue, Worker } from 'bullmq';
import { closeWithin } from '../../runtime/queue/close';
import { createLogger } from '../../runtime/logger';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../runtime/redis/embedded-redis';

let redis: EmbeddedRedis | undefined;
afterAll(async () => {
  await redis?.stop();
});

test('a worker and a queue whose Redis went away are given up on after the bound, not waited on for ever', async () => {
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
  // the worker's close waits on its reconnecting connection for ever, and BullMQ answers close(true)
  // with that same first close: it is given up on, after its bound and the forced attempt's
  expect(await closeWithin('test worker', worker, 500, createLogger('silent'))).toBe('left');
  // the queue's close may or may not need force; either way it returns, and is not left hanging
  expect(['closed', 'forced']).toContain(await closeWithin('test queue', queue, 500, createLogger('silent')));
});

test('a healthy worker closes normally, without force', async () => {
  redis = await startEmbeddedRedis({});
  const url = new URL(redis.url);
  const worker = new Worker('close-test-2', async () => undefined, { connection: { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null } });
  await worker.waitUntilReady();
  expect(await closeWithin('test worker', worker, 5_000, createLogger('silent'))).toBe('closed');
  expect(worker.closing).toBeTruthy();
});
