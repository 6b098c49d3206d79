/*
 * jest globalTeardown: stops the redis-server that global-setup.js started
 * (if any) and waits until the process has exited.
 */
'use strict';

const { stopPid } = require('./redis-server');

module.exports = async function globalTeardown() {
  const server = globalThis.__REDIS__;
  if (!server) return;
  globalThis.__REDIS__ = undefined;
  if (typeof server.stop === 'function') await server.stop();
  else if (server.pid) await stopPid(server.pid);
  if (process.env.TEST_REDIS_STARTED === '1') {
    delete process.env.REDIS_URL;
    delete process.env.TEST_REDIS_STARTED;
  }
};
