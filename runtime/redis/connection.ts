/**
 * Where the runtime's Redis is, and the connections it opens to it: one
 * `redis-server` (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). Every
 * connection the runtime opens (state, queues, mail delivery, blocking
 * readers, pub/sub) is made here, so a cluster is a cluster everywhere.
 *
 * On a cluster, ioredis routes each command to the master of its key's slot
 * and follows MOVED/ASK after a resharding or a failover; a script's or a
 * MULTI's keys must share one slot (the key layout in state-store.ts gives
 * every key of an instance one hash tag). Keyless commands go to a random
 * node, so a WAIT is sent in the same pipeline as the write it confirms.
 */
import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';

/** One Redis server, or the seed nodes of a Redis Cluster (any reachable subset names the whole cluster). */
export type RedisTarget =
  { kind: 'single'; url: string } | { kind: 'cluster'; nodes: { host: string; port: number }[] };

/** A connection to either: both speak the same commands, MULTI and pipelines (within one slot on a cluster). */
export type RedisConnection = Redis | Cluster;

/**
 * REDIS_CLUSTER_NODES: `host:port` or `redis://host:port` seeds, comma-separated.
 * Throws with the offending entry named.
 */
export function parseClusterNodes(raw: string): { host: string; port: number }[] {
  const nodes = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const m = /^(?:rediss?:\/\/)?\[?([^\]\s/]+?)\]?:(\d{1,5})\/?$/.exec(entry);
      const port = m ? Number(m[2]) : NaN;
      if (!m || port < 1 || port > 65535) throw new Error(`REDIS_CLUSTER_NODES: '${entry}' is not host:port`);
      return { host: m[1], port };
    });
  if (!nodes.length) throw new Error('REDIS_CLUSTER_NODES names no node (host:port, comma-separated)');
  return nodes;
}

export function isCluster(conn: RedisConnection): conn is Cluster {
  return (conn as Cluster).isCluster === true;
}

/** Options ioredis takes at the top level of a cluster, not per node. */
const CLUSTER_LEVEL = ['enableOfflineQueue', 'enableAutoPipelining', 'lazyConnect', 'enableReadyCheck'] as const;

/**
 * A cluster client with `options` applied to every node connection. During a
 * failover (a master's replica takes its slots after cluster-node-timeout)
 * commands are retried on CLUSTERDOWN/TRYAGAIN and redirected on MOVED for
 * up to about maxRedirections × retry delay, so calls wait out a short
 * failover instead of failing; the per-command time-out still bounds each.
 */
function clusterClient(nodes: ClusterNode[], options: RedisOptions): Cluster {
  const node: Record<string, unknown> = { ...options };
  // a cluster reconnects by its own strategy (clusterRetryStrategy below)
  delete node.retryStrategy;
  for (const k of CLUSTER_LEVEL) delete node[k];
  const top: ClusterOptions = {
    redisOptions: node,
    enableOfflineQueue: options.enableOfflineQueue ?? true,
    enableAutoPipelining: options.enableAutoPipelining ?? false,
    lazyConnect: options.lazyConnect ?? false,
    // the cluster never gives up reconnecting, as a single connection does not (client.ts reconnectDelay)
    clusterRetryStrategy: (times) => Math.min(100 * times, 2000),
    retryDelayOnClusterDown: 300,
    retryDelayOnFailover: 200,
    retryDelayOnTryAgain: 200,
    maxRedirections: 32,
    slotsRefreshTimeout: 2000,
    // reads go to masters: a replica may lag behind a commit its caller already saw
    scaleReads: 'master',
  };
  return new Cluster(nodes, top);
}

/** A new connection to `target` with `options` (per node on a cluster). */
export function connect(target: RedisTarget, options: RedisOptions): RedisConnection {
  if (target.kind === 'single') return new Redis(target.url, options);
  return clusterClient(target.nodes, options);
}

/**
 * Defines a Lua script that is told its number of keys on each call (its
 * first argument). On a cluster such a script is never auto-pipelined: ioredis
 * groups an auto-pipelined call by the slot of its first argument, here the
 * key count, so calls on keys of different masters would share a pipeline the
 * cluster client refuses ("All keys in the pipeline should belong to the same
 * slots allocation group"). Scripts with a fixed number of keys are grouped by
 * their first key and keep auto-pipelining.
 */
export function defineVariadicScript(conn: RedisConnection, name: string, lua: string): void {
  conn.defineCommand(name, { lua });
  if (!isCluster(conn)) return;
  const ignored = conn.options.autoPipeliningIgnoredCommands ?? [];
  if (!ignored.includes(name)) conn.options.autoPipeliningIgnoredCommands = [...ignored, name];
}

/** Another connection to where `conn` points, with `overrides` on its options (a blocking reader, a worker's). */
export function duplicate(conn: RedisConnection, overrides: RedisOptions = {}): RedisConnection {
  if (!isCluster(conn)) return conn.duplicate(overrides);
  const node: Record<string, unknown> = { ...(conn.options.redisOptions ?? {}), ...overrides };
  const top: Partial<ClusterOptions> = {};
  delete node.retryStrategy;
  for (const k of CLUSTER_LEVEL) {
    if (k in node) (top as Record<string, unknown>)[k] = node[k];
    delete node[k];
  }
  return conn.duplicate([], { ...top, redisOptions: node });
}

/** The per-command time-out of `conn` (ms; 0 when none). */
export function commandTimeoutOf(conn: RedisConnection): number {
  const t = isCluster(conn) ? conn.options.redisOptions?.commandTimeout : conn.options.commandTimeout;
  return typeof t === 'number' && t > 0 ? t : 0;
}

/**
 * The connections to scan: every master of a cluster (SCAN walks one node's
 * keys only), or the connection itself.
 */
export function scanTargets(conn: RedisConnection): Redis[] {
  return isCluster(conn) ? conn.nodes('master') : [conn];
}

/**
 * How many replicas the masters have (the least of them: WAIT 1 needs one
 * behind every master), 0 on a server without replicas.
 */
export async function replicasPerMaster(conn: RedisConnection): Promise<number> {
  if (isCluster(conn)) {
    const raw = String(await conn.cluster('NODES'));
    const masters = new Map<string, number>();
    const lines = raw.split('\n').filter(Boolean);
    for (const line of lines) {
      const [id, , flags, master] = line.split(' ');
      if (/\bmaster\b/.test(flags) && !/\bfail\b/.test(flags)) masters.set(id, masters.get(id) ?? 0);
      else if (/\bslave\b/.test(flags) && !/\bfail\b/.test(flags) && master && master !== '-')
        masters.set(master, (masters.get(master) ?? 0) + 1);
    }
    return masters.size ? Math.min(...masters.values()) : 0;
  }
  const info = await conn.info('replication');
  const m = /connected_slaves:(\d+)/.exec(info);
  return m ? Number(m[1]) : 0;
}
