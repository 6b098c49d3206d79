/**
 * The one-time migration of the legacy key layout (before instance keys had
 * a bucket hash tag) at start: runtime/actor/layout.ts migrateLegacyLayout.
 * Old-layout data is written as the previous version wrote it (the instance
 * hash of acquireInstance.lua/commitInstance.lua, BullMQ's own add under the
 * old prefix and queue name) on the test redis-server, one project id per test.
 */
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import {
  checkLayout,
  LEGACY_RENAMES,
  LegacyNames,
  migrateLegacyLayout,
  migrationLockKey,
  renameLegacyKeys,
  type LegacyMigration,
} from '../../runtime/actor/layout';
import { StateStore } from '../../runtime/actor/state-store';
import { connect, parseClusterNodes } from '../../runtime/redis/connection';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { clusterNodes, redisUrl, uniqueProjectId } from '../support/redis';

const opened: { disconnect(): void }[] = [];
function open(): Redis {
  const r = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  opened.push(r);
  return r;
}
afterEach(() => {
  for (const r of opened.splice(0)) r.disconnect();
});

type Line = { fields: Record<string, unknown>; msg: string };
function logger(): { lines: Line[]; log: (fields: Record<string, unknown>, msg: string) => void } {
  const lines: Line[] = [];
  return { lines, log: (fields, msg) => lines.push({ fields, msg }) };
}

const tagOf = (p: string) => `rt:{${p}:0}`;

async function scanAll(redis: Redis, pattern: string): Promise<string[]> {
  const keys = new Set<string>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    for (const k of batch) keys.add(k);
  } while (cursor !== '0');
  return [...keys].sort();
}

/** every key of project `p`, old and new names, with its type and value */
async function snapshot(redis: Redis, p: string): Promise<Record<string, unknown>> {
  const keys = [
    ...(await scanAll(redis, `rt:${p}:*`)),
    ...(await scanAll(redis, `rt:{${p}:*`)),
    ...(await scanAll(redis, `bull:rt-${p}:*`)),
  ];
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = await dumpValue(redis, k);
  return out;
}

async function dumpValue(redis: Redis, key: string): Promise<unknown> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return await redis.get(key);
    case 'hash':
      return await redis.hgetall(key);
    case 'zset':
      return await redis.zrange(key, 0, '-1', 'WITHSCORES');
    case 'list':
      return await redis.lrange(key, 0, -1);
    case 'set':
      return (await redis.smembers(key)).sort();
    case 'stream':
      return await redis.xrange(key, '-', '+');
    default:
      return type;
  }
}

const STATE = { public: { count: 7, label: 'old' } };
const CALL_IDENTITY = { type: 'integration_user', userId: 'legacy-key', roles: [] };

