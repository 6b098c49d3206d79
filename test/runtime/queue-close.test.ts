/**
 * A stopping process closes its BullMQ workers within a bound even when Redis
 * is gone: Worker.close() alone waits for a reconnecting connection that may
 * never end (taskforcesh/bullmq#4656), which hung a runtime's stop() after a
 * Redis restart. Real Redis, real BullMQ worker. What is checked is how
 * each close ended, not how long it took: a hang is caught by the test's own
 * timeout, and wall-clock bounds belong in bench/.
 *
 * The Redis-gone case runs in a child process that exits once it has closed,
 * as runtime/main.ts does: the worker BullMQ could not close keeps its timers,
 * which in this jest worker would outlive the test file.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Worker } from 'bullmq';
import { closeWithin } from '../../runtime/queue/close';
import { projectRoot } from '../../runtime/config';
import { createLogger } from '../../runtime/logger';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../runtime/redis/embedded-redis';

let redis: EmbeddedRedis | undefined;
afterAll(async () => {
  await redis?.stop();
});

test('a worker whose Redis went away is given up on after the bound, not waited on for ever; its queue closes', async () => {
  const root = projectRoot();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'test/runtime/queue-close-fixtures/close-after-redis-gone.ts')],
    {
      cwd: root,
      timeout: 60_000,
    },
  );
  const outcome = JSON.parse(stdout.trim().split('\n').pop()!) as { worker: string; queue: string };
  // the worker's close waits on its reconnecting connection for ever, and BullMQ answers close(true)
  // with that same first close: it is given up on, after its bound and the forced attempt's
  expect(outcome.worker).toBe('left');
  // the queue's close may or may not need force; either way it returns, and is not left hanging
  expect(['closed', 'forced']).toContain(outcome.queue);
}, 90_000);

test('a healthy worker closes normally, without force', async () => {
  redis = await startEmbeddedRedis({});
  const url = new URL(redis.url);
  const worker = new Worker('close-test-2', async () => undefined, {
    connection: { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null },
  });
  await worker.waitUntilReady();
  expect(await closeWithin('test worker', worker, 5_000, createLogger('silent'))).toBe('closed');
  expect(worker.closing).toBeTruthy();
});
