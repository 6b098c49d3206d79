import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import Redis from 'ioredis';
import {
  findFreePort,
  pingRedis,
  resolveRedis,
  startEmbeddedRedis,
  type EmbeddedRedis,
} from '../runtime/redis/embedded-redis';

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function withClient<T>(url: string, fn: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.quit();
  }
}

describe('embedded redis', () => {
  let tmp: string;
  const started: EmbeddedRedis[] = [];

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-redis-test-'));
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.stop()));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('findFreePort returns a port that can be bound', async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    const srv = net.createServer();
    await new Promise<void>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  });

  test('pingRedis answers false, within its timeout, where no Redis listens', async () => {
    const nothing = await findFreePort();
    const silent = net.createServer(() => {}); // accepts and never answers
    const rude = net.createServer((sock) => sock.destroy());
    const listen = (srv: net.Server) =>
      new Promise<number>((resolve) =>
        srv.listen(0, '127.0.0.1', () => resolve((srv.address() as net.AddressInfo).port)),
      );
    const [silentPort, rudePort] = [await listen(silent), await listen(rude)];
    try {
      const t0 = Date.now();
      expect(await pingRedis(nothing)).toBe(false);
      expect(await pingRedis(rudePort)).toBe(false);
      expect(await pingRedis(silentPort, 300)).toBe(false);
      expect(Date.now() - t0).toBeLessThan(5_000);
    } finally {
      silent.close();
      rude.close();
    }
  });

  test('persists data across restarts with AOF and stop() leaves no process', async () => {
    const dataDir = path.join(tmp, 'data'); // does not exist yet: must be created
    const first = await startEmbeddedRedis({ dataDir, appendOnly: true });
    started.push(first);
    expect(first.url).toBe(`redis://127.0.0.1:${first.port}`);
    expect(processExists(first.pid)).toBe(true);
    await withClient(first.url, async (c) => {
      expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      await c.set('greeting', 'hello from the AOF');
    });

    await first.stop();
    expect(() => process.kill(first.pid, 0)).toThrow();
    expect(await pingRedis(first.port)).toBe(false);
    await first.stop(); // idempotent

    const second = await startEmbeddedRedis({ dataDir, appendOnly: true });
    started.push(second);
    expect(second.pid).not.toBe(first.pid);
    await withClient(second.url, async (c) => {
      expect(await c.get('greeting')).toBe('hello from the AOF');
    });
    await second.stop();
    expect(() => process.kill(second.pid, 0)).toThrow();
  });

  test('without dataDir runs with no persistence in a temp dir that stop() removes', async () => {
    const r = await startEmbeddedRedis({});
    started.push(r);
    const dir = await withClient(r.url, async (c) => {
      expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
      expect(await c.config('GET', 'save')).toEqual(['save', '']);
      return ((await c.config('GET', 'dir')) as string[])[1];
    });
    expect(fs.existsSync(dir)).toBe(true);
    await r.stop();
    expect(fs.existsSync(dir)).toBe(false);
    expect(() => process.kill(r.pid, 0)).toThrow();
  });

  test('writes its log to logFile when given', async () => {
    const logFile = path.join(tmp, 'logs', 'redis.log');
    const r = await startEmbeddedRedis({ dataDir: path.join(tmp, 'd'), logFile });
    started.push(r);
    expect(fs.readFileSync(logFile, 'utf8')).toMatch(/Ready to accept connections/);
  });

  test('rejects with redis output when redis-server exits early (port taken)', async () => {
    const blocker = net.createServer((sock) => sock.destroy());
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expect(startEmbeddedRedis({ port, startTimeoutMs: 15_000 })).rejects.toThrow(
        /exited with code \d+ before answering PING[\s\S]*Address already in use/,
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  test('rejects with a clear message when redis-server is missing', async () => {
    await expect(startEmbeddedRedis({ bin: 'redis-server-that-does-not-exist' })).rejects.toThrow(
      /redis-server-that-does-not-exist not found on PATH/,
    );
  });
});

describe('resolveRedis', () => {
  let tmp: string;
  const started: EmbeddedRedis[] = [];

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'resolve-redis-test-'));
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((r) => r.stop()));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  test('returns REDIS_URL when set, starting nothing', async () => {
    const r = await resolveRedis({ REDIS_URL: 'redis://example.invalid:6390' }, { dataDir: tmp });
    expect(r).toEqual({ url: 'redis://example.invalid:6390' });
    expect(fs.existsSync(path.join(tmp, 'redis'))).toBe(false);
  });

  test('starts an AOF redis in <dataDir>/redis and reuses it through the port file', async () => {
    const messages: string[] = [];
    const log = (m: string) => messages.push(m);
    const portFile = path.join(tmp, 'redis', 'redis.port');

    const owner = await resolveRedis({}, { dataDir: tmp, log });
    expect(owner.embedded).toBeDefined();
    const embedded = owner.embedded!;
    started.push(embedded);
    expect(fs.readFileSync(portFile, 'utf8').trim()).toBe(String(embedded.port));
    await withClient(owner.url, async (c) => {
      expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(fs.realpathSync(((await c.config('GET', 'dir')) as string[])[1])).toBe(
        fs.realpathSync(path.join(tmp, 'redis')),
      );
      await c.set('shared', 'yes');
    });

    const user = await resolveRedis({}, { dataDir: tmp, log });
    expect(user.embedded).toBeUndefined();
    expect(user.url).toBe(owner.url);
    await withClient(user.url, async (c) => expect(await c.get('shared')).toBe('yes'));
    expect(messages.some((m) => /already running/.test(m))).toBe(true);

    await embedded.stop();
    expect(fs.existsSync(portFile)).toBe(false);
    expect(() => process.kill(embedded.pid, 0)).toThrow();

    // Starting again on the same dir finds the data in the AOF.
    const again = await resolveRedis({}, { dataDir: tmp });
    expect(again.embedded).toBeDefined();
    started.push(again.embedded!);
    await withClient(again.url, async (c) => expect(await c.get('shared')).toBe('yes'));
  });

  test('fsyncs the AOF as REDIS_APPENDFSYNC says: everysec unless told', async () => {
    const dflt = await resolveRedis({}, { dataDir: path.join(tmp, 'a') });
    started.push(dflt.embedded!);
    await withClient(dflt.url, async (c) => {
      expect(await c.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await c.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
    });

    const messages: string[] = [];
    const always = await resolveRedis(
      { REDIS_APPENDFSYNC: 'always' },
      { dataDir: path.join(tmp, 'b'), log: (m) => messages.push(m) },
    );
    started.push(always.embedded!);
    await withClient(always.url, async (c) =>
      expect(await c.config('GET', 'appendfsync')).toEqual(['appendfsync', 'always']),
    );
    expect(messages.some((m) => /appendfsync always/.test(m))).toBe(true);
  });

  test('a bad REDIS_APPENDFSYNC stops the start before any Redis runs', async () => {
    await expect(resolveRedis({ REDIS_APPENDFSYNC: 'sometimes' }, { dataDir: tmp })).rejects.toThrow(
      /REDIS_APPENDFSYNC must be one of always, everysec, no, got 'sometimes'/,
    );
    expect(fs.existsSync(path.join(tmp, 'redis'))).toBe(false);
  });

  test('ignores a stale port file', async () => {
    const dir = path.join(tmp, 'redis');
    fs.mkdirSync(dir, { recursive: true });
    const stalePort = await findFreePort(); // nothing listens there
    fs.writeFileSync(path.join(dir, 'redis.port'), `${stalePort}\n`);

    const r = await resolveRedis({}, { dataDir: tmp });
    expect(r.embedded).toBeDefined();
    started.push(r.embedded!);
    expect(fs.readFileSync(path.join(dir, 'redis.port'), 'utf8').trim()).toBe(String(r.embedded!.port));
    expect(await pingRedis(r.embedded!.port)).toBe(true);
  });

  test('does not reuse a redis that serves another directory', async () => {
    const other = await startEmbeddedRedis({ dataDir: path.join(tmp, 'other') });
    started.push(other);
    const dir = path.join(tmp, 'redis');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'redis.port'), `${other.port}\n`);

    const r = await resolveRedis({}, { dataDir: tmp });
    expect(r.embedded).toBeDefined();
    started.push(r.embedded!);
    expect(r.embedded!.port).not.toBe(other.port);
  });
});
