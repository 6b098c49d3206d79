/**
 * Backup and restore (runtime/backup.ts): a project's Redis keys and file
 * store written to a directory, then into a fresh redis-server and data
 * directory, where a runtime serves every instance as the first did (state,
 * version, lookup keys), rebuilds its listings, and reads the same files.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { backup, projectKeyPatterns, restore } from '../../runtime/backup';
import { LocalBlobStore } from '../../runtime/files/local-blob-store';
import { projectRoot } from '../../runtime/config';
import { startTestRuntime, TEST_API_KEY, testEnv, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const { startRedisServer } = require('../support/redis-server') as {
  startRedisServer(): Promise<{ url: string; stop(): Promise<void> }>;
};

const key = { 'x-api-key': TEST_API_KEY };
const COUNTERS = 40;

async function projectKeys(redis: Redis, projectId: string): Promise<string[]> {
  const out: string[] = [];
  for (const pattern of projectKeyPatterns(projectId)) {
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      out.push(...batch);
      cursor = next;
    } while (cursor !== '0');
  }
  return [...new Set(out)].sort();
}

/** the key names a backup holds (the source's own keyspace moves on: workers' short-lived keys come and go) */
async function backupKeyNames(dir: string, persistentOnly = false): Promise<string[]> {
  const lines = (await fs.readFile(path.join(dir, 'redis-keys.jsonl'), 'utf8')).trim().split('\n');
  return lines
    .map((l) => JSON.parse(l) as { k: string; t: number })
    .filter((e) => !persistentOnly || e.t < 0)
    .map((e) => Buffer.from(e.k, 'base64').toString())
    .sort();
}

/** the target holds every key of the backup without a time to live, and nothing the backup did not hold */
async function expectRestored(redis: Redis, projectId: string, dir: string): Promise<void> {
  const restored = await projectKeys(redis, projectId);
  expect(restored).toEqual(expect.arrayContaining(await backupKeyNames(dir, true)));
  expect(await backupKeyNames(dir)).toEqual(expect.arrayContaining(restored));
}

