/**
 * Start-up errors an operator fixes in the environment: an unreachable
 * REDIS_URL, REDIS_CLUSTER_NODES or MONGODB_URL, a PORT in use, a bad JWT_SECRET, PORT or ROLES,
 * any value loadConfig refuses. main.ts prints them as one line,
 * `error: <SETTING>: <cause>`, on stderr and exits 1: no stack trace, and
 * none of ioredis's per-attempt messages.
 */
import type { Redis } from 'ioredis';
import { JWT_SECRET_MIN_LENGTH } from './auth/auth';
import { connect, type RedisConnection, type RedisTarget } from './redis/connection';

export class StartupError extends Error {
  constructor(
    /** the environment variable to fix */
    readonly setting: string,
    /** what is wrong with it, without the variable's name in front */
    readonly reason: string,
  ) {
    super(`${setting}: ${reason}`);
    this.name = 'StartupError';
  }
}

/** How long the first connection to REDIS_URL, REDIS_CLUSTER_NODES or MONGODB_URL may take before the start is given up. */
export const FIRST_CONNECTION_TIMEOUT_MS = 5000;

/**
 * An error loadConfig (or another reader of the environment) threw, as a
 * StartupError: their messages start with the variable's name, followed by
 * `:` or by `must`. A message that does not start with an upper-case name
 * is left alone (undefined). Only for errors of those readers: any message
 * starting with a capital word would do.
 */
export function fromConfigError(err: unknown): StartupError | undefined {
  if (err instanceof StartupError) return err;
  const message = (err as Error | null)?.message;
  if (typeof message !== 'string') return undefined;
  const m = /^([A-Z][A-Z0-9]+(?:_[A-Z0-9]+)*)(:\s*|\s+)([\s\S]*)$/.exec(message);
  if (!m) return undefined;
  const [, setting, sep, rest] = m;
  if (sep.startsWith(':')) return new StartupError(setting, rest);
  if (/^(must|names)\b/.test(rest)) return new StartupError(setting, rest);
  // e.g. "TLS_CERT and TLS_KEY go together: ...": kept whole
  return new StartupError(setting, message);
}

/** JWT_SECRET, when set, is long enough; checked before any connection opens. */
export function checkJwtSecret(secret: string | undefined): void {
  if (secret !== undefined && secret.length < JWT_SECRET_MIN_LENGTH) {
    throw new StartupError('JWT_SECRET', `must be at least ${JWT_SECRET_MIN_LENGTH} characters, got ${secret.length}`);
  }
}

/** A URL as it may be printed: scheme, host and port only (it may hold a password). */
export function safeUrl(raw: string): string {
  try {
    const url = new URL(raw);
    return `${url.protocol}//${url.host}`;
  } catch {
    return 'the value set';
  }
}

function reasonOf(err: unknown): string {
  // a cluster that could not load its slots says why in the last seed node's error
  const inner = (err as { lastNodeError?: unknown } | null)?.lastNodeError;
  if (inner) return reasonOf(inner);
  const e = err as NodeJS.ErrnoException | null;
  const message = typeof e?.message === 'string' ? e.message.split('\n')[0] : String(err);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}

/** Seed nodes as they may be printed. */
function nodesText(nodes: { host: string; port: number }[]): string {
  return nodes.map((n) => (n.host.includes(':') ? `[${n.host}]:${n.port}` : `${n.host}:${n.port}`)).join(',');
}

/** Waits until `client` is ready (a cluster: its slots are known), or rejects with its last error past `timeoutMs`. */
function ready(client: RedisConnection, timeoutMs: number, seen: { last?: unknown }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the client's own last error, as it was raised
    const timer = setTimeout(() => reject(seen.last ?? new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
    client.once('end', () => {
      clearTimeout(timer);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the client's own last error, as it was raised
      reject(seen.last ?? new Error('connection closed'));
    });
    client.connect().catch((err: unknown) => (seen.last ??= err));
  });
}

/**
 * Connect to Redis once and PING, retrying for up to `timeoutMs`; a
 * StartupError naming REDIS_URL (a server: `url` or `{ kind: 'single' }`) or
 * REDIS_CLUSTER_NODES (`{ kind: 'cluster' }`) when it never answers. A
 * cluster must also say its state is ok (every slot served) by then. Its
 * connection's errors are not printed (ioredis prints every failed attempt
 * without an 'error' listener).
 */
