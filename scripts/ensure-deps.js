#!/usr/bin/env node
/*
 * Makes sure what `npm start` and `npm test` need is installed:
 *   1. npm packages: runs `npm ci` when node_modules is missing or older than
 *      package-lock.json (and stops when npm ci refuses the lockfile, see
 *      ensureNodeModules);
 *   2. redis-server: when it is not on PATH and REDIS_URL is unset, installs
 *      Debian's redis-server package with apt-get (root only);
 *   3. for `npm test` only (npm's pretest, or --chromium): a Chromium for the
 *      page tests (test/support/browser.ts), Debian's chromium package with
 *      apt-get when none is on PATH and CHROMIUM_PATH is unset (root only;
 *      otherwise a warning, and the page tests say how to get one).
 * Both apt packages missing cost one apt-get update and one apt-get install.
 *
 * Runs before node_modules may exist, so it uses Node's standard library only.
 * Idempotent; prints one line per action taken and nothing when all is there.
 * Set SKIP_ENSURE_DEPS=1 to skip every check.
 */
'use strict';

const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const TAG = '[ensure-deps]';

function log(msg) {
  process.stdout.write(`${TAG} ${msg}\n`);
}

function fail(msg) {
  process.stderr.write(`${TAG} ERROR: ${msg}\n`);
  process.exit(1);
}

function mtimeMs(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

function run(cmd, args, env) {
  const res = spawnSync(cmd, args, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: env || process.env,
  });
  if (res.error) fail(`could not run ${cmd}: ${res.error.message}`);
  if (res.status !== 0) {
    fail(
      `\`${cmd} ${args.join(' ')}\` exited with ${res.status === null ? `signal ${res.signal}` : `code ${res.status}`}`,
    );
  }
}

function onPath(cmd) {
  const res = spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: ['ignore', 'pipe', 'ignore'] });
  return res.status === 0 && String(res.stdout).trim() !== '';
}

function ensureNodeModules() {
  const lock = path.join(root, 'package-lock.json');
  const hidden = path.join(root, 'node_modules', '.package-lock.json');
  const lockTime = mtimeMs(lock);
  const hiddenTime = mtimeMs(hidden);
  if (lockTime === undefined) {
    if (hiddenTime !== undefined) return;
    log('package-lock.json missing: running npm install');
    run('npm', ['install', '--no-audit', '--no-fund']);
    return;
  }
  if (hiddenTime !== undefined && hiddenTime >= lockTime) return;
  log(
    hiddenTime === undefined
      ? 'node_modules missing: running npm ci'
      : 'node_modules older than package-lock.json: running npm ci',
  );
  // stderr is held back so that a rejected lockfile doesn't print npm's whole usage text.
  const res = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.error) fail(`could not run npm: ${res.error.message}`);
  const stderr = String(res.stderr || '');
  if (res.status === 0) {
    process.stderr.write(stderr);
    return;
  }
  if (/EUSAGE/.test(stderr) && /in sync/.test(stderr)) {
    // `npm ci` compares the lockfile with the tree npm would build from it and
    // refuses entries the lockfile lacks. With npm >= 11.16 this also happens
    // for a lockfile `npm install` has just written, when a registry (a mirror
    // or proxy) does not serve an optional platform package another package
    // names (msgpackr-extract's @msgpackr-extract/*-darwin-*, -win32-*, or
    // unrs-resolver's @unrs/resolver-binding-*): npm install leaves the
    // unavailable package out of the lockfile, npm ci still counts it and
    // reports it "Missing: <name>@ from lock file", with an empty version
    // (npm/cli#9846, fix proposed in npm/cli#9850; npm/cli#9342 and #9343 are
    // where npm began leaving such entries out). package-lock.json therefore
    // records those packages itself, by name, version, os, cpu (and libc), as
    // npm writes them where the whole registry is reachable, but without an
    // integrity hash (the registry they were added from serves no tarball to
    // hash; npm checks the one the registry publishes when it downloads): a
    // platform that needs one fetches it by that version, one that does not
    // skips it unfetched, and `npm install` keeps the entries. Installing with `npm install` instead would hide a lockfile
    // the image build (`npm ci` in the Dockerfile) and CI refuse, so this
    // stops: add the packages it names to package-lock.json (from `npm install`
    // on a machine that reaches the whole registry, or as entries like the
    // ones there) and run again.
    const missing = stderr.match(/^npm error (Missing|Invalid): .*$/gm) || [];
    fail(
      `npm ci refused package-lock.json as out of sync with package.json:\n  ${missing.join('\n  ')}\n` +
        '  (see the comment in scripts/ensure-deps.js for optional platform packages a registry does not serve)',
    );
  }
  process.stderr.write(stderr);
  fail(`npm ci exited with ${res.status === null ? `signal ${res.signal}` : `code ${res.status}`}`);
}

const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome', 'chrome'];

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

/** apt packages to install: redis-server is required, so its absence stops here when apt cannot help */
function redisServerWanted() {
  if (process.env.REDIS_URL) return false;
  if (onPath('redis-server')) return false;
  if (!isRoot() || !onPath('apt-get')) {
    fail(
      'redis-server is not installed and REDIS_URL is not set.\n' +
        '  Install it (Debian/Ubuntu: `sudo apt-get install -y redis-server`, macOS: `brew install redis`)\n' +
        '  or point REDIS_URL at a running Redis (e.g. REDIS_URL=redis://127.0.0.1:6379).',
    );
  }
  return true;
}

/** the page tests' browser: only for a test run, and a warning (not a stop) when it cannot be installed */
function chromiumWanted() {
  const forTests = process.argv.includes('--chromium') || process.env.npm_lifecycle_event === 'pretest';
  if (!forTests) return false;
  if (process.env.CHROMIUM_PATH || process.env.PUPPETEER_EXECUTABLE_PATH) return false;
  if (CHROMIUM_NAMES.some(onPath)) return false;
  if (!isRoot() || !onPath('apt-get')) {
    log(
      'WARNING: no Chromium for the page tests (test/pages) and not root: they will fail.\n' +
        '  Install it (Debian/Ubuntu: `sudo apt-get install -y chromium`) or set CHROMIUM_PATH.',
    );
    return false;
  }
  return true;
}

function ensureAptPackages() {
  const packages = [];
  if (redisServerWanted()) packages.push('redis-server');
  if (chromiumWanted()) packages.push('chromium');
  if (packages.length === 0) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  log(`${packages.join(' and ')} not found: running apt-get update`);
  run('apt-get', ['update'], env);
  log(`installing ${packages.join(' ')}: running apt-get install -y ${packages.join(' ')}`);
  run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], env);
  if (packages.includes('redis-server') && !onPath('redis-server'))
    fail('apt-get installed redis-server but it is still not on PATH');
  if (packages.includes('chromium') && !CHROMIUM_NAMES.some(onPath))
    fail('apt-get installed chromium but it is still not on PATH');
}

if (process.env.SKIP_ENSURE_DEPS === '1') process.exit(0);
ensureNodeModules();
ensureAptPackages();