/** Old-layout keys of one project: instance c1 (state, lookup, a queued job, a stored job result), streams, BullMQ jobs, and keys that stay. */
async function writeLegacy(redis: Redis, p: string): Promise<void> {
  const o = `rt:${p}`;
  await redis.hset(
    `${o}:i:Counter:c1`,
    'v',
    '3',
    's',
    JSON.stringify(STATE),
    'k',
    JSON.stringify({ slot: 'alpha' }),
    'qs',
    '2',
  );
  await redis.set(`${o}:k:Counter:slot:alpha`, 'c1');
  await redis.zadd(`${o}:qp:Counter:c1`, 2, 'job-2');
  await redis.set(`${o}:jr:job-1`, JSON.stringify({ status: 200, body: { count: 7 }, headers: {} }), 'EX', 604800);
  await redis.set(`${o}:dl:task-9`, '3', 'EX', 604800);
  await redis.set(`${o}:l:Counter:c2`, 'some-token', 'PX', 60_000);
  await redis.xadd(`${o}:outbox`, '*', 'c', 'Counter', 'i', 'c1', 'v', '3');
  await redis.xgroup('CREATE', `${o}:outbox`, 'legacy-projector', '0');
  // one entry read and not acknowledged: pending in the group
  await redis.xreadgroup('GROUP', 'legacy-projector', 'consumer-1', 'COUNT', 1, 'STREAMS', `${o}:outbox`, '>');
  await redis.xadd(`${o}:outbox`, '*', 'c', 'Counter', 'i', 'c1', 'v', '4');
  await redis.xadd(`${o}:tasks`, '*', 't', '[]');
  await redis.xadd(`${o}:events`, '*', 'c', 'Counter', 'i', 'c1', 'v', '3', 'e', '[]');
  await redis.xadd(`${o}:effects`, '*', 'f', '[]');
  await redis.xadd(`${o}:effects:dead`, '*', 'f', '[]');
  await redis.hset(`${o}:effects:attempts`, '1-0', '2');
  // keys that stay where they are
  await redis.hset(`${o}:apikeys`, 'k1', '{}');
  await redis.set(`${o}:roles`, '{}');
  await redis.set(`${o}:idem:abc`, '{}');
  await redis.set(`${o}:rl:signin:xyz`, '1');
  // BullMQ as the previous version queued: default prefix 'bull', queue 'rt-<p>'
  const queue = new Queue(`rt-${p}`, { connection: redis, prefix: 'bull' });
  try {
    const data = {
      kind: 'call',
      classId: 'Counter',
      method: 'increment',
      instanceId: 'c1',
      body: { by: 5 },
      identity: CALL_IDENTITY,
      requestId: 'r-1',
    };
    await queue.add('call', data, {
      jobId: 'job-2',
      attempts: 5,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: { age: 604800 },
      removeOnFail: { age: 604800 },
    });
    await queue.add(
      'task',
      {
        kind: 'task',
        task: { id: 't1', classId: 'Counter', instanceId: 'c1', method: 'increment', body: {}, delayMs: 3_600_000 },
      },
      { jobId: 'task-t1', delay: 3_600_000 },
    );
  } finally {
    await queue.close();
  }
}

/** the keys writeLegacy leaves in place (and the marker) */
function unchanged(p: string): string[] {
  const o = `rt:${p}`;
  return [
    `${o}:apikeys`,
    `${o}:idem:abc`,
    `${o}:k:Counter:slot:alpha`,
    `${o}:layout`,
    `${o}:rl:signin:xyz`,
    `${o}:roles`,
  ].sort();
}

describe('the rename rules', () => {
  test('name each key of the legacy layout its new one, and leave the others', () => {
    const n = new LegacyNames('proj');
    const t = 'rt:{proj:0}';
    expect(n.newName('rt:proj:i:Counter:a:b')).toBe(`${t}:i:Counter:a:b`);
    expect(n.newName('rt:proj:l:Counter:a')).toBe(`${t}:l:Counter:a`);
    expect(n.newName('rt:proj:lw:Counter:a')).toBe(`${t}:lw:Counter:a`);
    expect(n.newName('rt:proj:lq:Counter:a')).toBe(`${t}:lq:Counter:a`);
    expect(n.newName('rt:proj:qp:Counter:a')).toBe(`${t}:qp:Counter:a`);
    expect(n.newName('rt:proj:jr:job-1')).toBe(`${t}:jr:job-1`);
    expect(n.newName('rt:proj:jr:-')).toBe(`${t}:jr:-`);
    expect(n.newName('rt:proj:dl:task-1')).toBe(`${t}:dl:task-1`);
    for (const s of ['outbox', 'tasks', 'events', 'effects', 'effects:dead', 'effects:attempts'])
      expect(n.newName(`rt:proj:${s}`)).toBe(`${t}:${s}`);
    expect(n.newName('bull:rt-proj:wait')).toBe(`${t}:jobs:wait`);
    expect(n.newName('bull:rt-proj:job-2')).toBe(`${t}:jobs:job-2`);
    expect(n.newName('bull:rt-proj:job-2:lock')).toBe(`${t}:jobs:job-2:lock`);
    expect(n.newName('bull:msg-proj:wait')).toBe('rt:{proj:msg}:msg-proj:wait');
    for (const stays of [
      'rt:proj:k:Counter:slot:a',
      'rt:proj:apikeys',
      'rt:proj:roles',
      'rt:proj:idem:x',
      'rt:proj:rl:a:b',
      'rt:proj:layout',
      'rt:proj:layout:migrating',
      'rt:proj:outbox2',
      'rt:proj:effects:other',
      'rt:proj-2:i:Counter:a',
      'bull:rt-proj-2:wait',
      `${t}:i:Counter:a`,
    ]) {
      expect(n.newName(stays)).toBeUndefined();
    }
    expect(n.patterns).toEqual(['rt:proj:*', 'bull:rt-proj:*', 'bull:msg-proj:*']);
  });

  test('a rule is one line; a malformed one is refused', () => {
    const more = new LegacyNames('proj', [...LEGACY_RENAMES, { from: 'rt:<p>:msg:sent:*', to: '<tag>:msg:sent:*' }]);
    expect(more.newName('rt:proj:msg:sent:m1')).toBe('rt:{proj:0}:msg:sent:m1');
    expect(more.patterns).toEqual(['rt:proj:*', 'bull:rt-proj:*', 'bull:msg-proj:*']);
    expect(() => new LegacyNames('proj', [{ from: 'rt:<p>:x:*', to: '<tag>:x' }])).toThrow(/'\*'/);
    expect(() => new LegacyNames('proj', [{ from: 'rt:<p>:*:x', to: '<tag>:*:x' }])).toThrow(/'\*'/);
  });
});

