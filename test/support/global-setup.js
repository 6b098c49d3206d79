/*
 * jest globalSetup: makes the run's temporary directory (TMPDIR), and when
 * REDIS_URL is unset, starts a throw-away redis-server (no persistence) on a
 * free port for the whole run. Besides, it gives the run a Redis Cluster in
 * TEST_REDIS_CLUSTER_NODES (host:port,... masters first) for the suites that
 * test against one: REDIS_CLUSTER_NODES when the caller set it, else one local
 * cluster of 3 masters (no replicas, no persistence) started here, unless
 * TEST_REDIS_CLUSTER=0. Tests use REDIS_URL unless they ask for the cluster:
 * REDIS_CLUSTER_NODES itself is left as the caller had it. Environment changes
 * made here reach the test workers, which jest starts afterwards.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startRedisServer } = require('./redis-server');
const { startRedisCluster } = require('./redis-cluster');

module.exports = async function globalSetup() {
  // One temporary directory per run, removed by global-teardown.js: the workers and the processes they
  // start inherit TMPDIR, so every os.tmpdir() path of the run (runtimes' DATA_DIRs, mkdtemp files, e-mails
  // written to disk) lands there instead of piling up in /tmp run after run.
  const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'membership-tests-'));
  globalThis.__RUN_TMP__ = { dir: runTmp, previous: process.env.TMPDIR };
  process.env.TMPDIR = runTmp;
  // password hashes 32 times cheaper than production's (thousands are made; the runtimes and processes the
  // workers start inherit it); test/_platform/passwords.test.ts checks the production parameters themselves
  process.env.SCRYPT_LOG_N ??= '10';
  // the server and the cluster start side by side: the cluster's ~2 s (a new master waits 2 s before it
  // calls the cluster ok) overlap the server's start
  const [server, cluster] = await Promise.allSettled([startServer(), startCluster(Boolean(process.env.REDIS_URL))]);
  if (server.status === 'rejected' || cluster.status === 'rejected') {
    // one failed: stop the other before failing the run (teardown does not run after a failed setup)
    await require('./global-teardown')();
    throw server.status === 'rejected' ? server.reason : cluster.reason;
  }
};

async function startServer() {
  if (process.env.REDIS_URL) return;
  const server = await startRedisServer();
  process.env.REDIS_URL = server.url;
  process.env.TEST_REDIS_STARTED = '1';
  // globalSetup and globalTeardown run in the same process: teardown reads this.
  globalThis.__REDIS__ = { pid: server.pid, port: server.port, url: server.url, stop: server.stop };
}

async function startCluster(callersRedis) {
  if (process.env.REDIS_CLUSTER_NODES) {
    process.env.TEST_REDIS_CLUSTER_NODES = process.env.REDIS_CLUSTER_NODES;
    process.env.TEST_REDIS_CLUSTER_STARTED = 'caller';
    return;
  }
  if (process.env.TEST_REDIS_CLUSTER === '0') return;
  const started = Date.now();
  let cluster;
  try {
    cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
  } catch (err) {
    if (err.notInstalled && callersRedis) {
      // a caller's REDIS_URL needs no local redis-server (scripts/ensure-deps.js installs none then): the
      // run goes on as before, without the cluster suites (they skip when TEST_REDIS_CLUSTER_NODES is unset)
      process.stderr.write(`[global-setup] no local Redis Cluster, its suites are skipped: ${err.message}\n`);
      return;
    }
    err.message +=
      '\n(TEST_REDIS_CLUSTER=0 runs without a cluster, REDIS_CLUSTER_NODES=host:port,... uses one of yours)';
    throw err;
  }
  process.env.TEST_REDIS_CLUSTER_NODES = cluster.nodesEnv;
  process.env.TEST_REDIS_CLUSTER_STARTED = '1';
  globalThis.__REDIS_CLUSTER__ = { nodes: cluster.nodes, stop: cluster.stop, startMs: Date.now() - started };
}
