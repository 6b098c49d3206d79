/**
 * Service entry point: `npm start`. Reads the environment (README), starts an
 * embedded redis-server when REDIS_URL is unset, and runs this process's roles.
 *
 * With PROCESSES=N (N > 1) this process becomes a supervisor: it resolves
 * Redis once, then runs N runtime processes (node:cluster) that share the
 * HTTP port and that Redis, replaces one that dies, and stops them all on
 * SIGTERM/SIGINT. Exclusivity per instance holds across them (Redis leases).
 */
import cluster, { type Worker } from 'node:cluster';
import { heapGrowingFromMb, heapGrowingPercent, listingsGap, loadConfig, processCount } from './config';
import { boundHeapGrowth } from './heap';
import { createLogger } from './logger';
import type { RedisTarget } from './redis/connection';
import { resolveRedis, type EmbeddedRedis } from './redis/embedded-redis';
import { slotProjectorName } from './stream/projector-settings';
import { drainGraceMs, DRAIN_TIMEOUT_MS, ensureEmbeddedJwtSecret, stopDeadlineMs } from './process-settings';
import type { Runtime } from './runtime';
import {
  checkJwtSecret,
  checkMongoReachable,
  checkRedisReachable,
  fromConfigError,
  fromListenError,
  StartupError,
} from './startup-errors';

const READY = 'runtime-ready';

/** DRAIN_GRACE_MS; a wrong value stops the start with one line naming it, as the other settings do */
function readDrainGrace(): number {
  try {
    return drainGraceMs(process.env);
  } catch (err) {
    throw fromConfigError(err) ?? err;
  }
}

/** The environment read and checked: a wrong value is a StartupError naming it. */
function readConfig(): ReturnType<typeof loadConfig> {
  try {
    const config = loadConfig();
    heapGrowingPercent(process.env);
    heapGrowingFromMb(process.env);
    checkJwtSecret(config.jwtSecret);
    return config;
  } catch (err) {
    throw fromConfigError(err) ?? err;
  }
}

/** REDIS_URL and MONGODB_URL, when set, answer a first connection within a few seconds. */
async function checkConnections(config: ReturnType<typeof loadConfig>): Promise<void> {
  if (config.redisClusterNodes) await checkRedisReachable({ kind: 'cluster', nodes: config.redisClusterNodes });
  else if (process.env.REDIS_URL) await checkRedisReachable(process.env.REDIS_URL);
  if (config.mongodbUrl) await checkMongoReachable(config.mongodbUrl);
}

/** The Redis to use: a cluster (REDIS_CLUSTER_NODES), REDIS_URL, or the embedded redis-server. */
async function redisOf(
  config: ReturnType<typeof loadConfig>,
  logger: ReturnType<typeof createLogger>,
): Promise<{ target: RedisTarget; label: string; embedded?: EmbeddedRedis }> {
  if (config.redisClusterNodes)
    return { target: { kind: 'cluster', nodes: config.redisClusterNodes }, label: 'REDIS_CLUSTER_NODES' };
  const redis = await resolveRedis(process.env, { dataDir: config.dataDir, log: (msg) => logger.info(msg) });
  return {
    target: { kind: 'single', url: redis.url },
    label: redis.embedded ? `embedded (${redis.url})` : 'REDIS_URL',
    embedded: redis.embedded,
  };
}

