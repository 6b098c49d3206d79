import * as http from 'node:http';
import type { Server, ServerResponse } from 'node:http';
import * as path from 'node:path';
import * as https from 'node:https';
import type { Logger } from 'pino';
import { DRAIN_TIMEOUT_MS, ensureEmbeddedJwtSecret } from './process-settings';
import { RedisJournals } from './actor/journal';
import type { CallRequest } from './actor/call-request';
import { Dispatcher } from './actor/dispatcher';
import { ClassRegistry } from './actor/registry';
import { StateStore } from './actor/state-store';
import { checkLayout, migrateLegacyLayout } from './actor/layout';
import { connect, replicasPerMaster, type RedisConnection, type RedisTarget } from './redis/connection';
import type { CallResult } from './types/calls';
import type { Ports } from './types/ports';
import { AccessControl, SnapshotRoleSource, type RoleDefinition, type RoleSource } from './auth/access';
import { ApiKeyStore, TokenService } from './auth/auth';
import { IdentityResolver, identitySources } from './auth/identities';
import { migrateRefreshTokenKeys, RefreshTokenStore } from './auth/refresh-tokens';
import { SessionTokens } from './auth/sessions';
import type { RuntimeConfig } from './config';
import { createHttpApp } from './http/app';
import { loadPageSites } from './http/pages';
import { RuntimeMetrics, serveMetrics } from './metrics';
import { StartupError } from './startup-errors';
import { createLogger } from './logger';
import { Background } from './background';
import { JobQueue } from './queue/job-queue';
import type { DocumentStore } from './stream/document-store';
import { ActorError } from './errors';
import { EmbeddedDocumentStore } from './stream/embedded-document-store';
import { Projector } from './stream/projector';
import type { BlobStore } from './files/blob-store';
import { LocalBlobStore } from './files/local-blob-store';
import { Signer } from './auth/signer';
import {
  callConnectionOptions,
  isRedisUnavailable,
  RedisHealth,
  startupRetryLogger,
  untilRedisAnswers,
  workerConnectionOverrides,
} from './redis/client';
import { MessageDelivery } from './mail/delivery';
import { DeadLetters } from './queue/dead-letters';
import { openMessagePorts } from './mail/ports';
import { SmsOutboxTransport } from './mail/sms-outbox';
import { RuntimeTraces } from './traces';

export { drainGraceMs, DRAIN_TIMEOUT_MS, ensureEmbeddedJwtSecret, stopDeadlineMs } from './process-settings';

/** how long an idle kept-alive HTTP connection stays open (ms): past the usual load balancer's 60 s */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export interface RuntimeOverrides {
  registry?: ClassRegistry;
  documents?: DocumentStore;
  blobs?: BlobStore;
  logger?: Logger;
}

/** the file store the configuration names: GridFS with MONGODB_URL, else files under DATA_DIR */
export async function openBlobs(config: RuntimeConfig): Promise<BlobStore> {
  if (!config.mongodbUrl) return new LocalBlobStore(path.join(config.dataDir, 'files'));
  const { GridFsBlobStore } = await import('./files/gridfs-blob-store');
  return GridFsBlobStore.connect({ url: config.mongodbUrl });
}

async function openDocuments(config: RuntimeConfig): Promise<DocumentStore> {
  if (!config.mongodbUrl) return new EmbeddedDocumentStore();
  const { MongoDocumentStore } = await import('./stream/mongo-document-store');
  return MongoDocumentStore.connect({ url: config.mongodbUrl });
}

/**
 * When a class declares itself the role provider, the role check asks it
 * directly while the snapshot is unreadable, and has it regenerate the
 * snapshot (at most once a minute from this process).
 */
function wireRoleProvider(
  registry: ClassRegistry,
  roles: SnapshotRoleSource,
  dispatcher: Dispatcher,
  logger: Logger,
  background: Background,
): void {
  const provider = registry.list().find((c) => c.options.roleProvider);
  if (!provider) return;
  const { instanceId, getRoles, regenerate, absentRoles } = provider.options.roleProvider!;
  const asSystem = { identity: { type: 'system' as const }, origin: 'system' as const };
  let lastRegeneration = 0;
  roles.setFallback(
    async (names) => {
      try {
        const r = await dispatcher.call({
          classId: provider.id,
          method: getRoles,
          instanceId,
          body: { names },
          ...asSystem,
        });
        return (r.body as { roles?: RoleDefinition[] })?.roles ?? [];
      } catch (err) {
        // a fresh project whose role provider has no instance yet: the roles it declares for that case
        if (err instanceof ActorError && err.code === 'UNKNOWN_INSTANCE') {
          return (absentRoles ?? []).filter(
            (r) => names.includes(r.id) || (r.name !== undefined && names.includes(r.name)),
          );
        }
        // Redis not answering: 503, not "no roles"
        if (isRedisUnavailable(err)) throw err;
        // otherwise no roles (403), not a 500
        logger.warn({ err }, 'role provider unavailable');
        return [];
      }
    },
    () => {
      if (Date.now() - lastRegeneration < 60_000) return;
      lastRegeneration = Date.now();
      background
        .track(dispatcher.call({ classId: provider.id, method: regenerate, instanceId, body: {}, ...asSystem }))
        .catch((err) => logger.warn({ err }, 'role snapshot regeneration failed'));
    },
  );
}