export async function checkRedisReachable(
  target: string | RedisTarget,
  timeoutMs = FIRST_CONNECTION_TIMEOUT_MS,
): Promise<void> {
  if (typeof target !== 'string' && target.kind === 'cluster') return checkClusterReachable(target.nodes, timeoutMs);
  const url = typeof target === 'string' ? target : target.url;
  const deadline = Date.now() + timeoutMs;
  const seen: { last?: unknown } = {};
  const client = connect(
    { kind: 'single', url },
    {
      lazyConnect: true,
      connectTimeout: Math.min(2000, timeoutMs),
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // retried until the deadline: a Redis started at the same moment (compose) gets its few seconds
      retryStrategy: () => (Date.now() + 250 < deadline ? 250 : null),
    },
  ) as Redis;
  client.on('error', (err) => (seen.last = err));
  try {
    await ready(client, timeoutMs, seen);
    await client.ping();
  } catch (err) {
    client.disconnect();
    throw new StartupError('REDIS_URL', `cannot reach Redis at ${safeUrl(url)} (${reasonOf(seen.last ?? err)})`);
  }
  try {
    // ioredis selects the URL's database on connect and, when Redis refuses it, reports that as an
    // error event and goes on in database 0: selected here, a refusal stops the start
    const db = client.options.db ?? 0;
    if (db !== 0) await client.select(db);
  } catch (err) {
    throw new StartupError(
      'REDIS_URL',
      `Redis at ${safeUrl(url)} refuses database ${client.options.db} (${reasonOf(err)})`,
    );
  } finally {
    client.disconnect();
  }
}

/**
 * The cluster of REDIS_CLUSTER_NODES answers within `timeoutMs`: its slots are
 * known from a seed node and CLUSTER INFO says its state is ok (a cluster
 * still forming, or missing a master, is waited for until the deadline).
 */
async function checkClusterReachable(nodes: { host: string; port: number }[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const seen: { last?: unknown } = {};
  const client = connect(
    { kind: 'cluster', nodes },
    {
      lazyConnect: true,
      connectTimeout: Math.min(2000, timeoutMs),
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
    },
  );
  client.on('error', (err: unknown) => (seen.last = err));
  // why a seed node failed (refused, not in cluster mode): the cluster's own error only says its slots did not load
  client.on('node error', (err: unknown) => (seen.last = err));
  let state: string;
  try {
    await ready(client, timeoutMs, seen);
    for (;;) {
      state = /cluster_state:(\w+)/.exec(String(await client.cluster('INFO')))?.[1] ?? '';
      if (state === 'ok' || Date.now() + 250 >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (err) {
    // a seed node that refused the connection is reported only as a closed connection
    const reason = reasonOf(seen.last ?? err);
    throw new StartupError(
      'REDIS_CLUSTER_NODES',
      `cannot reach the Redis Cluster at ${nodesText(nodes)} (${reason === 'Connection is closed.' ? 'no seed node accepts a connection' : reason})`,
    );
  } finally {
    client.disconnect();
  }
  if (state !== 'ok') {
    throw new StartupError(
      'REDIS_CLUSTER_NODES',
      `the Redis Cluster at ${nodesText(nodes)} is not serving every slot (cluster_state: ${state || 'unknown'})`,
    );
  }
}

/** Connect to MONGODB_URL once within `timeoutMs`; a StartupError naming MONGODB_URL when it cannot. */
export async function checkMongoReachable(url: string, timeoutMs = FIRST_CONNECTION_TIMEOUT_MS): Promise<void> {
  const { MongoClient } = await import('mongodb');
  let client: InstanceType<typeof MongoClient>;
  try {
    client = new MongoClient(url, { serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs });
  } catch (err) {
    throw new StartupError('MONGODB_URL', `not a MongoDB connection string (${reasonOf(err)})`);
  }
  try {
    await client.connect();
    await client.db().command({ ping: 1 });
  } catch (err) {
    throw new StartupError('MONGODB_URL', `cannot reach MongoDB at ${safeUrl(url)} (${reasonOf(err)})`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The HTTP server's listen error as a StartupError naming PORT (in use, not allowed), or undefined. */
export function fromListenError(err: unknown, port: number): StartupError | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') return new StartupError('PORT', `port ${port} is in use by another process`);
  if (code === 'EACCES') return new StartupError('PORT', `not allowed to listen on port ${port} (EACCES)`);
  return undefined;
}
