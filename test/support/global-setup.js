/*
 * jest globalSetup: makes the run's temporary directory (TMPDIR), and when
 * REDIS_URL is unset, starts a throw-away redis-server (no persistence) on a
 * free port for the whole run. Environment changes made
 * here reach the test workers, which jest starts afterwards.
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startRedisServer } = require('./redis-server');

module.exports = async function globalSetup() {
  // One temporary directory per run, removed by global-teardown.js: the workers and the processes they
  // start inherit TMPDIR, so every os.tmpdir() path of the run (runtimes' DATA_DIRs, mkdtemp files, e-mails
  // written to disk) lands there instead of piling up in /tmp run after run.
  const runTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'membership-tests-'));
  globalThis.__RUN_TMP__ = { dir: runTmp, previous: process.env.TMPDIR };
  process.env.TMPDIR = runTmp;
  if (process.env.REDIS_URL) return;
  const server = await startRedisServer();
  process.env.REDIS_URL = server.url;
  process.env.TEST_REDIS_STARTED = '1';
  // globalSetup and globalTeardown run in the same process: teardown reads this.
  globalThis.__REDIS__ = { pid: server.pid, port: server.port, url: server.url, stop: server.stop };
};
