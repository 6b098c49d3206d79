/**
 * A runtime process whose document store is shared, as MongoDB is, without a
 * MongoDB server (test/runtime/projector-processes.test.ts spawns it): the
 * embedded store posing as a shared one, so the projector reads the outbox
 * through the consumer group. Configured by the environment as runtime/main.ts
 * is, and logs the same "runtime started" line, with the METRICS_PORT it got.
 *
 * HANG_PROJECTION=1: every document write waits forever, so the process keeps
 * the outbox entries it was handed, unacknowledged, until it is killed.
 */
import { loadConfig } from '../../../runtime/config';
import { createLogger } from '../../../runtime/logger';
import { Runtime } from '../../../runtime/runtime';
import type { StoredDocument } from '../../../runtime/stream/document-store';
import { EmbeddedDocumentStore } from '../../../runtime/stream/embedded-document-store';

const hang = process.env.HANG_PROJECTION === '1';

class SharedStore extends EmbeddedDocumentStore {
  override readonly shared = true;

  override upsertIfNewer(collection: string, doc: StoredDocument): Promise<boolean> {
    return hang ? new Promise<boolean>(() => undefined) : super.upsertIfNewer(collection, doc);
  }
}

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config.logLevel);
  const rt = await Runtime.create(config, process.env.REDIS_URL!, { logger, documents: new SharedStore() });
  const port = (await rt.start()) ?? rt.metricsPort;
  logger.info({ port, pid: process.pid, consumer: rt.projector.consumerName }, 'runtime started');
  process.on('SIGTERM', () => {
    rt.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
