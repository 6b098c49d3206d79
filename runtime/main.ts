/**
 * Service entry point: `npm start`. Reads the environment (README), starts an
 * embedded redis-server when REDIS_URL is unset, and runs this process's roles.
 */
import { loadConfig } from './config';
import { createLogger } from './logger';
import { resolveRedis } from './redis/embedded-redis';
import { Runtime } from './runtime';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'));
  const redis = await resolveRedis(process.env, { dataDir: config.dataDir, log: (msg) => logger.info(msg) });
  const runtime = await Runtime.create(config, redis.url, { logger });
  const port = await runtime.start();
  logger.info(
    {
      projectId: config.projectId,
      port,
      roles: [...config.roles],
      classes: runtime.registry.list().map((c) => c.id),
      redis: redis.embedded ? `embedded (${redis.url})` : 'REDIS_URL',
      documents: runtime.documents.kind,
    },
    'runtime started',
  );
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    try {
      await runtime.stop();
      await redis.embedded?.stop();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error(err);
  process.exit(1);
});
