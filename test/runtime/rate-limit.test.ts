/**
 * ctx.limits (runtime/actor/rate-limit.ts) over real Redis: a sliding window
 * of `max` counted hits, refused hits not counted, windows that pass, names
 * and keys independent, keys hashed before they reach Redis, atomic under
 * concurrent hits; and through a real runtime over HTTP: the same counters
 * from STATIC, READ and WRITE handlers, kept when the handler throws, and the
 * caller's address in ctx.request.ip.
 */
import * as path from 'node:path';
import { trustProxy } from '../../runtime/config';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisRateLimits } from '../../runtime/actor/rate-limit';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { redisUrl, uniqueProjectId } from '../support/redis';

let redis: Redis;
let limits: RedisRateLimits;
let base: string;

beforeAll(() => {
  redis = new Redis(redisUrl());
  base = `rt:${uniqueProjectId('rl')}`;
  limits = new RedisRateLimits(redis, base);
});
afterAll(async () => {
  const keys = await redis.keys(`${base}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

const unique = (prefix: string) => `${prefix}-${uniqueProjectId('')}`;

describe('RedisRateLimits', () => {
  test('max hits are allowed, counting down; the next is refused with the time until the oldest leaves the window', async () => {
    const key = unique('acct');
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await limits.hit('sign-in', key, { max: 3, windowSeconds: 60 }));
    expect(seen.map((r) => [r.allowed, r.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(seen.slice(0, 3).map((r) => r.retryAfterSeconds)).toEqual([0, 0, 0]);
    expect(seen[3]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(seen[3]!.retryAfterSeconds).toBeLessThanOrEqual(60);
  });

  test('once the window passes hits are allowed again, and refused hits took no place in it', async () => {
    const key = unique('addr');
    // long enough that the five refusals below land inside it even on a loaded machine
    const limit = { max: 2, windowSeconds: 3 };
    const counter = limits.keyOf('short', key);
    expect((await limits.hit('short', key, limit)).allowed).toBe(true);
    expect((await limits.hit('short', key, limit)).allowed).toBe(true);
    for (let i = 0; i < 5; i++) expect((await limits.hit('short', key, limit)).allowed).toBe(false);
    // the refusals were not stored: the counter holds the two allowed hits only
    expect(await redis.zcard(counter)).toBe(2);
    // then again every 25 ms until it opens: were refused hits counted, the newest of them would
    // always fill the window and it would never open
    const again = await waitFor(
      async () => {
        const r = await limits.hit('short', key, limit);
        return r.allowed ? r : null;
      },
      { timeoutMs: 30_000, what: 'the window to pass' },
    );
    // the first allowed hit has left the window; the second may have too, when the two were more
    // than a poll apart. Whichever: what remains is max less the hits the counter now holds
    const held = await redis.zcard(counter);
    expect(held === 1 || held === 2).toBe(true);
    expect(again!.remaining).toBe(limit.max - held);
  });

  test('names and keys are independent counters', async () => {
    const key = unique('acct');
    const one = { max: 1, windowSeconds: 60 };
    expect((await limits.hit('login', key, one)).allowed).toBe(true);
    expect((await limits.hit('login', key, one)).allowed).toBe(false);
    expect((await limits.hit('resend', key, one)).allowed).toBe(true);
    expect((await limits.hit('login', `${key}-other`, one)).allowed).toBe(true);
    expect((await limits.hit('login', key, one)).allowed).toBe(false);
  });

  test('the key reaches Redis only as its sha256, under rt:<project>:rl:<name>:', async () => {
    const key = `Someone@Example.com ${unique('raw')}`;
    await limits.hit('hashed', key, { max: 5, windowSeconds: 30 });
    const keys = await redis.keys(`${base}:rl:hashed:*`);
    expect(keys).toEqual([`${base}:rl:hashed:${createHash('sha256').update(key).digest('hex')}`]);
    expect(keys[0]).not.toContain('Example');
    expect(await redis.type(keys[0]!)).toBe('zset');
    const ttl = await redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  test('reset forgets the hits of one key under one name', async () => {
    const key = unique('acct');
    const one = { max: 1, windowSeconds: 60 };
    await limits.hit('failures', key, one);
    await limits.hit('other', key, one);
    expect((await limits.hit('failures', key, one)).allowed).toBe(false);
    await limits.reset('failures', key);
    expect((await limits.hit('failures', key, one)).allowed).toBe(true);
    expect((await limits.hit('other', key, one)).allowed).toBe(false);
  });

  test('concurrent hits never pass the limit', async () => {
    const key = unique('burst');
    const results = await Promise.all(
      Array.from({ length: 60 }, () => limits.hit('burst', key, { max: 10, windowSeconds: 60 })),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(
      results
        .filter((r) => r.allowed)
        .map((r) => r.remaining)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('a class passing a bad name or limit gets an error, and nothing is counted', async () => {
    const key = unique('bad');
    await expect(limits.hit('has:colon', key, { max: 1, windowSeconds: 1 })).rejects.toThrow(/name/);
    await expect(limits.hit('ok', key, { max: 0, windowSeconds: 1 })).rejects.toThrow(/max/);
    await expect(limits.hit('ok', key, { max: 1.5, windowSeconds: 1 })).rejects.toThrow(/max/);
    await expect(limits.hit('ok', key, { max: 1, windowSeconds: 0 })).rejects.toThrow(/windowSeconds/);
    await expect(limits.hit('ok', key, { max: 1, windowSeconds: Number.NaN })).rejects.toThrow(/windowSeconds/);
    expect(await redis.keys(`${base}:rl:ok:*`)).toEqual([]);
  });
});

describe('ctx.limits and ctx.request.ip in handlers, over HTTP', () => {
  let t: TestRuntime;
  const key = { 'x-api-key': TEST_API_KEY };
  const call = (method: string, body: unknown, instance = '') =>
    t.post(`/${t.projectId}/CALL/Throttle/${method}${instance ? `/${instance}` : ''}`, body, key);

  beforeAll(async () => {
    t = await startTestRuntime({
      env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'rate-limit-fixtures')}` },
    });
  });
  afterAll(() => t.stop());

  test('STATIC, READ and WRITE handlers count into the same counter; a WRITE that throws keeps its hit', async () => {
    const limit = { name: 'shared', key: unique('acct'), max: 4, windowSeconds: 60 };
    const w = await call('hitWrite', limit, 'i1');
    expect([w.status, w.body]).toEqual([200, { allowed: true, remaining: 3, retryAfterSeconds: 0 }]);
    const s = await call('hitStatic', limit);
    expect([s.status, s.body.remaining]).toEqual([200, 2]);
    const r = await call('hitRead', limit, 'i1');
    expect([r.status, r.body.remaining]).toEqual([200, 1]);
    const failed = await call('hitWrite', { ...limit, fail: true }, 'i1');
    expect(failed.status).toBe(500);
    const refused = await call('hitStatic', limit);
    expect([refused.status, refused.body.allowed, refused.body.remaining]).toEqual([200, false, 0]);
    expect(refused.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // counters live in the project's key space
    expect(
      await t.rt.redis.exists(`rt:${t.projectId}:rl:shared:${createHash('sha256').update(limit.key).digest('hex')}`),
    ).toBe(1);
    const reset = await call('reset', { name: 'shared', key: limit.key });
    expect(reset.status).toBe(200);
    expect((await call('hitStatic', limit)).body.allowed).toBe(true);
  });

  test('ctx.request.ip is the address the request came from', async () => {
    const r = await call('address', {});
    expect(r.status).toBe(200);
    expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(r.body.ip);
    // without TRUST_PROXY a caller cannot choose its address with X-Forwarded-For (per-address limits would mean nothing)
    const spoofed = await t.post(
      `/${t.projectId}/CALL/Throttle/address`,
      {},
      { ...key, 'x-forwarded-for': '203.0.113.9' },
    );
    expect(['127.0.0.1', '::ffff:127.0.0.1']).toContain(spoofed.body.ip);
  });
});

describe('TRUST_PROXY', () => {
  let t: TestRuntime;
  const key = { 'x-api-key': TEST_API_KEY };
  beforeAll(async () => {
    t = await startTestRuntime({
      env: {
        CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'rate-limit-fixtures')}`,
        TRUST_PROXY: 'loopback',
      },
    });
  });
  afterAll(() => t.stop());

  test("behind a trusted proxy the caller's address is the one the proxy forwards", async () => {
    const r = await t.post(`/${t.projectId}/CALL/Throttle/address`, {}, { ...key, 'x-forwarded-for': '203.0.113.9' });
    expect(r.body.ip).toBe('203.0.113.9');
  });

  test('values are checked at start', () => {
    expect(trustProxy({})).toBe(false);
    expect(trustProxy({ TRUST_PROXY: '2' })).toBe(2);
    expect(trustProxy({ TRUST_PROXY: 'loopback, 10.0.0.0/8' })).toBe('loopback,10.0.0.0/8');
    expect(() => trustProxy({ TRUST_PROXY: 'everyone' })).toThrow("TRUST_PROXY: 'everyone'");
  });
});
