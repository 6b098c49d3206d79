import * as fs from 'node:fs';
import { isIP } from 'node:net';
import * as path from 'node:path';
import { DEFAULT_JOURNAL_RETENTION_DAYS } from './actor/journal';
import { parseByteSize } from './http/body-guards';
import { isSender } from './mail/message';
import { parseClusterNodes } from './redis/connection';
import { projectorSettings, type ProjectorSettings } from './stream/projector-settings';

/** The repository root: the nearest folder above this file holding package.json. */
export function projectRoot(): string {
  let dir = __dirname;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
}

/** true when running from TypeScript sources (tests, tsx) rather than compiled dist/ */
export const RUNNING_TS = __filename.endsWith('.ts');

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got '${raw}'`);
  return n;
}

function bounded(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const n = int(env, name, dflt, min);
  if (n > max) throw new Error(`${name} must be at most ${max}, got '${n}'`);
  return n;
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export type Role = 'api' | 'worker' | 'projector';

export interface RuntimeConfig {
  port: number;
  /** LISTEN_ADDRESS: the address the API (and METRICS_PORT) listen on; undefined: every interface */
  listenAddress?: string;
  /** METRICS_PORT: where a process without the api role serves /metrics, /health and /ready; unset: nowhere */
  metricsPort?: number;
  projectId: string;
  redisUrl?: string;
  /** REDIS_CLUSTER_NODES: seed nodes of a Redis Cluster (instead of REDIS_URL) */
  redisClusterNodes?: { host: string; port: number }[];
  /** REDIS_BUCKETS: how many buckets (hash tags) a project's instances are spread over; fixed for the project's life */
  redisBuckets: number;
  /** REDIS_WAIT_REPLICAS: replicas a commit waits for (WAIT) before it is acknowledged; 'auto': 1 when the masters have replicas */
  redisWaitReplicas: number | 'auto';
  /** REDIS_WAIT_TIMEOUT_MS: how long a commit waits for its replicas */
  redisWaitTimeoutMs: number;
  /** time-out of every Redis command a call waits on (REDIS_COMMAND_TIMEOUT_MS): past it the call answers 503 */
  redisCommandTimeoutMs: number;
  /** fsync policy of the embedded Redis's AOF (REDIS_APPENDFSYNC) */
  redisAppendfsync: Appendfsync;
  mongodbUrl?: string;
  integrationApiKeys: string[];
  jwtSecret?: string;
  jwtIssuer?: string;
  /** accept the CLI's development tokens (ALLOW_DEV_TOKENS; default: unless NODE_ENV is production) */
  allowDevTokens: boolean;
  /** how long each process keeps an identity source's answer (IDENTITY_CACHE_SECONDS; 0: not at all) */
  identityCacheSeconds: number;
  /** lifetime of an issued access token (ACCESS_TOKEN_TTL_SECONDS) */
  accessTokenTtlSeconds: number;
  /** lifetime of a refresh token (REFRESH_TOKEN_TTL_SECONDS) */
  refreshTokenTtlSeconds: number;
  dataDir: string;
  roles: Set<Role>;
  classDirs: string[];
  schemaDirs: string[];
  workerConcurrency: number;
  bodyLimit: string;
  /** deepest nesting of objects and arrays a JSON request body may have (deeper: 400 BODY_TOO_DEEP) */
  maxJsonDepth: number;
  logLevel: string;
  maxCallDepth: number;
  /** BullMQ lock duration for QUEUED_WRITE jobs: how soon a crashed worker's job is retried */
  jobLockMs: number;
  /** instance lease time-to-live (renewed while a handler runs) */
  leaseTtlMs: number;
  /** pause of the projector after a short batch, so reads under load bring many outbox entries (0: none) */
  projectionBatchMs: number;
  /** the projector's consumer name and claim bound (PROJECTOR_NAME, PROJECTOR_CLAIM_IDLE_MS) */
  projector: ProjectorSettings;
  /** lookup keys each process remembers (0: off) */
  lookupCacheSize: number;
  /** megabytes of state JSON the per-process READ cache may hold (0: off) */
  readCacheMb: number;
  /** days call journal entries are kept (MethodOptions.journal) */
  journalRetentionDays: number;
  /** SMTP server of the mail port (SMTP_URL); unset: mails are written as .eml files under DATA_DIR/mail */
  smtpUrl?: string;
  /** sender of a mail that names none (MAIL_FROM) */
  mailFrom: string;
  /** tries per mail or SMS before it is dead-lettered (MAIL_ATTEMPTS) */
  mailAttempts: number;
  /** first retry delay of a mail or SMS, doubled for each further try (MAIL_BACKOFF_MS) */
  mailBackoffMs: number;
  /** mails and SMS sent at once per worker process (MAIL_CONCURRENCY) */
  mailConcurrency: number;
  /** which proxies' X-Forwarded-For to believe for the caller's address (TRUST_PROXY; express 'trust proxy'); false: none */
  trustProxy: boolean | number | string;
  /** CORS_ORIGINS: browser origins that may call the API (see corsOrigins) */
  corsOrigins: string[];
  /** CONSOLE_USERS: program-management user ids that may open the operator console (/admin) besides developers */
  consoleUsers: string[];
  /** CONSOLE_READ_ONLY: the operator console shows queues and dead letters and changes nothing */
  consoleReadOnly: boolean;
  /** serve HTTPS (TLS 1.2 or later) with this PEM certificate chain and key (TLS_CERT, TLS_KEY); unset: plain HTTP */
  tls?: { cert: Buffer; key: Buffer };
  /** the environment this configuration was read from (handed to class constructors) */
  env: NodeJS.ProcessEnv;
}

/**
 * HEAP_GROWING_PERCENT: once the heap is large (HEAP_GROWING_FROM_MB), how far
 * V8 lets it grow past what the last full collection kept before it collects
 * again, in percent (0: always V8's own policy). See runtime/heap.ts.
 */
export function heapGrowingPercent(env: NodeJS.ProcessEnv): number {
  const n = int(env, 'HEAP_GROWING_PERCENT', 100, 0);
  if (n > 1000) throw new Error(`HEAP_GROWING_PERCENT must be at most 1000, got '${n}'`);
  return n;
}

/** HEAP_GROWING_FROM_MB: live heap (after a full collection) above which HEAP_GROWING_PERCENT applies (0: from the start). */
export function heapGrowingFromMb(env: NodeJS.ProcessEnv): number {
  return int(env, 'HEAP_GROWING_FROM_MB', 128, 0);
}

/**
 * MAX_JSON_DEPTH: deepest nesting of a JSON request body (1-1000). Recursive
 * code behind the HTTP layer (schema validation, freezing, JSON.stringify of
 * state) relies on it: 1000 keeps far from the stack's limit.
 */
export function maxJsonDepth(env: NodeJS.ProcessEnv): number {
  const n = int(env, 'MAX_JSON_DEPTH', 64, 1);
  if (n > 1000) throw new Error(`MAX_JSON_DEPTH must be at most 1000, got '${n}'`);
  return n;
}

export const APPENDFSYNC_POLICIES = ['always', 'everysec', 'no'] as const;
export type Appendfsync = (typeof APPENDFSYNC_POLICIES)[number];

/**
 * REDIS_APPENDFSYNC: when the embedded Redis fsyncs its append-only file.
 * `everysec` (default): an acknowledged write survives a crash of the Redis
 * process, and up to about a second of writes is lost when the machine itself
 * goes down; `always`: fsync before every acknowledgement, survives an OS crash
 * or power loss (slower writes); `no`: the OS decides (up to ~30 s lost on an
 * OS crash).
 */
export function redisAppendfsync(env: NodeJS.ProcessEnv): Appendfsync {
  const raw = env.REDIS_APPENDFSYNC;
  if (raw === undefined || raw === '') return 'everysec';
  if (!(APPENDFSYNC_POLICIES as readonly string[]).includes(raw)) {
    throw new Error(`REDIS_APPENDFSYNC must be one of ${APPENDFSYNC_POLICIES.join(', ')}, got '${raw}'`);
  }
  return raw as Appendfsync;
}

/** REDIS_CLUSTER_NODES (exclusive with REDIS_URL): the cluster's seed nodes. */
function clusterNodes(env: NodeJS.ProcessEnv): { host: string; port: number }[] | undefined {
  if (!env.REDIS_CLUSTER_NODES) return undefined;
  if (env.REDIS_URL)
    throw new Error('REDIS_URL and REDIS_CLUSTER_NODES are both set: name one Redis (a server, or a cluster)');
  return parseClusterNodes(env.REDIS_CLUSTER_NODES);
}

/** Buckets when REDIS_BUCKETS is unset: one on a single server, 16 on a cluster (spread over its masters). */
export const DEFAULT_BUCKETS = { single: 1, cluster: 16 } as const;
export const MAX_BUCKETS = 1024;

/**
 * REDIS_BUCKETS (1-1024): every key of an instance carries the hash tag of its
 * bucket, `rt:{<project>:<b>}`, b = hash(class, id) mod REDIS_BUCKETS, so a
 * cluster spreads instances over its masters by bucket. The number is stored
 * with the project's data at first start and may not change afterwards.
 */
export function redisBuckets(env: NodeJS.ProcessEnv, cluster: boolean): number {
  return bounded(env, 'REDIS_BUCKETS', cluster ? DEFAULT_BUCKETS.cluster : DEFAULT_BUCKETS.single, 1, MAX_BUCKETS);
}

/** REDIS_WAIT_REPLICAS: 'auto' (default), or 0-5 replicas every commit waits for. */
export function redisWaitReplicas(env: NodeJS.ProcessEnv): number | 'auto' {
  const raw = env.REDIS_WAIT_REPLICAS;
  if (raw === undefined || raw === '' || raw === 'auto') return 'auto';
  return bounded(env, 'REDIS_WAIT_REPLICAS', 0, 0, 5);
}

/** REDIS_COMMAND_TIMEOUT_MS: how long a call waits for one Redis command (100-60000 ms). */
export function redisCommandTimeoutMs(env: NodeJS.ProcessEnv): number {
  const n = int(env, 'REDIS_COMMAND_TIMEOUT_MS', 2000, 100);
  if (n > 60_000) throw new Error(`REDIS_COMMAND_TIMEOUT_MS must be at most 60000, got '${n}'`);
  return n;
}

/**
 * SMTP_URL: `smtp://` or `smtps://` URL of the mail server (nodemailer's URL
 * form); unset: the embedded .eml adapter and its unauthenticated /dev/mail
 * page, which shows every sign-in code and link, so NODE_ENV=production
 * without SMTP_URL stops the start.
 */