async function runtimeProcess(): Promise<void> {
  const graceMs = readDrainGrace();
  const config = readConfig();
  await checkConnections(config);
  // a large heap (the embedded listings) is kept near its live size, a small one left to V8
  const heap = boundHeapGrowth(heapGrowingPercent(process.env), heapGrowingFromMb(process.env));
  const logger = createLogger(config.logLevel);
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
  const redis = await redisOf(config, logger);
  // loaded once the settings and connections are known good: a wrong one is answered without loading it
  const { Runtime: RuntimeClass } = await import('./runtime');
  const runtime: Runtime = await RuntimeClass.create(config, redis.target, { logger });
  const port = await runtime.start().catch((err) => {
    throw fromListenError(err, config.port) ?? err;
  });
  logger.info(
    {
      projectId: config.projectId,
      port,
      pid: process.pid,
      roles: [...config.roles],
      classes: runtime.registry.list().map((c) => c.id),
      redis: redis.label,
      documents: runtime.documents.kind,
    },
    'runtime started',
  );
  const gap = listingsGap(
    config,
    runtime.registry.list().flatMap((c) => Object.keys(c.options.stream?.collections ?? {})),
  );
  if (gap) logger.warn({ setting: 'MONGODB_URL', roles: [...config.roles] }, gap);
  process.send?.(READY);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, graceMs, drainMs: DRAIN_TIMEOUT_MS }, 'shutting down: draining');
    const force = setTimeout(() => {
      logger.error({ ms: stopDeadlineMs(graceMs) }, 'stop did not finish in time: exiting');
      process.exit(1);
    }, stopDeadlineMs(graceMs));
    force.unref();
    let code = 0;
    try {
      heap.stop();
      // /ready 503, no new connections, calls in flight finish, workers finish or hand back their jobs
      await runtime.stop({ readyGraceMs: graceMs });
      await redis.embedded?.stop();
      logger.info('stopped');
    } catch (err) {
      logger.error({ err }, 'stop failed');
      code = 1;
    } finally {
      process.exit(code);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

async function supervisor(count: number): Promise<void> {
  const graceMs = readDrainGrace();
  const config = readConfig();
  await checkConnections(config);
  const logger = createLogger(config.logLevel);
  const redis = await redisOf(config, logger);
  // made once here, so the processes do not race to create it
  if (!config.jwtSecret) ensureEmbeddedJwtSecret(config.dataDir, logger);
  // a cluster's nodes reach the processes in the environment they inherit
  const env: Record<string, string> = redis.target.kind === 'single' ? { REDIS_URL: redis.target.url } : {};
  let stopping = false;
  const ready = new WeakSet<Worker>();
  // each process keeps its slot's projector name, and a replacement takes the slot of the one that died,
  // so it reads the outbox entries its predecessor was handed and had not acknowledged
  const slots = new Map<Worker, number>();

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w));
    const gone = Promise.all(
      workers.map((w) => new Promise<void>((r) => (w.isDead() ? r() : w.once('exit', () => r())))),
    );
    // each drains (its own deadline), then exits; one that outlives it is killed
    for (const w of workers) w.process.kill('SIGTERM');
    const timer = setTimeout(
      () => workers.forEach((w) => w.isDead() || w.process.kill('SIGKILL')),
      stopDeadlineMs(graceMs) + 5_000,
    );
    await gone;
    clearTimeout(timer);
    await redis.embedded?.stop();
    process.exit(code);
  };

  const fork = (slot: number) => {
    const w = cluster.fork({ ...env, PROJECTOR_NAME: slotProjectorName(config.projector.consumer, slot) });
    slots.set(w, slot);
    w.on('message', (msg) => {
      if (msg === READY) ready.add(w);
    });
  };
  cluster.on('exit', (w, code, signal) => {
    if (stopping) return;
    if (!ready.has(w)) {
      // it never started (bad configuration, port taken): restarting would loop
      logger.error({ pid: w.process.pid, code, signal }, 'a runtime process failed to start; stopping');
      void stopAll(1);
      return;
    }
    logger.error({ pid: w.process.pid, code, signal }, 'a runtime process died; starting another');
    const slot = slots.get(w) ?? 0;
    slots.delete(w);
    setTimeout(() => stopping || fork(slot), 1000).unref();
  });
  for (let i = 0; i < count; i++) fork(i);
  logger.info({ processes: count, pid: process.pid, redis: redis.label }, 'supervisor started');
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
}

function fail(err: unknown): never {
  if (err instanceof StartupError) {
    // one line an operator acts on: the setting and the cause, no stack trace
    process.stderr.write(`error: ${err.setting}: ${err.reason}\n`);
  } else {
    console.error(err);
  }
  process.exit(1);
}

let count = 1;
try {
  count = processCount(process.env);
} catch (err) {
  fail(fromConfigError(err) ?? err);
}
(cluster.isPrimary && count > 1 ? supervisor(count) : runtimeProcess()).catch(fail);