describe('migrateLegacyLayout', () => {
  test('renames every legacy key, keeping values, TTLs, consumer groups and BullMQ jobs; a second run does nothing', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    const o = `rt:${p}`;
    const t = tagOf(p);
    await writeLegacy(redis, p);
    const before = await snapshot(redis, p);
    const groupsBefore = await redis.xinfo('GROUPS', `${o}:outbox`);

    const store = new StateStore(open(), p, 1);
    const { lines, log } = logger();
    const r = await migrateLegacyLayout(store, log);
    expect(r.outcome).toBe('migrated');
    expect(r.conflicts).toEqual([]);
    expect(r.gone).toBe(0);

    // every legacy key now under its new name with the same value; nothing else moved
    const names = new LegacyNames(p);
    const after = await snapshot(redis, p);
    let moved = 0;
    for (const [key, value] of Object.entries(before)) {
      const to = names.newName(key);
      if (to === undefined) {
        expect(after[key]).toEqual(value);
        continue;
      }
      moved++;
      expect(after[to]).toEqual(value);
      expect(after).not.toHaveProperty([key]);
    }
    expect(r.renamed).toBe(moved);
    expect(
      Object.keys(after)
        .filter((k) => k.startsWith(`${o}:`))
        .sort(),
    ).toEqual(unchanged(p));
    expect(await scanAll(redis, `bull:rt-${p}:*`)).toEqual([]);
    expect(await redis.get(`${o}:layout`)).toBe(JSON.stringify({ buckets: 1 }));
    expect(await redis.exists(migrationLockKey(store.keys))).toBe(0);

    // as the new code reads them
    expect(await store.read('Counter', 'c1')).toEqual({
      version: 3,
      stateJson: JSON.stringify(STATE),
      lookups: { slot: 'alpha' },
    });
    expect(await store.jobPlace('Counter', 'c1', 'job-2')).toEqual({ kind: 'head' });
    expect(await store.jobPlace('Counter', 'c1', 'job-1')).toEqual({
      kind: 'done',
      resultJson: JSON.stringify({ status: 200, body: { count: 7 }, headers: {} }),
    });
    expect(await redis.ttl(`${t}:jr:job-1`)).toBeGreaterThan(604000);
    expect(await redis.pttl(`${t}:l:Counter:c2`)).toBeGreaterThan(0);
    expect(await redis.xinfo('GROUPS', `${t}:outbox`)).toEqual(groupsBefore);
    const pending = (await redis.xpending(`${t}:outbox`, 'legacy-projector')) as [number, ...unknown[]];
    expect(pending[0]).toBe(1);

    // BullMQ finds the jobs under the new prefix and queue name
    const queue = new Queue('jobs', { connection: redis, prefix: t });
    try {
      const job = await queue.getJob('job-2');
      expect(job?.name).toBe('call');
      expect(job?.data).toEqual({
        kind: 'call',
        classId: 'Counter',
        method: 'increment',
        instanceId: 'c1',
        body: { by: 5 },
        identity: CALL_IDENTITY,
        requestId: 'r-1',
      });
      expect(job?.opts).toMatchObject({ attempts: 5, backoff: { type: 'exponential', delay: 500 } });
      expect(await job?.getState()).toBe('waiting');
      const task = await queue.getJob('task-t1');
      expect(task?.data).toMatchObject({ kind: 'task', task: { id: 't1' } });
      expect(await task?.getState()).toBe('delayed');
      expect(await queue.getJobCounts('waiting', 'delayed')).toEqual({ waiting: 1, delayed: 1 });
    } finally {
      await queue.close();
    }

    // one line with the counts
    const summary = lines.filter((l) => /migrated/.test(l.msg));
    expect(summary).toHaveLength(1);
    expect(summary[0]!.fields).toMatchObject({ project: p, renamed: moved, gone: 0, conflicts: 0 });

    // checkLayout accepts it; a second run is a no-op
    await checkLayout(store);
    const again = logger();
    expect(await migrateLegacyLayout(store, again.log)).toEqual({
      outcome: 'current',
      renamed: 0,
      gone: 0,
      conflicts: [],
    } satisfies LegacyMigration);
    expect(again.lines).toEqual([]);
    expect(await snapshot(redis, p)).toEqual(after);
  });

  test('a project without legacy keys: the marker is written with the configured buckets', async () => {
    const p = uniqueProjectId('lm');
    const redis = open();
    await redis.set(`rt:${p}:apikeys`, 'x');
    const store = new StateStore(open(), p, 4);
    const { lines, log } = logger();
    expect(await migrateLegacyLayout(store, log)).toMatchObject({ outcome: 'none', renamed: 0 });
    expect(lines).toEqual([]);
    expect(await redis.get(`rt:${p}:layout`)).toBe(JSON.stringify({ buckets: 4 }));
    await checkLayout(store);
  });

  test('legacy data and REDIS_BUCKETS other than 1: refused, nothing touched', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    await writeLegacy(redis, p);
    const before = await snapshot(redis, p);
    const store = new StateStore(open(), p, 4);
    await expect(migrateLegacyLayout(store, () => undefined)).rejects.toThrow(
      /can only be migrated to REDIS_BUCKETS=1 .*job results and delivery markers.*REDIS_BUCKETS is 4/,
    );
    expect(await snapshot(redis, p)).toEqual(before);
    expect(await redis.exists(`rt:${p}:layout`, migrationLockKey(store.keys))).toBe(0);
    // then a start with REDIS_BUCKETS=1 migrates it
    expect((await migrateLegacyLayout(new StateStore(open(), p, 1), () => undefined)).outcome).toBe('migrated');
  });

  test('two processes at once: one migrates, the other waits for it; every key renamed exactly once', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    await writeLegacy(redis, p);
    const pipe = redis.pipeline();
    for (let i = 0; i < 400; i++) {
      pipe.hset(`rt:${p}:i:Counter:n${i}`, 'v', '1', 's', JSON.stringify({ public: { count: i } }));
      pipe.set(`rt:${p}:jr:j${i}`, String(i));
      pipe.set(`rt:${p}:dl:d${i}`, String(i));
    }
    await pipe.exec();
    const before = await snapshot(redis, p);
    const names = new LegacyNames(p);
    const legacy = Object.keys(before).filter((k) => names.newName(k) !== undefined);

    const a = logger();
    const b = logger();
    const [ra, rb] = await Promise.all([
      migrateLegacyLayout(new StateStore(open(), p, 1), a.log, { batch: 50, pollMs: 20 }),
      migrateLegacyLayout(new StateStore(open(), p, 1), b.log, { batch: 50, pollMs: 20 }),
    ]);
    expect([ra.outcome, rb.outcome].sort()).toEqual(['migrated', 'waited']);
    expect(ra.renamed + rb.renamed).toBe(legacy.length);
    expect(ra.gone + rb.gone).toBe(0);
    expect([...ra.conflicts, ...rb.conflicts]).toEqual([]);
    const after = await snapshot(redis, p);
    for (const k of legacy) {
      expect(after).not.toHaveProperty([k]);
      expect(after[names.newName(k)!]).toEqual(before[k]);
    }
    const waiter = ra.outcome === 'waited' ? a : b;
    expect(waiter.lines.map((l) => l.msg)).toEqual([expect.stringMatching(/another process is migrating/)]);
  });

  test('renames racing without the lock: each key renamed once, the other finds it gone', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    const pipe = redis.pipeline();
    for (let i = 0; i < 500; i++) pipe.set(`rt:${p}:jr:j${i}`, String(i));
    await pipe.exec();
    const names = new LegacyNames(p);
    const results: LegacyMigration[] = [0, 1].map(() => ({ outcome: 'migrated', renamed: 0, gone: 0, conflicts: [] }));
    await Promise.all(results.map((r) => renameLegacyKeys(open(), names, 10, r)));
    expect(results[0]!.renamed + results[1]!.renamed).toBe(500);
    expect(results.flatMap((r) => r.conflicts)).toEqual([]);
    expect(await scanAll(redis, `rt:${p}:jr:*`)).toEqual([]);
    const moved = await scanAll(redis, `rt:{${p}:0}:jr:*`);
    expect(moved).toHaveLength(500);
    expect(await redis.get(`rt:{${p}:0}:jr:j7`)).toBe('7');
  });

  test('a migration that died half-way: its lock lapses, and the next start renames the rest', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    await writeLegacy(redis, p);
    const before = await snapshot(redis, p);
    const names = new LegacyNames(p);
    const legacy = Object.keys(before).filter((k) => names.newName(k) !== undefined);
    // the dead process held the lock and had renamed some keys
    const store = new StateStore(open(), p, 1);
    await redis.set(migrationLockKey(store.keys), 'dead-process', 'PX', 400);
    const done = legacy.filter((_, i) => i % 2 === 0);
    for (const k of done) await redis.rename(k, names.newName(k)!);

    const { lines, log } = logger();
    const r = await migrateLegacyLayout(store, log, { pollMs: 50, lockMs: 2000 });
    expect(r.outcome).toBe('migrated');
    expect(r.renamed).toBe(legacy.length - done.length);
    expect(r.conflicts).toEqual([]);
    expect(lines[0]!.msg).toMatch(/another process is migrating/);
    const after = await snapshot(redis, p);
    for (const k of legacy) expect(after[names.newName(k)!]).toEqual(before[k]);
    expect(await redis.get(`rt:${p}:layout`)).toBe(JSON.stringify({ buckets: 1 }));
  });

  test('an old key whose new name is taken is left in place, reported, and the new key kept', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    await writeLegacy(redis, p);
    const t = tagOf(p);
    await redis.set(`${t}:jr:job-1`, 'newer');
    const { lines, log } = logger();
    const r = await migrateLegacyLayout(new StateStore(open(), p, 1), log);
    expect(r.outcome).toBe('migrated');
    expect(r.conflicts).toEqual([{ from: `rt:${p}:jr:job-1`, to: `${t}:jr:job-1` }]);
    expect(await redis.get(`${t}:jr:job-1`)).toBe('newer');
    expect(JSON.parse((await redis.get(`rt:${p}:jr:job-1`))!)).toMatchObject({ status: 200 });
    expect(lines.find((l) => l.fields.from === `rt:${p}:jr:job-1`)?.msg).toMatch(/left in place.*not overwritten/);
    expect(lines.at(-1)!.fields).toMatchObject({ conflicts: 1 });
    // the rest is migrated and the marker written: the next start does not look again
    expect(await redis.hget(`${t}:i:Counter:c1`, 'v')).toBe('3');
    expect(await redis.get(`rt:${p}:layout`)).toBe(JSON.stringify({ buckets: 1 }));
  });

  test('waiting for a migration that does not finish is bounded', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    await writeLegacy(redis, p);
    const store = new StateStore(open(), p, 1);
    await redis.set(migrationLockKey(store.keys), 'someone-else', 'PX', 60_000);
    const started = Date.now();
    await expect(migrateLegacyLayout(store, () => undefined, { waitMs: 300, pollMs: 50 })).rejects.toThrow(
      /has not finished/,
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await redis.hget(`rt:${p}:i:Counter:c1`, 'v')).toBe('3');
  });

  test('refused while a worker of the previous version is connected', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    await writeLegacy(redis, p);
    const workerConn = open();
    const worker = new Worker(`rt-${p}`, async () => undefined, {
      connection: workerConn,
      prefix: 'bull',
      autorun: false,
    });
    try {
      // autorun off: the job is not taken, but the worker's blocking connection is open and named
      await worker.waitUntilReady();
      const name = `bull:${Buffer.from(`rt-${p}`).toString('base64')}`;
      await waitFor(async () => String(await redis.client('LIST')).includes(` name=${name} `), {
        what: 'the old worker connection named',
      });
      const store = new StateStore(open(), p, 1);
      await expect(migrateLegacyLayout(store, () => undefined)).rejects.toThrow(
        /stop every process of the previous version/,
      );
      expect(await redis.exists(`rt:${p}:layout`, migrationLockKey(store.keys))).toBe(0);
    } finally {
      await worker.close();
    }
    expect((await migrateLegacyLayout(new StateStore(open(), p, 1), () => undefined)).outcome).toBe('migrated');
  });

  test('on a cluster it does not look', async () => {
    const cluster = connect(
      { kind: 'cluster', nodes: parseClusterNodes(clusterNodes()) },
      { maxRetriesPerRequest: null },
    );
    opened.push(cluster);
    const p = uniqueProjectId('lm');
    await cluster.set(`rt:${p}:i:Counter:c1`, 'x');
    expect((await migrateLegacyLayout(new StateStore(cluster, p, 1), () => undefined)).outcome).toBe('cluster');
    expect(await cluster.get(`rt:${p}:i:Counter:c1`)).toBe('x');
    expect(await cluster.exists(`rt:${p}:layout`)).toBe(0);
    await cluster.del(`rt:${p}:i:Counter:c1`);
  });
});

