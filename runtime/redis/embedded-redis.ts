/**
 * Embedded Redis: runs a local `redis-server` child process for `npm start`
 * and the CLI when REDIS_URL is not set.
 *
 * - startEmbeddedRedis() spawns redis-server bound to 127.0.0.1 on a free
 *   port and resolves once it answers PING (polling with a deadline).
 * - resolveRedis() returns REDIS_URL when set; otherwise it reuses the Redis
 *   that a running service started in `<dataDir>/redis` (found through the
 *   `redis.port` file), or starts one there with AOF persistence, fsynced as
 *   REDIS_APPENDFSYNC says (always | everysec | no; see runtime/config.ts).
 *
 * On Linux the child is started through util-linux `setpriv --pdeathsig TERM`
 * when available, so it is terminated even if this process is SIGKILLed. An
 * 'exit' handler also sends it SIGTERM when this process exits without
 * calling stop().
 *
 * jest's globalSetup (test/support/redis-server.js) starts its throw-away
 * server through this module too, loaded with tsx.
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import Redis, { ReplyError } from 'ioredis';
import type { Appendfsync } from '../config';

export interface EmbeddedRedis {
  url: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export interface StartEmbeddedRedisOptions {
  /** Working directory for redis (AOF/RDB files). Created if missing. Default: a temp dir removed on stop(). */
  dataDir?: string;
  /** Port to listen on. Default: a free port (retried if it gets taken before redis binds it). */
  port?: number;
  /** AOF persistence. Default: true when dataDir is given; always off without dataDir. */
  appendOnly?: boolean;
  /**
   * When the AOF is fsynced (with appendOnly). `everysec` (Redis's default): an
   * acknowledged write survives a crash of redis-server, up to ~1 s is lost when
   * the machine goes down; `always`: survives an OS crash or power loss too.
   */
  appendfsync?: Appendfsync;
  /** Redis log file. Default: redis logs to stdout, of which the tail is kept for error messages. */
  logFile?: string;
  /** redis-server executable. Default: $REDIS_SERVER_BIN or `redis-server` on PATH. */
  bin?: string;
  /** How long to wait for PING to answer. Default 20 s. */
  startTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL. Default 10 s. */
  stopTimeoutMs?: number;
}

const LOCALHOST = '127.0.0.1';
const TAIL_BYTES = 8 * 1024;

// ---------------------------------------------------------------------------
// ports and probes
// ---------------------------------------------------------------------------

