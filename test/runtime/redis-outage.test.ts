/**
 * Redis frozen (SIGSTOP) or gone, then back: calls answer 503 REDIS_UNAVAILABLE
 * within their budget and commit nothing, /ready answers 503 (on its own PING
 * deadline, not after the calls' command time-out), and the same runtime serves
 * again once Redis answers, without a restart.
 *
 * Each test runs its own redis-server (never the suite's shared one, which
 * other test files use) and a runtime on it with a logger whose lines the test
 * reads. Nothing here sleeps for a fixed time: waits are on conditions, with
 * deadlines.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig } from '../../runtime/config';
import { RuntimeCodes } from '../../runtime/errors';
import { startEmbeddedRedis, type EmbeddedRedis } from '../../runtime/redis/embedded-redis';
import { Runtime } from '../../runtime/runtime';
import { isRedisUnavailable } from '../../runtime/redis/client';
import { Keys } from '../../runtime/actor/state-store';
import { TEST_API_KEY, testEnv, waitFor } from '../support/harness';
import { capturedLogger } from '../support/log-lines';
import { uniqueProjectId } from '../support/redis';

/** budgets of the example Counter's methods used here (examples/classes/counter) */
const WRITE_BUDGET_MS = 10_000; // increment: timeoutSeconds 10
const READ_BUDGET_MS = 10_000; // get: the READ default
const COMMAND_TIMEOUT_MS = 2_000; // the REDIS_COMMAND_TIMEOUT_MS default

interface Answer {
  status: number;
  body: any;
  ms: number;
}

interface Started {
  rt: Runtime;
  base: string;
  projectId: string;
  lines: Record<string, any>[];
  call(method: string, instanceId: string, body?: unknown): Promise<Answer>;
  ready(): Promise<Answer>;
}