/**
 * How long a stopping process waits for the work its calls started after
 * answering (task hand-over, inline projection): each is a few Redis or store
 * round trips; what is still running after it is left to the sweepers.
 */
const BACKGROUND_SETTLE_MS = 5_000;

export interface StopOptions {
  /** how long /ready answers 503 while the listener still accepts, so a load balancer stops sending first (default 0) */
  readyGraceMs?: number;
  /** how long calls in flight may still run (default DRAIN_TIMEOUT_MS) */
  drainMs?: number;
}

/** One runtime process: HTTP API, QUEUED_WRITE worker and projector, as its roles say. */
export class Runtime {
  server?: Server;
  private stopped = false;
  /** responses not yet finished: told `Connection: close` when the drain starts */
  private readonly inFlight = new Set<ServerResponse>();

  private constructor(
    readonly config: RuntimeConfig,
    readonly redis: RedisConnection,
    readonly logger: Logger,
    readonly registry: ClassRegistry,
    readonly store: StateStore,
    readonly documents: DocumentStore,
    readonly ports: Ports,
    readonly access: AccessControl,
    readonly roleSource: SnapshotRoleSource,
    readonly apiKeys: ApiKeyStore,
    readonly tokens: TokenService,
    readonly dispatcher: Dispatcher,
    readonly jobs: JobQueue,
    readonly projector: Projector,
    readonly app: ReturnType<typeof createHttpApp>,
    /** Redis availability as this process sees it (one log line per outage; /ready) */
    readonly redisHealth: RedisHealth,
    /** committed mails and SMS: their queue, and their worker in worker processes */
    readonly messages: MessageDelivery,
    /** callers' identities: API keys, development tokens, session tokens completed by identity sources */
    readonly identities: IdentityResolver,
    /** ctx.tokens: access and refresh tokens classes issue */
    readonly sessions: SessionTokens,
    /** set by stop(): /ready answers 503 from then on */
    private readonly drain: { draining: boolean },
    /** Prometheus metrics: /metrics on the API app, or on METRICS_PORT without the api role */
    readonly metrics: RuntimeMetrics,
    /** work started after an answer (task hand-over, inline projection, role snapshot) that stop() waits for */
    private readonly background: Background,
  ) {}

  /** the METRICS_PORT server of a process without the api role */
  private metricsServer?: Server;

  /** the port /metrics, /health and /ready are served on without the api role (METRICS_PORT), once started */
  get metricsPort(): number | undefined {
    const address = this.metricsServer?.address();
    return typeof address === 'object' && address ? address.port : undefined;
  }

  /** true once stop() began: /ready answers 503, new connections are (or soon are) refused */
  get draining(): boolean {
    return this.drain.draining;
  }

  /** `redis`: a server's URL, or a server or cluster (config.redisClusterNodes names a cluster whatever is passed) */
  static async create(
    config: RuntimeConfig,
    redis: string | RedisTarget,
    overrides: RuntimeOverrides = {},
  ): Promise<Runtime> {
    const target: RedisTarget = config.redisClusterNodes
      ? { kind: 'cluster', nodes: config.redisClusterNodes }
      : typeof redis === 'string'
        ? { kind: 'single', url: redis }
        : redis;
    return Runtime.build(config, target, overrides);
  }

