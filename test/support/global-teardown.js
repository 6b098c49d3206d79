/*
 * jest globalTeardown: stops the redis-server and the Redis Cluster that
 * global-setup.js started (if any) and waits until their processes have
 * exited, then removes the run's temporary directory.
 */
'use strict';

const fs = require('node:fs');
const { stopPid } = require('./redis-server');

module.exports = async function globalTeardown() {
  const stopped = await Promise.allSettled([stopRedis(), stopCluster()]);
  const run = globalThis.__RUN_TMP__;
  if (run) {
    globalThis.__RUN_TMP__ = undefined;
    if (run.previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = run.previous;
    fs.rmSync(run.dir, { recursive: true, force: true, maxRetries: 3 });
  }
  const failed = stopped.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
};

async function stopRedis() {
  const server = globalThis.__REDIS__;
  if (!server) return;
  globalThis.__REDIS__ = undefined;
  if (typeof server.stop === 'function') await server.stop();
  else if (server.pid) await stopPid(server.pid);
  if (process.env.TEST_REDIS_STARTED === '1') {
    delete process.env.REDIS_URL;
    delete process.env.TEST_REDIS_STARTED;
  }
}

async function stopCluster() {
  const cluster = globalThis.__REDIS_CLUSTER__;
  globalThis.__REDIS_CLUSTER__ = undefined;
  if (process.env.TEST_REDIS_CLUSTER_STARTED) {
    delete process.env.TEST_REDIS_CLUSTER_NODES;
    delete process.env.TEST_REDIS_CLUSTER_STARTED;
  }
  if (!cluster) return;
  if (typeof cluster.stop === 'function') await cluster.stop();
  else await Promise.all(cluster.nodes.map((n) => stopPid(n.pid)));
}
