/** What the HTTP layer is built from (createHttpApp), and what its route modules share. */
import type { Logger } from 'pino';
import type { Dispatcher } from '../actor/dispatcher';
import type { ClassRegistry } from '../actor/registry';
import type { RedisJournals } from '../actor/journal';
import type { ApiKeyStore, TokenService } from '../auth/auth';
import type { IdentityResolver } from '../auth/identities';
import type { SessionTokens } from '../auth/sessions';
import type { JobQueue } from '../queue/job-queue';
import type { RedisConnection } from '../redis/connection';
import type { EmbeddedMailTransport } from '../mail/eml-transport';
import type { RuntimeMetrics } from '../metrics';
import type { ConsoleOptions } from './console';
import type { PageSite } from './pages';
import type { BodyParsers } from './body';

export interface HttpDeps {
  projectId: string;
  /** express 'trust proxy' (TRUST_PROXY): whose X-Forwarded-For gives the caller's address */
  trustProxy?: boolean | number | string;
  /** CORS_ORIGINS: browser origins whose pages may call the API (none: no CORS headers) */
  corsOrigins?: readonly string[];
  dispatcher: Dispatcher;
  registry: ClassRegistry;
  apiKeys: ApiKeyStore;
  tokens: TokenService;
  /** who the caller is: API keys, development tokens, session tokens completed by their identity source */
  identities: IdentityResolver;
  /** refresh-token exchanges (POST /<projectId>/auth/refresh) */
  sessions: SessionTokens;
  jobs: JobQueue;
  logger: Logger;
  bodyLimit: string;
  /** deepest nesting of a JSON body (MAX_JSON_DEPTH); default 64 */
  maxJsonDepth?: number;
  ready: () => Promise<Record<string, string>>;
  /** told of every Redis failure a request meets (it logs one line per outage) */
  redisHealth?: { failed(err: unknown): boolean };
  /** the embedded mail adapter when it is in use: /dev/mail lists what it wrote (absent: 404) */
  devMail?: EmbeddedMailTransport;
  /** Idempotency-Key answers are kept here (runtime/http/idempotency.ts); absent: the header is ignored */
  redis?: RedisConnection;
  /** Prometheus metrics (runtime/metrics.ts): calls are recorded in callFrom, served at /metrics; absent: neither */
  metrics?: RuntimeMetrics;
  /** where journaled methods' calls are recorded (MethodOptions.journal); absent: not recorded */
  journals?: RedisJournals;
  /** the classes' server-rendered pages under /pages/ (runtime/http/pages.ts); absent or empty: none */
  pages?: readonly PageSite[];
  /** the operator console (queues, dead letters) at /admin, behind its own authentication (runtime/http/console.ts); absent: 404 */
  console?: ConsoleOptions;
}

/** What the route modules of one app share: its deps, its body parsers, and how a Redis failure is answered. */
export interface HttpShared {
  deps: HttpDeps;
  bodies: BodyParsers;
  /** A Redis that did not answer is 503 REDIS_UNAVAILABLE, not an internal error (the class named, when known). */
  redisFailure: (err: unknown, classId?: string) => unknown;
}