describe('a runtime started on legacy data', () => {
  let t: TestRuntime | undefined;
  afterEach(async () => {
    await t?.stop();
    t = undefined;
  });

  // needs runtime/runtime.ts (Runtime.build) to call migrateLegacyLayout before checkLayout
  test('serves the migrated instance, its lookup, and runs the job queued before', async () => {
    const redis = open();
    const p = uniqueProjectId('lm');
    await writeLegacy(redis, p);
    // the old queued job (job-2: increment by 5) stays parked in the test's first part; here it runs
    t = await startTestRuntime({ projectId: p, env: { REDIS_URL: redisUrl() } });
    const key = { 'x-api-key': TEST_API_KEY };
    expect(await redis.get(`rt:${p}:layout`)).toBe(JSON.stringify({ buckets: 1 }));
    const read = await t.get(`/${p}/CALL/Counter/get/slot!alpha`, key);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'c1', label: 'old', slot: 'alpha' });
    // the job queued under the old layout runs on the migrated instance, once
    await waitFor(async () => (await t!.get(`/${p}/CALL/Counter/get/c1`, key)).body?.count === 12, {
      what: 'the legacy job applied',
    });
    expect((await t.get(`/${p}/CALL/Counter/get/c1`, key)).body).toMatchObject({
      id: 'c1',
      version: 4,
      count: 12,
      label: 'old',
      slot: 'alpha',
    });
    const inc = await t.post(`/${p}/CALL/Counter/increment/c1`, { by: 1 }, key);
    expect(inc.status).toBe(200);
    expect(inc.body).toMatchObject({ count: 13 });
    expect(await redis.exists(`rt:${p}:i:Counter:c1`)).toBe(0);
    expect(await redis.hget(`${tagOf(p)}:i:Counter:c1`, 'v')).toBe('5');
  });
});
