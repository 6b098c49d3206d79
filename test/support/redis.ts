/** Helpers for test files that need Redis (jest's globalSetup sets REDIS_URL). */
import { randomInt } from 'crypto';

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** The Redis the tests use; set by test/support/global-setup.js or by the caller's environment. */
export function redisUrl(): string {
  const url = process.env.REDIS_URL;
  if (!url) {
    throw new Error('REDIS_URL is not set: run the tests through jest (its globalSetup starts redis-server) or set it');
  }
  return url;
}

/**
 * The suite's local Redis Cluster (test/support/global-setup.js starts one per
 * run): its nodes as REDIS_CLUSTER_NODES takes them.
 */
export function clusterNodes(): string {
  const nodes = process.env.TEST_REDIS_CLUSTER_NODES;
  if (!nodes)
    throw new Error(
      'TEST_REDIS_CLUSTER_NODES is not set: run the tests through jest (its globalSetup starts a local Redis Cluster) or set REDIS_CLUSTER_NODES',
    );
  return nodes;
}

/** true in the suite's cluster leg (TEST_TOPOLOGY=cluster): runtimes the harness starts use the local cluster */
export function onCluster(): boolean {
  return process.env.TEST_TOPOLOGY === 'cluster';
}

/** The environment that points a runtime at the test Redis of this leg (a server, or the cluster). */
export function redisEnv(cluster = onCluster()): Record<string, string> {
  return cluster ? { REDIS_URL: '', REDIS_CLUSTER_NODES: clusterNodes() } : { REDIS_URL: redisUrl() };
}

/** `prefix` + 8 random lowercase alphanumeric characters, e.g. `tq3k9x0ab`. */
export function uniqueProjectId(prefix = 't'): string {
  let id = prefix;
  for (let i = 0; i < 8; i++) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}