export async function findFreePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen({ port: 0, host: LOCALHOST, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close((err) => (err ? reject(err) : port ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/**
 * Runs `fn` on a short-lived ioredis connection to 127.0.0.1:port that neither
 * retries nor queues: a probe must fail fast, and a server still loading its
 * AOF answers LOADING errors, which reject like any other.
 */
async function withProbe<T>(port: number, timeoutMs: number, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    host: LOCALHOST,
    port,
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    enableReadyCheck: false,
    // disconnect() ends the socket and waits this long for it to close before destroying it (default 2 s,
    // for which a probe would hold the process open)
    disconnectTimeout: timeoutMs,
  });
  client.on('error', () => {}); // every failure also rejects the pending connect or command
  try {
    await client.connect();
    return await fn(client);
  } finally {
    // a refused connection has ended already: disconnect() would arm its timer for a close that never comes
    if (client.status !== 'end') client.disconnect();
  }
}

/** True when a Redis on 127.0.0.1:port answers PING with PONG (false while it is still loading). */
export async function pingRedis(port: number, timeoutMs = 500): Promise<boolean> {
  try {
    return (await withProbe(port, timeoutMs, (c) => c.ping())) === 'PONG';
  } catch {
    return false;
  }
}

/** process_id from INFO server, or undefined when it cannot be read. */
async function serverPid(port: number): Promise<number | undefined> {
  try {
    const info = await withProbe(port, 1_000, (c) => c.info('server'));
    const m = /^process_id:(\d+)/m.exec(info);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------
// process helpers
// ---------------------------------------------------------------------------

function findOnPath(cmd: string): string | undefined {
  if (cmd.includes('/')) return isExecutable(cmd) ? cmd : undefined;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, cmd);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

let setprivPath: string | null | undefined;
function setpriv(): string | null {
  if (setprivPath === undefined) setprivPath = process.platform === 'linux' ? (findOnPath('setpriv') ?? null) : null;
  return setprivPath;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readTail(file: string, bytes = TAIL_BYTES): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, bytes);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function watchExit(child: ChildProcess): Promise<Exit> {
  return new Promise<Exit>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Resolves true when `exited` settles within ms; keeps the event loop alive meanwhile. */
async function exitedWithin(exited: Promise<Exit>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([exited.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describeExit(e: Exit): string {
  return e.signal ? `was killed by ${e.signal}` : `exited with code ${e.code}`;
}

class RedisStartError extends Error {
  constructor(
    message: string,
    readonly addressInUse: boolean,
  ) {
    super(message);
    this.name = 'RedisStartError';
  }
}

// ---------------------------------------------------------------------------
// startEmbeddedRedis
// ---------------------------------------------------------------------------

export async function startEmbeddedRedis(opts: StartEmbeddedRedisOptions = {}): Promise<EmbeddedRedis> {
  const binName = opts.bin ?? process.env.REDIS_SERVER_BIN ?? 'redis-server';
  const bin = findOnPath(binName);
  if (!bin) {
    throw new Error(
      `${binName} not found on PATH: install it (\`node scripts/ensure-deps.js\` does, on Debian as root, ` +
        'or `apt-get install -y redis-server`) or set REDIS_URL to a running Redis',
    );
  }

  let tempDir: string | undefined;
  let dir: string;
  if (opts.dataDir) {
    dir = path.resolve(opts.dataDir);
    fs.mkdirSync(dir, { recursive: true });
  } else {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-redis-'));
    dir = tempDir;
  }
  const appendOnly = opts.dataDir ? (opts.appendOnly ?? true) : false;

  const attempts = opts.port ? 1 : 3;
  try {
    for (let attempt = 1; ; attempt++) {
      const port = opts.port ?? (await findFreePort());
      try {
        return await startOnce(bin, port, dir, appendOnly, opts, tempDir);
      } catch (err) {
        if (err instanceof RedisStartError && err.addressInUse && attempt < attempts) continue;
        throw err;
      }
    }
  } catch (err) {
    if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
    throw err;
  }
}

async function startOnce(
  bin: string,
  port: number,
  dir: string,
  appendOnly: boolean,
  opts: StartEmbeddedRedisOptions,
  tempDir: string | undefined,
): Promise<EmbeddedRedis> {
  const args = [
    '--port',
    String(port),
    '--bind',
    LOCALHOST,
    '--save',
    '',
    '--appendonly',
    appendOnly ? 'yes' : 'no',
    '--appendfsync',
    opts.appendfsync ?? 'everysec',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--protected-mode',
    'yes',
  ];
  if (opts.logFile) {
    const logFile = path.resolve(opts.logFile);
    fs.mkdirSync(path.dirname(logFile), { recursive: true });
    args.push('--logfile', logFile);
  }

  const wrapper = setpriv();
  const [cmd, cmdArgs] = wrapper ? [wrapper, ['--pdeathsig', 'TERM', '--', bin, ...args]] : [bin, args];
  const logStart = opts.logFile ? fileSize(path.resolve(opts.logFile)) : 0;

  let output = '';
  const child = spawn(cmd, cmdArgs, { stdio: ['ignore', 'pipe', 'pipe'], cwd: dir });
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > 2 * TAIL_BYTES) output = output.slice(-TAIL_BYTES);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  let spawnError: Error | undefined;
  const exited = new Promise<Exit>((resolve) => {
    child.once('error', (err) => {
      spawnError = err;
      resolve({ code: null, signal: null });
    });
    void watchExit(child).then(resolve);
  });
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const tail = () => {
    const logged = opts.logFile ? sinceOffset(path.resolve(opts.logFile), logStart) : '';
    const text = (output + logged).trim();
    return text ? `\n--- redis-server output (tail) ---\n${text.slice(-TAIL_BYTES)}` : '';
  };

  const timeoutMs = opts.startTimeoutMs ?? 20_000;
  const deadline = Date.now() + timeoutMs;
  let wait = 10;
  for (;;) {
    if (hasExited) {
      const e = await exited;
      const text = tail();
      if (spawnError) throw new RedisStartError(`could not start ${bin}: ${spawnError.message}`, false);
      throw new RedisStartError(
        `redis-server on port ${port} ${describeExit(e)} before answering PING${text}`,
        /address already in use/i.test(text),
      );
    }
    if (await pingRedis(port, 500)) {
      // Make sure it is our server answering, not one that took the port first.
      const pid = await serverPid(port);
      if (pid === undefined || pid === child.pid) break;
      child.kill('SIGKILL');
      await exitedWithin(exited, 5_000);
      throw new RedisStartError(`port ${port} is already served by another Redis (pid ${pid})`, true);
    }
    if (Date.now() >= deadline) {
      child.kill('SIGKILL');
      await exitedWithin(exited, 5_000);
      throw new RedisStartError(
        `redis-server on port ${port} did not answer PING within ${timeoutMs} ms${tail()}`,
        false,
      );
    }
    // Poll again shortly, or sooner if the process exits.
    await Promise.race([delay(wait), exited]);
    wait = Math.min(wait * 2, 200);
  }

  // A forgotten stop() must neither keep this process alive nor leave redis behind.
  const onProcessExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  };
  process.on('exit', onProcessExit);
  child.unref();
  (child.stdout as net.Socket | null)?.unref?.();
  (child.stderr as net.Socket | null)?.unref?.();

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!hasExited) {
        child.kill('SIGTERM'); // graceful: flushes and fsyncs the AOF; --save "" means no RDB dump
        if (!(await exitedWithin(exited, opts.stopTimeoutMs ?? 10_000))) {
          child.kill('SIGKILL');
          if (!(await exitedWithin(exited, 5_000))) {
            throw new Error(`redis-server pid ${child.pid} did not exit after SIGKILL`);
          }
        }
      }
      process.removeListener('exit', onProcessExit);
      if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  return { url: `redis://${LOCALHOST}:${port}`, port, pid: child.pid!, stop };
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** What was appended to `file` after `offset` (its last TAIL_BYTES). */
function sinceOffset(file: string, offset: number): string {
  const size = fileSize(file);
  if (size <= offset) return '';
  return readTail(file, Math.min(TAIL_BYTES, size - offset));
}

// ---------------------------------------------------------------------------
// resolveRedis
// ---------------------------------------------------------------------------

export const REDIS_PORT_FILE = 'redis.port';

/**
 * REDIS_URL when set; otherwise the Redis that owns `<dataDir>/redis`: the one
 * a running service started (found through `<dataDir>/redis/redis.port`), or a
 * new embedded one with AOF on, returned as `embedded` (the caller must stop
 * it; stop() also removes the port file).
 */
export async function resolveRedis(
  env: NodeJS.ProcessEnv,
  opts: { dataDir: string; log?: (msg: string) => void },
): Promise<{ url: string; embedded?: EmbeddedRedis }> {
  if (env.REDIS_URL) return { url: env.REDIS_URL };
  // required here rather than at the top: jest's globalSetup loads this module (test/support/redis-server.js)
  // for startEmbeddedRedis alone, and the configuration module would bring half the runtime with it
  const { redisAppendfsync } = await import('../config');
  const appendfsync = redisAppendfsync(env); // a bad value stops the start before anything runs
  const log = opts.log ?? (() => {});
  const dir = path.resolve(opts.dataDir, 'redis');
  fs.mkdirSync(dir, { recursive: true });
  const portFile = path.join(dir, REDIS_PORT_FILE);

  const releaseLock = await acquireStartLock(path.join(dir, 'redis.lock'), dir);
  try {
    const existing = readPort(portFile);
    if (existing !== undefined) {
      if (await ownsDir(existing, dir)) {
        log(`using the Redis already running for ${dir} on port ${existing}`);
        return { url: `redis://${LOCALHOST}:${existing}` };
      }
      log(`ignoring stale ${portFile} (port ${existing} is not serving this directory)`);
    }

    const embedded = await startEmbeddedRedis({
      dataDir: dir,
      appendOnly: true,
      appendfsync,
      logFile: path.join(dir, 'redis.log'),
    });
    writeFileAtomic(portFile, `${embedded.port}\n`);
    log(
      `started embedded Redis (pid ${embedded.pid}) on port ${embedded.port}, data in ${dir}, appendfsync ${appendfsync}`,
    );

    const stopServer = embedded.stop.bind(embedded);
    let stopping: Promise<void> | undefined;
    embedded.stop = () => {
      stopping ??= (async () => {
        if (readPort(portFile) === embedded.port) fs.rmSync(portFile, { force: true });
        await stopServer();
      })();
      return stopping;
    };
    return { url: embedded.url, embedded };
  } finally {
    releaseLock();
  }
}

function readPort(file: string): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  const port = Number(text);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
}

function writeFileAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, content);
  fs.renameSync(tmp, file);
}

/** The Redis on `port` answers PING and (if CONFIG is allowed) works in `dir`. */
async function ownsDir(port: number, dir: string): Promise<boolean> {
  try {
    return await withProbe(port, 1_000, async (c) => {
      if ((await c.ping()) !== 'PONG') return false;
      let reply: unknown;
      try {
        reply = await c.config('GET', 'dir');
      } catch (err) {
        if (err instanceof ReplyError) return true; // CONFIG disabled (renamed away): trust the port file
        throw err;
      }
      return Array.isArray(reply) && typeof reply[1] === 'string' ? samePath(reply[1], dir) : true;
    });
  } catch {
    return false;
  }
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Serialises "check the port file, else start redis" between processes sharing
 * a data dir, so two of them never run redis on the same AOF. A lock whose
 * owner is dead is taken over.
 */
async function acquireStartLock(lockFile: string, dir: string): Promise<() => void> {
  const deadline = Date.now() + 30_000;
  let wait = 20;
  for (;;) {
    try {
      fs.writeFileSync(lockFile, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockFile, 'utf8').trim() === String(process.pid)) fs.rmSync(lockFile, { force: true });
        } catch {
          /* already gone */
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(readFileOr(lockFile, '').trim());
    if (!Number.isInteger(owner) || owner <= 0 || owner === process.pid || !pidAlive(owner)) {
      fs.rmSync(lockFile, { force: true }); // stale lock
      continue;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out waiting for process ${owner} to start Redis in ${dir} (lock ${lockFile})`);
    }
    // Another process is starting redis here; once it has written the port file we reuse its server.
    await delay(wait);
    wait = Math.min(wait * 2, 250);
  }
}

function readFileOr(file: string, fallback: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}