  private static async build(
    config: RuntimeConfig,
    target: RedisTarget,
    overrides: RuntimeOverrides,
  ): Promise<Runtime> {
    const logger = overrides.logger ?? createLogger(config.logLevel);
    const registry =
      overrides.registry ?? ClassRegistry.fromDirectories(config.classDirs, config.schemaDirs, config.env);
    // before anything opens a connection: a wrong declaration stops the start
    const sources = identitySources(registry);
    // every command has a time-out: a frozen or unreachable Redis fails calls with 503 (runtime/redis/client.ts)
    const redis = connect(target, {
      ...callConnectionOptions(config.redisCommandTimeoutMs),
      enableAutoPipelining: true,
    });
    const redisHealth = new RedisHealth(redis, logger);
    redisHealth.watch(redis, 'state');
    const store = new StateStore(redis, config.projectId, config.redisBuckets);
    try {
      const retry = { onRetry: startupRetryLogger(logger) };
      const legacy = await untilRedisAnswers(
        'key layout migration',
        () => migrateLegacyLayout(store, (fields, msg) => logger.info(fields, msg)),
        retry,
      );
      // refresh tokens move by their stored family (not a plain rename): with the rest of the old layout
      if (legacy.outcome === 'migrated') {
        const moved = await untilRedisAnswers(
          'refresh token migration',
          () => migrateRefreshTokenKeys(redis, store.keys.base),
          retry,
        );
        if (moved) logger.info({ moved }, 'refresh tokens moved to the cluster-ready layout');
      }
      await untilRedisAnswers('key layout check', () => checkLayout(store), retry);
      store.waitReplicas =
        config.redisWaitReplicas === 'auto'
          ? (await untilRedisAnswers('replica count', () => replicasPerMaster(redis), retry)) > 0
            ? 1
            : 0
          : config.redisWaitReplicas;
      store.waitTimeoutMs = config.redisWaitTimeoutMs;
    } catch (err) {
      redis.disconnect();
      throw err;
    }
    const documents = overrides.documents ?? (await openDocuments(config));
    const roleSource = new SnapshotRoleSource(redis, store.keys.roles);
    const access = new AccessControl(roleSource);
    const apiKeys = new ApiKeyStore(redis, store.keys.apiKeys, config.integrationApiKeys);
    const secret = config.jwtSecret ?? ensureEmbeddedJwtSecret(config.dataDir, logger);
    const tokens = new TokenService(secret, config.jwtIssuer, { allowDevTokens: config.allowDevTokens });
    const blobs = overrides.blobs ?? (await openBlobs(config));
    const ports: Ports = {
      blobs,
      signer: new Signer(secret),
      roles: roleSource.publisher(),
      catalogue: () => registry.catalogue(),
      traces: new RuntimeTraces({
        redis,
        keys: store.keys,
        logger,
        journalOf: (name) => registry.journal(name),
        // built below (the queues need the dispatcher, which needs these ports); read at each erasure
        parts: () => ({
          callQueues: jobs.queues,
          messages,
          journals,
          mailDir: messagePorts.mailbox?.dir,
          smsOutbox: messagePorts.sms instanceof SmsOutboxTransport ? messagePorts.sms.file : undefined,
        }),
      }),
    };
    const projector = new Projector(store, documents, registry, logger, {
      ...config.projector,
      batchMs: config.projectionBatchMs,
    });
    projector.redisHealth = redisHealth;
    const background = new Background();
    projector.background = background;
    // identity sources are asked through the dispatcher, which ctx.tokens (the sessions) is part of
    const late: { dispatcher?: Dispatcher } = {};
    const identities = new IdentityResolver({
      tokens,
      apiKeys,
      sources,
      cacheSeconds: config.identityCacheSeconds,
      call: (classId, method, instanceId) =>
        late.dispatcher!.call({
          classId,
          method,
          instanceId,
          body: {},
          identity: { type: 'system' },
          origin: 'system',
        }),
    });
    const sessions = new SessionTokens({
      tokens,
      identities,
      refresh: new RefreshTokenStore(redis, store.keys.base, config.refreshTokenTtlSeconds),
      accessTtlSeconds: config.accessTokenTtlSeconds,
      knownMethod: (name) => {
        const dot = name.indexOf('.');
        return registry.get(name.slice(0, dot))?.methodsByName.has(name.slice(dot + 1)) === true;
      },
    });
    const journals = new RedisJournals(redis, config.projectId, config.journalRetentionDays);
    const dispatcher = new Dispatcher({
      projectId: config.projectId,
      journals,
      registry,
      store,
      documents,
      ports,
      authorizer: access,
      logger,
      maxCallDepth: config.maxCallDepth,
      leaseTtlMs: config.leaseTtlMs,
      readCacheBytes: config.readCacheMb * 1024 * 1024,
      lookupCacheSize: config.lookupCacheSize,
      tokens: sessions,
      background,
      onCommit: (classId, id, version, stateJson, state) => {
        if (!documents.shared && config.roles.has('projector'))
          projector.applyCommitted(classId, id, version, stateJson, state);
      },
    });
    late.dispatcher = dispatcher;
    const jobs = new JobQueue({
      redis: target,
      projectId: config.projectId,
      store,
      dispatcher,
      logger,
      concurrency: config.workerConcurrency,
      lockMs: config.jobLockMs,
      redisOptions: { queue: callConnectionOptions(config.redisCommandTimeoutMs), worker: workerConnectionOverrides() },
      redisHealth,
      attempts: (classId, method) => registry.get(classId)?.methodsByName.get(method)?.options.attempts,
    });
    dispatcher.setJobSink(jobs);
    const messagePorts = openMessagePorts(config, logger);
    const messages = new MessageDelivery({
      redis: target,
      projectId: config.projectId,
      mail: messagePorts.mail,
      sms: messagePorts.sms,
      logger,
      attempts: config.mailAttempts,
      backoffMs: config.mailBackoffMs,
      concurrency: config.mailConcurrency,
      lockMs: config.jobLockMs,
      redisOptions: { queue: callConnectionOptions(config.redisCommandTimeoutMs), worker: workerConnectionOverrides() },
      redisHealth,
    });
    // a committed mail or SMS goes to the message queue once its change committed
    dispatcher.effects.outbound = (effect) => messages.hand(effect);
    wireRoleProvider(registry, roleSource, dispatcher, logger, background);
    const drain = { draining: false };
    const metrics = new RuntimeMetrics({
      queues: jobs.queues,
      redis,
      effectsKeys: store.keys.all.map((b) => b.effects),
      effectsDeadKeys: store.keys.all.map((b) => b.effectsDead),
      messageDeadLetters: () => messages.deadLetterCount(),
      projector,
      tasks: jobs,
      caches: {
        identity: identities,
        read: dispatcher.readCache,
        lookup: dispatcher.lookupCache,
        api_key: apiKeys,
        roles: roleSource,
      },
      optimisticWrites: dispatcher.optimisticWrites,
      documentGauges: registry.documentGauges,
      documents,
    });
    dispatcher.observeInstanceWaits(metrics);
    jobs.observer = metrics;
    messages.observer = metrics;
    const deadLetters = new DeadLetters(store, dispatcher.effects, messages);
    const app = createHttpApp({
      projectId: config.projectId,
      trustProxy: config.trustProxy,
      corsOrigins: config.corsOrigins,
      dispatcher,
      registry,
      apiKeys,
      tokens,
      identities,
      sessions,
      jobs,
      logger,
      bodyLimit: config.bodyLimit,
      maxJsonDepth: config.maxJsonDepth,
      redisHealth,
      redis,
      metrics,
      devMail: messagePorts.mailbox,
      pages: loadPageSites(config.classDirs, config.env),
      journals,
      console: {
        jobs,
        messages,
        deadLetters,
        identify: (headers) => identities.identify(headers),
        users: config.consoleUsers,
        readOnly: config.consoleReadOnly,
        sensitiveFields: (classId) => registry.get(classId)?.options.sensitiveFields,
        logger,
      },
      ready: async () => {
        // a stopping process takes no new work (stop())
        if (drain.draining) throw new Error('draining: the process is stopping');
        await redisHealth.ping();
        return { redis: 'ok', documents: documents.kind, classes: String(registry.list().length) };
      },
    });
    // an outage is reported once by the health tracker, not by every effect sweep
    dispatcher.effects.onSweepError = (err) => redisHealth.failed(err);
    return new Runtime(
      config,
      redis,
      logger,
      registry,
      store,
      documents,
      ports,
      access,
      roleSource,
      apiKeys,
      tokens,
      dispatcher,
      jobs,
      projector,
      app,
      redisHealth,
      messages,
      identities,
      sessions,
      drain,
      metrics,
      background,
    );
  }

