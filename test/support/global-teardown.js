/*
 * jest globalTeardown: stops the redis-server that global-setup.js started
 * (if any) and waits until the process has exited, then removes the run's
 * temporary directory.
 */
'use strict';

const fs = require('node:fs');
const { stopPid } = require('./redis-server');

module.exports = async function globalTeardown() {
  await stopRedis();
  const run = globalThis.__RUN_TMP__;
  if (run) {
    globalThis.__RUN_TMP__ = undefined;
    if (run.previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = run.previous;
    fs.rmSync(run.dir, { recursive: true, force: true, maxRetries: 3 });
  }
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