export function smtpUrl(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.SMTP_URL;
  if (raw === undefined || raw === '') {
    if (env.NODE_ENV === 'production') {
      throw new Error(
        'SMTP_URL must be set in production: without it mails (sign-in codes, invitations) are written to DATA_DIR/mail and listed on /dev/mail without authentication',
      );
    }
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('SMTP_URL must be a URL like smtp://host:587 or smtps://user:password@host:465');
  }
  // the value may hold a password: never echoed
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error(`SMTP_URL must start with smtp:// or smtps://, got '${url.protocol}//'`);
  if (!url.hostname) throw new Error('SMTP_URL names no host');
  return raw;
}

/** MAIL_FROM: the sender of mails that name none, `address` or `Name <address>`. */
export function mailFrom(env: NodeJS.ProcessEnv): string {
  const raw = env.MAIL_FROM;
  if (raw === undefined || raw === '') return 'no-reply@localhost';
  // a boolean, not the predicate: `value is string` would narrow a refused string to never
  const valid: boolean = isSender(raw);
  if (!valid) throw new Error(`MAIL_FROM must be a mail address or 'Name <address>', got '${raw}'`);
  return raw;
}

/**
 * TLS_CERT and TLS_KEY: paths of a PEM certificate chain and its private key.
 * Both set: the service serves HTTPS only, TLS 1.2 or later. Neither: plain
 * HTTP, for a deployment that terminates TLS in front (spec 5: HTTPS only).
 * One without the other, or a file that cannot be read, stops the start.
 */