/** A runtime (all roles) on `redisUrl`, with its log lines kept in `lines`. */
async function startRuntime(redisUrl: string, extra: Record<string, string> = {}): Promise<Started> {
  const projectId = uniqueProjectId('ro');
  const env = testEnv(projectId, { REDIS_URL: redisUrl, ...extra });
  const { lines, logger } = capturedLogger();
  const rt = await Runtime.create(loadConfig(env), redisUrl, { logger });
  const port = await rt.start(0);
  const base = `http://127.0.0.1:${port}`;
  const timed = async (url: string, init?: RequestInit): Promise<Answer> => {
    const started = Date.now();
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, ms: Date.now() - started };
  };
  return {
    rt,
    base,
    projectId,
    lines,
    call: (method, instanceId, body = {}) =>
      timed(`${base}/${projectId}/CALL/Counter/${method}/${instanceId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
        body: JSON.stringify(body),
      }),
    ready: () => timed(`${base}/ready`),
  };
}

/** The log lines about Redis's availability, and any other warning or error. */
function redisLines(lines: Record<string, any>[]) {
  return {
    down: lines.filter((l) => /Redis is not answering/.test(l.msg)),
    back: lines.filter((l) => /Redis answers again/.test(l.msg)),
    otherWarnings: lines.filter((l) => l.level >= 40 && !/Redis is not answering/.test(l.msg)),
  };
}

describe('Redis frozen (SIGSTOP)', () => {
  let redis: EmbeddedRedis;
  let t: Started;
  let probe: Redis | undefined;
  let frozen = false;
  const consoleErrors: unknown[][] = [];
  let consoleSpy: jest.SpyInstance;

  beforeAll(async () => {
    redis = await startEmbeddedRedis({});
    t = await startRuntime(redis.url);
    consoleSpy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void consoleErrors.push(args));
  });

  afterAll(async () => {
    consoleSpy?.mockRestore();
    if (frozen) process.kill(redis.pid, 'SIGCONT');
    probe?.disconnect();
    await t?.rt.stop();
    await redis?.stop();
  });

  it('answers 503 within the budget, commits nothing, and serves again once Redis resumes', async () => {
    expect((await t.call('init', 'c1', { start: 5 })).status).toBe(200);
    expect((await t.ready()).status).toBe(200);

    process.kill(redis.pid, 'SIGSTOP');
    frozen = true;
    const [write, read, queued, ready] = await Promise.all([
      t.call('increment', 'c1', { by: 1 }),
      t.call('get', 'c1'),
      t.call('queuedAdd', 'c1', { by: 1000 }),
      t.ready(),
    ]);

    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('not_ready');
    // /ready gives up on its own PING deadline, not after a command's time-out as the calls do: it
    // started last, so it answering no later than the slowest call shows it did not wait as long
    // (a relative check: a stall of the loaded machine delays them all alike)
    expect(ready.ms).toBeLessThanOrEqual(Math.max(write.ms, read.ms, queued.ms));

    for (const [answer, budget] of [
      [write, WRITE_BUDGET_MS],
      [read, READ_BUDGET_MS],
      // enqueuing a QUEUED_WRITE is bounded the same way (its budget is the worker's, 30 s here)
      [queued, WRITE_BUDGET_MS],
    ] as const) {
      expect(answer.status).toBe(503);
      expect(answer.body.code).toBe(RuntimeCodes.REDIS_UNAVAILABLE.code);
      expect(answer.body.classId).toBe('Counter');
      // a command's time-out, or two when it queued behind a pipeline that was waiting already
      // (ioredis auto-pipelining sends one pipeline at a time): inside the method's budget
      expect(answer.ms).toBeGreaterThanOrEqual(COMMAND_TIMEOUT_MS - 100);
      expect(answer.ms).toBeLessThan(budget);
    }
    // a second call during the same freeze fails the same way
    const again = await t.call('increment', 'c1', { by: 100 });
    expect(again.status).toBe(503);
    expect(again.ms).toBeLessThan(WRITE_BUDGET_MS);

    process.kill(redis.pid, 'SIGCONT');
    frozen = false;
    await waitFor(async () => (await t.ready()).status === 200, {
      timeoutMs: 10_000,
      what: '/ready to answer 200 again',
    });

    // the writes refused during the freeze committed nothing
    const after = await t.call('get', 'c1');
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ count: 5, version: 1 });

    // no lease is left behind by the refused writes (each acquire that Redis ran on resuming was
    // followed on the same connection by its release, before the PING /ready and the read above
    // waited for), and the same instance takes writes again
    probe = new Redis(redis.url);
    expect(await probe.exists(new Keys(t.projectId).lease('Counter', 'c1'))).toBe(0);
    const write2 = await t.call('increment', 'c1', { by: 2 });
    expect(write2.status).toBe(200);
    expect(write2.body).toEqual({ count: 7 });
    expect((await t.call('get', 'c1')).body).toMatchObject({ count: 7, version: 2 });

    // queued writes too: the worker runs a job queued now, and the one refused during the freeze never runs
    const job = await t.call('queuedAdd', 'c1', { by: 10 });
    expect(job.status).toBe(202);
    await waitFor(async () => (await t.call('get', 'c1')).body.count === 17, { what: 'the queued write to apply' });
    expect((await t.call('get', 'c1')).body).toMatchObject({ count: 17, version: 3, history: [10] });

    // one warning for the incident, one line when it ended, no per-call warnings and no ioredis console noise
    await waitFor(() => redisLines(t.lines).back.length === 1, { what: "the 'Redis answers again' line" });
    const { down, otherWarnings } = redisLines(t.lines);
    expect(down).toHaveLength(1);
    expect(down[0].level).toBe(40);
    expect(otherWarnings).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});

describe('Redis frozen while a commit is on its way', () => {
  let redis: EmbeddedRedis;
  let t: Started;
  let probe: Redis;
  let frozen = false;
  let consoleSpy: jest.SpyInstance;

  beforeAll(async () => {
    redis = await startEmbeddedRedis({});
    // READ_CACHE_MB=0: no cached snapshot, so a write runs under the lease (the optimistic commit is the second test)
    t = await startRuntime(redis.url, { READ_CACHE_MB: '0' });
    probe = new Redis(redis.url, { maxRetriesPerRequest: null });
    consoleSpy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  afterAll(async () => {
    consoleSpy?.mockRestore();
    if (frozen) process.kill(redis.pid, 'SIGCONT');
    probe?.disconnect();
    await t?.rt.stop();
    await redis?.stop();
  });

  it('a commit sent to the frozen Redis does not apply when it resumes: the caller was told 503, nothing committed', async () => {
    expect((await t.call('init', 'f1', { start: 5 })).status).toBe(200);
    const lease = new Keys(t.projectId).lease('Counter', 'f1');
    // the handler holds the lease while it waits; Redis freezes before it commits (3 s: room for a
    // stall between the lease being seen and the freeze; the commit's time-out still ends inside the budget)
    const write = t.call('increment', 'f1', { by: 1, delayMs: 3_000 });
    await waitFor(async () => (await probe.exists(lease)) === 1, {
      timeoutMs: 5_000,
      what: 'the write to hold the lease',
    });
    process.kill(redis.pid, 'SIGSTOP');
    frozen = true;
    const answer = await write;
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe(RuntimeCodes.REDIS_UNAVAILABLE.code);

    // the commit waited in Redis's socket; Redis runs it now, after its deadline, and refuses it
    process.kill(redis.pid, 'SIGCONT');
    frozen = false;
    await waitFor(async () => (await t.ready()).status === 200, {
      timeoutMs: 10_000,
      what: '/ready to answer 200 again',
    });
    const after = await t.call('get', 'f1');
    expect(after.body).toMatchObject({ count: 5, version: 1 });
    // and no lease is left behind: the next write goes through at once
    const next = await t.call('increment', 'f1', { by: 2 });
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ count: 7 });
  });

  it('so is the commit of a write run on a cached snapshot without the lease', async () => {
    const projectId = uniqueProjectId('ro');
    const env = testEnv(projectId, { REDIS_URL: redis.url });
    const rt = await Runtime.create(loadConfig(env), redis.url, { logger: capturedLogger().logger });
    try {
      // the INIT's commit leaves the instance in this process's cache: the next write runs on it
      expect((await rt.call('Counter', 'init', 'f2', { start: 5 })).status).toBe(200);
      const answered0 = rt.dispatcher.optimisticWrites.answered;
      // called in process: the error comes as Redis gave it (the HTTP layer answers it as 503 REDIS_UNAVAILABLE)
      const write = rt.call('Counter', 'increment', 'f2', { by: 1, delayMs: 1_500 }).then(
        (r) => ({ status: r.status, unavailable: false }),
        (err) => ({ status: undefined, unavailable: isRedisUnavailable(err) }),
      );
      // the handler needs nothing from Redis until its commit, which then waits in the frozen Redis
      process.kill(redis.pid, 'SIGSTOP');
      frozen = true;
      const answer = await write;
      expect(answer).toEqual({ status: undefined, unavailable: true });
      expect(rt.dispatcher.optimisticWrites.answered).toBe(answered0 + 1);

      process.kill(redis.pid, 'SIGCONT');
      frozen = false;
      const after = await waitFor(async () => (await rt.call('Counter', 'get', 'f2')).body, {
        timeoutMs: 10_000,
        what: 'a READ once Redis answers',
      });
      expect(after).toMatchObject({ count: 5, version: 1 });
      expect((await rt.call('Counter', 'increment', 'f2', { by: 2 })).body).toEqual({ count: 7 });
    } finally {
      await rt.stop();
    }
  });
});

describe('Redis gone (stopped), then back on the same port', () => {
  let dir: string;
  let redis: EmbeddedRedis | undefined;
  let t: Started;
  const consoleErrors: unknown[][] = [];
  let consoleSpy: jest.SpyInstance;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'redis-outage-'));
    // AOF with fsync on every write: what was acknowledged is there after the restart
    redis = await startEmbeddedRedis({ dataDir: dir, appendOnly: true, appendfsync: 'always' });
    t = await startRuntime(redis.url);
    consoleSpy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void consoleErrors.push(args));
  });

  afterAll(async () => {
    consoleSpy?.mockRestore();
    await t?.rt.stop();
    await redis?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 while Redis is down and reconnects on its own when it is back', async () => {
    expect((await t.call('init', 'g1', { start: 1 })).status).toBe(200);
    const port = redis!.port;

    await redis!.stop();
    redis = undefined;
    const [write, read, ready] = await Promise.all([t.call('increment', 'g1', {}), t.call('get', 'g1'), t.ready()]);
    for (const [answer, budget] of [
      [write, WRITE_BUDGET_MS],
      [read, READ_BUDGET_MS],
    ] as const) {
      expect(answer.status).toBe(503);
      expect(answer.body.code).toBe(RuntimeCodes.REDIS_UNAVAILABLE.code);
      expect(answer.ms).toBeLessThan(budget);
    }
    expect(ready.status).toBe(503);
    expect(ready.body.status).toBe('not_ready');

    // keep calling for a while: reconnection attempts fail meanwhile, and must not fill the log
    const until = Date.now() + 1_500;
    while (Date.now() < until) expect((await t.call('get', 'g1')).status).toBe(503);

    // the port can be briefly taken meanwhile (an ioredis reconnection that connected to itself, or
    // another process's ephemeral port): redis-server then exits with EADDRINUSE, and is started again
    redis = await waitFor(() => startEmbeddedRedis({ dataDir: dir, appendOnly: true, appendfsync: 'always', port }), {
      timeoutMs: 20_000,
      intervalMs: 200,
      what: `Redis to start again on port ${port}`,
    });
    await waitFor(async () => (await t.ready()).status === 200, {
      timeoutMs: 10_000,
      what: '/ready to answer 200 again',
    });
    // the data is back (AOF), the writes refused meanwhile left nothing, and the same runtime writes again
    expect((await t.call('get', 'g1')).body).toMatchObject({ count: 1, version: 1 });
    const back = await t.call('increment', 'g1', { by: 10 });
    expect(back.status).toBe(200);
    expect(back.body).toEqual({ count: 11 });
    // and the worker: a queued write runs
    expect((await t.call('queuedAdd', 'g1', { by: 100 })).status).toBe(202);
    await waitFor(async () => (await t.call('get', 'g1')).body.count === 111, {
      timeoutMs: 10_000,
      what: 'the queued write to apply',
    });

    await waitFor(() => redisLines(t.lines).back.length >= 1, { what: "the 'Redis answers again' line" });
    const { down, otherWarnings } = redisLines(t.lines);
    expect(down).toHaveLength(1);
    expect(otherWarnings).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});

describe('Redis frozen while a runtime starts', () => {
  let redis: EmbeddedRedis;
  let frozen = false;
  let rt: Runtime | undefined;

  beforeAll(async () => {
    redis = await startEmbeddedRedis({});
  });

  afterAll(async () => {
    if (frozen) process.kill(redis.pid, 'SIGCONT');
    await rt?.stop();
    await redis?.stop();
  });

  it('the start waits for Redis to answer instead of failing, then serves', async () => {
    const projectId = uniqueProjectId('rs');
    // a short command time-out: the start meets several of them while Redis is frozen
    const env = testEnv(projectId, { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '300' });
    const { lines, logger } = capturedLogger();
    process.kill(redis.pid, 'SIGSTOP');
    frozen = true;
    const starting = Runtime.create(loadConfig(env), redis.url, { logger }).then(async (created) => {
      rt = created;
      return created.start(0);
    });
    let failed: unknown;
    starting.catch((err) => (failed = err));
    await waitFor(() => failed ?? lines.some((l) => /Redis does not answer yet at start/.test(l.msg)), {
      what: 'the start to wait for Redis',
    });
    expect(failed).toBeUndefined();
    expect(rt).toBeUndefined();
    process.kill(redis.pid, 'SIGCONT');
    frozen = false;

    const port = await starting;
    const wait = lines.find((l) => /Redis does not answer yet at start/.test(l.msg))!;
    expect(wait).toMatchObject({ level: 40, step: expect.any(String), err: 'Command timed out' });
    const call = (method: string, body: unknown) =>
      fetch(`http://127.0.0.1:${port}/${projectId}/CALL/Counter/${method}/s1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
        body: JSON.stringify(body),
      });
    expect((await call('init', { start: 2 })).status).toBe(200);
    const inc = await call('increment', { by: 3 });
    expect(inc.status).toBe(200);
    expect(await inc.json()).toEqual({ count: 5 });
  });
});
