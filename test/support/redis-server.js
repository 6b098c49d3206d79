/*
 * jest's globalSetup, globalTeardown and redis-cluster.js are loaded without
 * the ts-jest transform, so they reach runtime/redis/embedded-redis.ts
 * through tsx (a dev dependency) instead of keeping a plain-JS copy of it:
 * one implementation starts, waits for and stops every embedded redis-server.
 */
'use strict';

/** loaded on first use: redis-cluster.js needs findFreePort alone, in the CLI as well */
let embedded;
function embeddedRedis() {
  // a test file (jest transforms .ts) or a process already running under tsx (a bench, a script) loads .ts
  // itself: tsx's own loader is for jest's globalSetup and plain node only (registering it a second time breaks
  // modules both load, ioredis: "Cannot redefine property: default"; inside jest its namespaced paths are not found)
  embedded ??=
    process.env.JEST_WORKER_ID !== undefined || typeof require.extensions?.['.ts'] === 'function'
      ? require('../../runtime/redis/embedded-redis.ts')
      : require('tsx/cjs/api').require('../../runtime/redis/embedded-redis.ts', __filename);
  return embedded;
}

function findFreePort() {
  return embeddedRedis().findFreePort();
}

/**
 * Starts a throw-away redis-server (no persistence, in a temp dir that stop() removes) on a free
 * 127.0.0.1 port; resolves with { url, port, pid, stop() }.
 */
function startRedisServer({ timeoutMs = 20000 } = {}) {
  return embeddedRedis().startEmbeddedRedis({ startTimeoutMs: timeoutMs });
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Stops a server by pid alone, for a process that holds no handle to it: SIGTERM, wait with a
 * deadline, then SIGKILL.
 */
async function stopPid(pid, timeoutMs = 10000) {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      return err.code === 'EPERM';
    }
  };
  if (!alive()) return;
  process.kill(pid, 'SIGTERM');
  for (const [signal, ms] of [
    [null, timeoutMs],
    ['SIGKILL', 5000],
  ]) {
    if (signal && alive()) process.kill(pid, signal);
    const deadline = Date.now() + ms;
    let wait = 10;
    while (alive() && Date.now() < deadline) {
      await delay(wait);
      wait = Math.min(wait * 2, 200);
    }
    if (!alive()) return;
  }
  throw new Error(`redis-server pid ${pid} did not exit`);
}

module.exports = { findFreePort, startRedisServer, stopPid };
