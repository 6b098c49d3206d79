/*
 * Plain-JS twin of runtime/redis/embedded-redis.ts for jest's globalSetup,
 * which jest loads without transpiling: starts a throw-away redis-server
 * (no persistence, temp dir) on a free 127.0.0.1 port and stops it.
 */
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const HOST = '127.0.0.1';

function findFreePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ port: 0, host: HOST, exclusive: true }, () => {
      const { port } = srv.address();
      srv.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}

/** Sends an inline command; resolves with the first reply line (or bulk payload), or null on failure. */
function command(port, line, timeoutMs) {
  return new Promise((resolve) => {
    let buf = '';
    let done = false;
    const sock = net.createConnection({ host: HOST, port });
    const finish = (value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.destroy();
      resolve(value);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    sock.once('error', () => finish(null));
    sock.once('close', () => finish(null));
    sock.once('connect', () => sock.write(`${line}\r\n`));
    sock.on('data', (chunk) => {
      buf += chunk.toString('utf8');
      const eol = buf.indexOf('\r\n');
      if (eol < 0) return;
      if (buf[0] !== '$') return finish(buf.slice(0, eol));
      const len = Number(buf.slice(1, eol));
      if (len < 0) return finish(null);
      if (buf.length >= eol + 2 + len) finish(buf.slice(eol + 2, eol + 2 + len));
    });
  });
}

function findOnPath(cmd) {
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, cmd);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function waitExit(child, exited, ms) {
  let timer;
  return Promise.race([
    exited.then(() => true),
    new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function startOnce(bin, port, dir, timeoutMs) {
  const args = [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
  ];
  // setpriv --pdeathsig: redis dies with jest even if jest is SIGKILLed before its teardown.
  const setpriv = process.platform === 'linux' ? findOnPath('setpriv') : undefined;
  const child = setpriv
    ? spawn(setpriv, ['--pdeathsig', 'TERM', '--', bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir })
    : spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  let output = '';
  const collect = (chunk) => {
    output = (output + chunk.toString('utf8')).slice(-8192);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exitedFlag = false;
  const exited = new Promise((resolve) => {
    child.once('error', (err) => resolve({ error: err }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).then((e) => {
    exitedFlag = true;
    return e;
  });

  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    if (exitedFlag) {
      const e = await exited;
      const err = new Error(
        e.error
          ? `could not start ${bin}: ${e.error.message}`
          : `redis-server on port ${port} exited (${e.signal || `code ${e.code}`}) before answering PING\n${output.trim()}`,
      );
      err.addressInUse = /address already in use/i.test(output);
      throw err;
    }
    if ((await command(port, 'PING', 500)) === '+PONG') {
      const info = await command(port, 'INFO server', 1000);
      const m = info && /^process_id:(\d+)/m.exec(info);
      if (!m || Number(m[1]) === child.pid) break;
      child.kill('SIGKILL');
      await waitExit(child, exited, 5000);
      const err = new Error(`port ${port} is already served by another Redis (pid ${m[1]})`);
      err.addressInUse = true;
      throw err;
    }
    if (Date.now() >= deadline) {
      child.kill('SIGKILL');
      await waitExit(child, exited, 5000);
      throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms\n${output.trim()}`);
    }
    await Promise.race([delay(wait), exited]);
    wait = Math.min(wait * 2, 200);
  }

  const onProcessExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.on('exit', onProcessExit);
  child.unref();
  child.stdout.unref();
  child.stderr.unref();

  let stopping;
  const stop = () => {
    stopping =
      stopping ||
      (async () => {
        if (!exitedFlag) {
          child.kill('SIGTERM');
          if (!(await waitExit(child, exited, 10000))) {
            child.kill('SIGKILL');
            if (!(await waitExit(child, exited, 5000))) throw new Error(`redis-server pid ${child.pid} did not exit`);
          }
        }
        process.removeListener('exit', onProcessExit);
      })();
    return stopping;
  };
  return { url: `redis://${HOST}:${port}`, port, pid: child.pid, stop };
}

/** Starts a throw-away redis-server; resolves with { url, port, pid, dir, stop() }. */
async function startRedisServer({ timeoutMs = 20000 } = {}) {
  const bin = findOnPath(process.env.REDIS_SERVER_BIN || 'redis-server');
  if (!bin) {
    throw new Error(
      'redis-server not found on PATH and REDIS_URL is not set: run `node scripts/ensure-deps.js` ' +
        '(installs it with apt-get as root) or set REDIS_URL to a Redis the tests may use',
    );
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jest-redis-'));
  try {
    for (let attempt = 1; ; attempt++) {
      const port = await findFreePort();
      try {
        const server = await startOnce(bin, port, dir, timeoutMs);
        const stopServer = server.stop;
        server.dir = dir;
        server.stop = async () => {
          await stopServer();
          fs.rmSync(dir, { recursive: true, force: true });
        };
        return server;
      } catch (err) {
        if (!err.addressInUse || attempt >= 3) throw err;
      }
    }
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Stops a server by pid alone (no handle): SIGTERM, wait with a deadline, then SIGKILL. */
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