export function tlsFiles(env: NodeJS.ProcessEnv): { cert: Buffer; key: Buffer } | undefined {
  const cert = env.TLS_CERT || undefined;
  const key = env.TLS_KEY || undefined;
  if (!cert && !key) return undefined;
  if (!cert || !key) throw new Error(`TLS_CERT and TLS_KEY go together: ${cert ? 'TLS_KEY' : 'TLS_CERT'} is unset`);
  const read = (name: string, file: string) => {
    try {
      return fs.readFileSync(file);
    } catch (err) {
      throw new Error(
        `${name}: cannot read '${file}' (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
        { cause: err },
      );
    }
  };
  return { cert: read('TLS_CERT', cert), key: read('TLS_KEY', key) };
}

/**
 * ALLOW_DEV_TOKENS: whether the runtime honours development tokens (the
 * CLI's `token` command: their roles, tenant and developer claims, with no
 * identity source asked). `true` or `false`; default true unless NODE_ENV is
 * `production`.
 */
/** CONSOLE_READ_ONLY: true or false (default false). */
export function consoleReadOnly(env: NodeJS.ProcessEnv): boolean {
  const raw = env.CONSOLE_READ_ONLY?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new Error(`CONSOLE_READ_ONLY must be true or false, got '${raw}'`);
}

export function allowDevTokens(env: NodeJS.ProcessEnv): boolean {
  const raw = env.ALLOW_DEV_TOKENS;
  if (raw === undefined || raw === '') return env.NODE_ENV !== 'production';
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`ALLOW_DEV_TOKENS must be true or false, got '${raw}'`);
}

/**
 * TRUST_PROXY: the caller's address (ctx.request.ip: per-address throttling,
 * logs) comes from X-Forwarded-For only through proxies trusted here:
 * unset/`false` none (the connection's peer), `true` any (only behind a proxy
 * that overwrites the header), a number of hops, or a comma-separated list of
 * addresses/CIDRs or `loopback`, `linklocal`, `uniquelocal` (express's
 * 'trust proxy' values).
 */
/** LISTEN_ADDRESS: an IP address of this host (127.0.0.1: this host only), or localhost; unset: every interface. */
export function listenAddress(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env.LISTEN_ADDRESS?.trim();
  if (!raw) return undefined;
  if (raw !== 'localhost' && isIP(raw) === 0)
    throw new Error(`LISTEN_ADDRESS must be an IP address (e.g. 127.0.0.1 or ::) or localhost, got '${raw}'`);
  return raw;
}

/** pino's levels, which LOG_LEVEL names */
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** LOG_LEVEL: one of pino's levels (default info). */
export function logLevel(env: NodeJS.ProcessEnv): string {
  const raw = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(raw)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${raw}'`);
  return raw;
}

/** BODY_LIMIT: the largest JSON request body, in body-parser's notation (default 16mb). */
export function bodyLimit(env: NodeJS.ProcessEnv): string {
  const raw = env.BODY_LIMIT?.trim() || '16mb';
  try {
    parseByteSize(raw);
  } catch {
    throw new Error(`BODY_LIMIT must be a size such as 64kb, 16mb or a number of bytes, got '${raw}'`);
  }
  return raw;
}

/**
 * CORS_ORIGINS: the browser origins (scheme, host and port; comma-separated,
 * exact) whose pages may call the API with credentials. Unset: none (no CORS
 * headers; same-origin pages and non-browser clients are unaffected). A
 * wildcard is refused: it cannot go with credentials, and a list names who
 * is trusted.
 */
export function corsOrigins(env: NodeJS.ProcessEnv): string[] {
  const raw = env.CORS_ORIGINS?.trim() ?? '';
  if (!raw) return [];
  const origins: string[] = [];
  for (const item of raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (item === '*')
      throw new Error("CORS_ORIGINS: '*' is not allowed; name each origin (e.g. https://app.example.com)");
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new Error(`CORS_ORIGINS: '${item}' is not an origin (e.g. https://app.example.com)`);
    }
    if (
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.origin !== item.replace(/\/$/, '') ||
      url.pathname !== '/' ||
      url.search ||
      url.hash
    ) {
      throw new Error(
        `CORS_ORIGINS: '${item}' is not an origin: scheme, host and port only (e.g. https://app.example.com)`,
      );
    }
    if (!origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}

export function trustProxy(env: NodeJS.ProcessEnv): boolean | number | string {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const names = raw.split(',').map((x) => x.trim());
  for (const n of names) {
    if (!/^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/.test(n))
      throw new Error(`TRUST_PROXY: '${n}' is not an address, a CIDR, loopback, linklocal or uniquelocal`);
  }
  return names.join(',');
}

/** PROCESSES: how many runtime processes `npm start` runs (main.ts); 1 runs the runtime in this process. */
export function processCount(env: NodeJS.ProcessEnv): number {
  return int(env, 'PROCESSES', 1, 1);
}

/**
 * MONGODB_URL: the document store every process shares (listings, search).
 * Unset, each process keeps an in-process store that only a projector in the
 * same process fills, so a process with the api role and without the
 * projector role answers every listing from an empty store. The rules that
 * must hold never read a listing, so outside production such a process
 * starts and says what it cannot serve (listingsGap); NODE_ENV=production
 * refuses it, as it refuses an unset SMTP_URL.
 */
export function mongodbUrl(env: NodeJS.ProcessEnv, roles: ReadonlySet<Role>): string | undefined {
  const url = env.MONGODB_URL || undefined;
  if (!url && roles.has('api') && !roles.has('projector') && env.NODE_ENV === 'production') {
    throw new Error(
      'MONGODB_URL must be set in production for a process with the api role and without the projector role: the embedded document store is per process and only a projector in the same process fills it, so every listing and search of this process would answer empty',
    );
  }
  return url;
}

/**
 * What a process cannot serve for want of a shared document store: its
 * listings and searches (the collections named) answer from an empty store.
 * undefined when it can serve them (MONGODB_URL set, or a projector in the
 * same process, or no api role).
 */
export function listingsGap(
  config: Pick<RuntimeConfig, 'mongodbUrl' | 'roles'>,
  collections: readonly string[],
): string | undefined {
  if (config.mongodbUrl || !config.roles.has('api') || config.roles.has('projector') || !collections.length)
    return undefined;
  return (
    `MONGODB_URL is unset and this process runs the api role without the projector role: its listings and searches ` +
    `(collections ${[...collections].sort().join(', ')}) answer from an empty in-process store; every other call, and every rule ` +
    `that must hold, is served in full. Set MONGODB_URL, or add the projector role to this process`
  );
}

/** Every environment variable the runtime reads is parsed here (and documented in the README). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): RuntimeConfig {
  const root = projectRoot();
  const dataDir = path.resolve(env.DATA_DIR || path.join(root, 'data'));
  const roles = new Set(list(env.ROLES || 'api,worker,projector') as Role[]);
  // ' , ' names no role: a process that serves nothing and runs until killed is a mistake, not a choice
  if (!roles.size)
    throw new Error(`ROLES names no role, got '${env.ROLES}' (api, worker, projector; unset: all three)`);
  for (const r of roles) {
    if (!['api', 'worker', 'projector'].includes(r))
      throw new Error(`ROLES: unknown role '${r}' (api, worker, projector)`);
  }
  const projectId = env.PROJECT_ID || 'membership';
  if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(projectId)) {
    throw new Error(`PROJECT_ID must be 1-40 lowercase letters, digits or '-', got '${projectId}'`);
  }
  // compiled runs load classes from dist/: a source folder maps to its compiled twin
  const compiled = (dir: string) => {
    const rel = path.relative(root, dir);
    return RUNNING_TS || rel.startsWith('..') || rel.split(path.sep)[0] === 'dist' ? dir : path.join(root, 'dist', rel);
  };
  const classDirs = list(env.CLASS_DIRS).map((d) => compiled(path.resolve(root, d)));
  const schemaDirs = list(env.SCHEMA_DIRS).map((d) => path.resolve(root, d));
  return {
    port: bounded(env, 'PORT', 3000, 0, 65535),
    listenAddress: listenAddress(env),
    metricsPort: env.METRICS_PORT ? bounded(env, 'METRICS_PORT', 0, 0, 65535) : undefined,
    projectId,
    redisUrl: env.REDIS_URL || undefined,
    redisClusterNodes: clusterNodes(env),
    redisBuckets: redisBuckets(env, Boolean(env.REDIS_CLUSTER_NODES)),
    redisWaitReplicas: redisWaitReplicas(env),
    redisWaitTimeoutMs: bounded(env, 'REDIS_WAIT_TIMEOUT_MS', 1000, 10, 60_000),
    redisCommandTimeoutMs: redisCommandTimeoutMs(env),
    redisAppendfsync: redisAppendfsync(env),
    mongodbUrl: mongodbUrl(env, roles),
    integrationApiKeys: list(env.INTEGRATION_API_KEYS),
    jwtSecret: env.JWT_SECRET || undefined,
    jwtIssuer: env.JWT_ISSUER || undefined,
    allowDevTokens: allowDevTokens(env),
    identityCacheSeconds: bounded(env, 'IDENTITY_CACHE_SECONDS', 30, 0, 3600),
    accessTokenTtlSeconds: bounded(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, 30, 86_400),
    refreshTokenTtlSeconds: bounded(env, 'REFRESH_TOKEN_TTL_SECONDS', 7 * 24 * 3600, 60, 90 * 24 * 3600),
    dataDir,
    roles,
    classDirs: classDirs.length ? classDirs : [compiled(path.join(root, 'classes'))],
    schemaDirs: schemaDirs.length ? schemaDirs : [path.join(root, 'schemas')],
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 16, 1),
    bodyLimit: bodyLimit(env),
    maxJsonDepth: maxJsonDepth(env),
    logLevel: logLevel(env),
    maxCallDepth: int(env, 'MAX_CALL_DEPTH', 8, 1),
    jobLockMs: int(env, 'JOB_LOCK_MS', 30000, 1000),
    leaseTtlMs: int(env, 'LEASE_TTL_MS', 10000, 1000),
    readCacheMb: int(env, 'READ_CACHE_MB', 64, 0),
    journalRetentionDays: bounded(env, 'JOURNAL_RETENTION_DAYS', DEFAULT_JOURNAL_RETENTION_DAYS, 1, 3650),
    lookupCacheSize: int(env, 'LOOKUP_CACHE_SIZE', 100000, 0),
    projectionBatchMs: int(env, 'PROJECTION_BATCH_MS', 10, 0),
    projector: projectorSettings(env),
    smtpUrl: smtpUrl(env),
    mailFrom: mailFrom(env),
    mailAttempts: bounded(env, 'MAIL_ATTEMPTS', 8, 1, 100),
    mailBackoffMs: bounded(env, 'MAIL_BACKOFF_MS', 2000, 10, 3_600_000),
    mailConcurrency: bounded(env, 'MAIL_CONCURRENCY', 10, 1, 1000),
    tls: tlsFiles(env),
    trustProxy: trustProxy(env),
    corsOrigins: corsOrigins(env),
    consoleUsers: list(env.CONSOLE_USERS),
    consoleReadOnly: consoleReadOnly(env),
    env,
  };
}