describe('backup, then restore into a fresh Redis and data directory', () => {
  const projectId = uniqueProjectId('bk');
  const root = path.join(os.tmpdir(), `backup-test-${projectId}`);
  const dir = path.join(root, 'backup');
  let a: TestRuntime;
  let b: TestRuntime | undefined;
  let target: { url: string; stop(): Promise<void> };
  let targetRedis: Redis;
  const files = new Map<string, Buffer>();
  let apiKey: string;

  beforeAll(async () => {
    a = await startTestRuntime({ projectId, env: { DATA_DIR: path.join(root, 'a') } });
    const p = `/${projectId}/CALL/Counter`;
    for (let i = 0; i < COUNTERS; i++) {
      const made = await a.post(`${p}/init/c${i}`, { label: `counter ${i}`, start: i, slot: `slot-${i}` }, key);
      expect(made.status).toBe(200);
    }
    for (let i = 0; i < COUNTERS; i += 3)
      expect((await a.post(`${p}/increment/c${i}`, { by: 5 }, key)).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const data = randomBytes(1000 + i * 5000);
      files.set(`blob-${i}.bin`, data);
      await a.rt.ports.blobs.put(`blob-${i}.bin`, data, i % 2 ? 'image/png' : 'application/pdf');
    }
    apiKey = (await a.rt.apiKeys.create('restored-key')).key;
    target = await startRedisServer();
    targetRedis = new Redis(target.url);
  });
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    targetRedis?.disconnect();
    await target?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  test('the backup holds every key of the project and every blob, with a manifest', async () => {
    const manifest = await backup(a.rt.redis as Redis, a.rt.ports.blobs, projectId, dir);
    const keys = await projectKeys(a.rt.redis as Redis, projectId);
    expect(manifest).toMatchObject({ format: 1, projectId, keys: keys.length, blobs: 5 });
    expect(keys.length).toBeGreaterThan(COUNTERS);
    expect(JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8'))).toEqual(manifest);
    // this project's keys, and only them (instances, lookups, outbox, API keys, roles)
    const names = await backupKeyNames(dir);
    expect(names.filter((k) => !k.endsWith(':stalled-check'))).toEqual(
      keys.filter((k) => !k.endsWith(':stalled-check')),
    );
    expect(names.every((k) => k.startsWith(`rt:${projectId}:`) || k.startsWith(`rt:{${projectId}:`))).toBe(true);
    expect(names).toContain(`rt:{${projectId}:0}:i:Counter:c0`);
  });

  test('a directory that is not empty is refused', async () => {
    await expect(backup(a.rt.redis as Redis, a.rt.ports.blobs, projectId, dir)).rejects.toThrow(/is not empty/);
  });

  test('the restore refuses another project and a damaged backup, writing nothing', async () => {
    const blobs = new LocalBlobStore(path.join(root, 'unused'));
    await expect(restore(targetRedis, blobs, 'other-project', dir)).rejects.toThrow(
      `the backup is of project '${projectId}'`,
    );
    const damaged = path.join(root, 'damaged');
    await fs.cp(dir, damaged, { recursive: true });
    await fs.appendFile(path.join(damaged, 'redis-keys.jsonl'), '{"k":"eA==","d":"","t":0}\n');
    await expect(restore(targetRedis, blobs, projectId, damaged)).rejects.toThrow(/damaged/);
    expect(await projectKeys(targetRedis, projectId)).toEqual([]);
  });

  test('restored, a runtime on the new Redis and data directory serves every instance as it was', async () => {
    const dataDir = path.join(root, 'b');
    const result = await restore(targetRedis, new LocalBlobStore(path.join(dataDir, 'files')), projectId, dir);
    expect(result).toMatchObject({ projectId, blobs: 5 });
    await expectRestored(targetRedis, projectId, dir);
    b = await startTestRuntime({ projectId, env: { REDIS_URL: target.url, DATA_DIR: dataDir } });
    for (let i = 0; i < COUNTERS; i++) {
      const [was, is] = [await a.rt.store.read('Counter', `c${i}`), await b.rt.store.read('Counter', `c${i}`)];
      expect({ i, is }).toEqual({ i, is: was });
    }
    // by lookup key, over HTTP
    const got = await b.get(`/${projectId}/CALL/Counter/get/slot!slot-9`, key);
    expect([got.status, got.body]).toMatchObject([200, { id: 'c9', count: 14, slot: 'slot-9' }]);
    // the listing is rebuilt from state
    const listed = await waitFor(async () => {
      const found = await b!.rt.documents.find('counters', {}, { limit: 1 });
      return found.total === COUNTERS ? found : undefined;
    });
    expect(listed!.total).toBe(COUNTERS);
    // files
    for (const [name, data] of files) {
      const blob = await b.rt.ports.blobs.get(name);
      expect({ name, same: blob?.data.equals(data), type: blob?.info.contentType }).toEqual({
        name,
        same: true,
        type: name === 'blob-1.bin' || name === 'blob-3.bin' ? 'image/png' : 'application/pdf',
      });
    }
    // an API key created on the first is honoured by the restored service
    const withRestoredKey = await b.post(`/${projectId}/CALL/Counter/increment/c1`, { by: 1 }, { 'x-api-key': apiKey });
    expect([withRestoredKey.status, withRestoredKey.body]).toEqual([200, { count: 2 }]);
  });

  test('a second restore into the same Redis is refused: it never mixes two histories', async () => {
    await expect(restore(targetRedis, new LocalBlobStore(path.join(root, 'c')), projectId, dir)).rejects.toThrow(
      /already holds data of project/,
    );
  });
});

describe('the CLI commands', () => {
  const run = promisify(execFile);
  const projectId = uniqueProjectId('bkc');
  const root = path.join(os.tmpdir(), `backup-cli-${projectId}`);
  let target: { url: string; stop(): Promise<void> };
  let a: TestRuntime;

  const cli = (extra: Record<string, string>, ...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', path.join(projectRoot(), 'runtime/cli.ts'), ...args], {
      cwd: projectRoot(),
      env: { ...process.env, ...testEnv(projectId, { LOG_LEVEL: 'warn', ...extra }) },
    }).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );

  beforeAll(async () => {
    a = await startTestRuntime({ projectId, env: { DATA_DIR: path.join(root, 'a') } });
    for (let i = 0; i < 5; i++)
      expect((await a.post(`/${projectId}/CALL/Counter/init/k${i}`, { start: i }, key)).status).toBe(200);
    await a.rt.ports.blobs.put('photo.jpg', Buffer.from('jpeg bytes'), 'image/jpeg');
    target = await startRedisServer();
  });
  afterAll(async () => {
    await a?.stop();
    await target?.stop();
    await fs.rm(root, { recursive: true, force: true });
  });

  test('backup <dir> then restore <dir> against another REDIS_URL and DATA_DIR: the JSON answers and the data', async () => {
    const dir = path.join(root, 'dump');
    const made = await cli({ DATA_DIR: path.join(root, 'a') }, 'backup', dir);
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ projectId, blobs: 1, format: 1 });
    const to = { REDIS_URL: target.url, DATA_DIR: path.join(root, 'b') };
    const restored = await cli(to, 'restore', dir);
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ projectId, blobs: 1 });
    const again = await cli(to, 'restore', dir);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already holds data of project');
    const redis = new Redis(target.url);
    try {
      await expectRestored(redis, projectId, dir);
    } finally {
      redis.disconnect();
    }
    const blob = await new LocalBlobStore(path.join(root, 'b', 'files')).get('photo.jpg');
    expect([blob?.data.toString(), blob?.info.contentType]).toEqual(['jpeg bytes', 'image/jpeg']);
  });
});