  /** waits (up to BACKGROUND_SETTLE_MS) for the work started after answers; says when some is left behind */
  private async settleBackground(): Promise<void> {
    if (!(await this.background.settled(BACKGROUND_SETTLE_MS))) {
      this.logger.warn(
        { running: this.background.size, waitedMs: BACKGROUND_SETTLE_MS },
        'work started after answers still running at stop: left to the sweepers',
      );
    }
  }

  setRoleSource(source: RoleSource): void {
    this.access.setRoleSource(source);
  }

  /** Start what this process's roles ask for. Returns the HTTP port when serving. */
  async start(port = this.config.port): Promise<number | undefined> {
    if (this.config.roles.has('projector')) await this.projector.start();
    if (this.config.roles.has('worker')) {
      this.jobs.startWorker();
      this.messages.startWorker();
      // committed effects whose process died before applying them, or whose target was busy
      this.dispatcher.effects.start();
    }
    if (!this.config.roles.has('api')) {
      const metricsPort = this.config.metricsPort;
      if (metricsPort !== undefined) {
        const ready = async () => {
          if (this.drain.draining) throw new Error('draining: the process is stopping');
          await this.redisHealth.ping();
          return { redis: 'ok', roles: [...this.config.roles].join(',') };
        };
        this.metricsServer = await serveMetrics(this.metrics, ready, metricsPort, this.config.listenAddress).catch(
          (err: NodeJS.ErrnoException) => {
            if (err.code === 'EADDRINUSE')
              throw new StartupError('METRICS_PORT', `port ${metricsPort} is in use by another process`);
            if (err.code === 'EACCES')
              throw new StartupError('METRICS_PORT', `not allowed to listen on port ${metricsPort} (EACCES)`);
            throw err;
          },
        );
      }
      return undefined;
    }
    if (!this.config.smtpUrl) {
      this.logger.info(
        { dir: path.join(this.config.dataDir, 'mail') },
        'SMTP_URL is unset: mails are written as .eml files and listed on /dev/mail (no authentication); set SMTP_URL in production',
      );
    }
    const tls = this.config.tls;
    const host = this.config.listenAddress;
    const server = (
      tls
        ? https.createServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, this.app)
        : http.createServer(this.app)
    ).listen(port, host);
    this.server = server;
    // kept-alive connections stay open longer than the idle time-out of the load balancers in front (60 s on
    // the common ones), so the client side closes them: with node's 5 s the service closed a connection just
    // as a balancer or client sent the next request on it, which then failed (ECONNRESET, "other side closed")
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1000;
    const inFlight = this.inFlight;
    const drain = this.drain;
    // one listener function for every answer (a response closes once): no closure and once-wrapper per request
    function closed(this: ServerResponse): void {
      inFlight.delete(this);
      // an answer begun before the drain kept its connection alive: closed once idle
      if (drain.draining) server.closeIdleConnections?.();
    }
    // before the app's listener, so the header is set before any answer
    server.prependListener('request', (_req, res: ServerResponse) => {
      // a request during the drain (a kept-alive connection, or the ready grace): answered, then its connection closes
      if (drain.draining) {
        res.setHeader('connection', 'close');
        return;
      }
      inFlight.add(res);
      res.on('close', closed);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    const address = server.address();
    return typeof address === 'object' && address ? address.port : port;
  }

  /** Call a method as the system identity (CLI, seeds). */
  call(
    classId: string,
    method: string,
    instanceId: string | undefined,
    body?: unknown,
    extra: Partial<CallRequest> = {},
  ): Promise<CallResult> {
    return this.dispatcher.call({
      classId,
      method,
      instanceId,
      body,
      identity: { type: 'system' },
      origin: 'system',
      ...extra,
    });
  }

  /**
   * Graceful drain, then stop: /ready answers 503 at once; after `readyGraceMs`
   * the listener stops accepting and idle kept-alive connections close; calls in
   * flight finish (their answers carry `Connection: close`) for up to `drainMs`,
   * after which the connections left are closed; then the workers finish their
   * jobs or hand them back (closeWithin bounds it) and the connections to the
   * stores close.
   */
  async stop(opts: StopOptions = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.drain.draining = true;
    if (this.server) {
      const server = this.server;
      const graceMs = opts.readyGraceMs ?? 0;
      if (graceMs > 0) await new Promise((r) => setTimeout(r, graceMs));
      for (const res of this.inFlight) if (!res.headersSent) res.setHeader('connection', 'close');
      const drainMs = opts.drainMs ?? DRAIN_TIMEOUT_MS;
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // idle kept-alive connections: at once (a busy one closes after its answer)
        server.closeIdleConnections?.();
        timer = setTimeout(() => {
          this.logger.warn(
            { drainMs, inFlight: this.inFlight.size },
            'calls still in flight at the end of the drain: closing their connections',
          );
          server.closeAllConnections?.();
        }, drainMs);
      });
      clearTimeout(timer);
      this.logger.info({ ms: Date.now() - started }, 'HTTP drained');
    }
    // what the calls started after answering, before its connections close; and what the jobs started
    await this.settleBackground();
    await this.projector.stop();
    await this.dispatcher.effects.stop();
    await this.jobs.close(() => this.settleBackground());
    await this.messages.close();
    await this.documents.close();
    await this.ports.blobs.close();
    if (this.metricsServer) {
      const server = this.metricsServer;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
    this.redisHealth.stop();
    this.dispatcher.close();
    this.redis.disconnect();
  }
}
