/*
 * jest globalSetup: when REDIS_URL is unset, starts a throw-away redis-server
 * (no persistence) on a free port for the whole run. Environment changes made
 * here reach the test workers, which jest starts afterwards.
 */
'use strict';

const { startRedisServer } = require('./redis-server');

module.exports = async function globalSetup() {
  if (process.env.REDIS_URL) return;
  const server = await startRedisServer();
  process.env.REDIS_URL = server.url;
  process.env.TEST_REDIS_STARTED = '1';
  // globalSetup and globalTeardown run in the same process: teardown reads this.
  globalThis.__REDIS__ = { pid: server.pid, port: server.port, url: server.url, stop: server.stop };
};
