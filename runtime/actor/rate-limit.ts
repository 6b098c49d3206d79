/**
 * Rate limits shared by every process of a project (ctx.limits): a class
 * throttles what a caller may repeat (sign-in attempts per account and per
 * address, resends) with
 *
 *   const r = await ctx.limits.hit('sign-in-address', ctx.request.ip ?? '', { max: 20, windowSeconds: 900 });
 *   if (!r.allowed) throw myError('TOO_MANY_ATTEMPTS', ..., { retryAfterSeconds: r.retryAfterSeconds });
 *
 * A sliding window over Redis's clock (slidingWindowHit.lua, one round trip,
 * atomic): at most `max` counted hits in any `windowSeconds`, not twice that
 * around the edge of a fixed window. A refused hit is not counted (hammering
 * a closed limit does not keep it closed), so a counter holds at most `max`
 * hit times and expires one window after its last counted hit. Available to
 * every handler kind, READ and STATIC included: a counter is not instance
 * state, and is not rolled back when the handler throws.
 *
 * Keys are `rt:<project>:rl:<name>:<sha256(key)>`: what a caller typed (an
 * email, an address) never lands in a Redis key as it is. The script touches
 * that one key only, so on a Redis Cluster a counter needs no hash tag.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RedisConnection } from '../redis/connection';
import { luaSource } from './lua-source';
import type { RateLimit, RateLimitResult, RateLimits } from '../types/limits';

/** the largest `max`: each counted hit is a sorted-set member until its window passes */
export const RATE_LIMIT_MAX_HITS = 10_000;
/** the longest window (31 days) */
export const RATE_LIMIT_MAX_WINDOW_SECONDS = 31 * 24 * 3600;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const SCRIPT = 'slidingWindowHit';

type LimitRedis = RedisConnection & {
  slidingWindowHit(key: string, windowMs: number, max: number, member: string): Promise<[number, number, number]>;
};

/** Checks a limit's arguments (a class's mistake, not its caller's: a plain Error, answered 500). */
function windowMsOf(name: string, key: string, limit: RateLimit): number {
  if (typeof name !== 'string' || !NAME.test(name))
    throw new Error(`rate limit name '${name}' must be 1-64 letters, digits, '_', '.' or '-'`);
  if (typeof key !== 'string') throw new Error(`rate limit '${name}': the key must be a string`);
  const { max, windowSeconds } = limit ?? ({} as RateLimit);
  if (!Number.isInteger(max) || max < 1 || max > RATE_LIMIT_MAX_HITS)
    throw new Error(`rate limit '${name}': max must be an integer from 1 to ${RATE_LIMIT_MAX_HITS}`);
  if (typeof windowSeconds !== 'number' || !(windowSeconds > 0) || windowSeconds > RATE_LIMIT_MAX_WINDOW_SECONDS) {
    throw new Error(`rate limit '${name}': windowSeconds must be above 0 and at most ${RATE_LIMIT_MAX_WINDOW_SECONDS}`);
  }
  return Math.max(1, Math.ceil(windowSeconds * 1000));
}

export class RedisRateLimits implements RateLimits {
  private readonly redis: LimitRedis;

  /** `base`: the project's key prefix (`rt:<project>`) */
  constructor(
    redis: RedisConnection,
    private readonly base: string,
  ) {
    this.redis = redis as LimitRedis;
    if (typeof (redis as unknown as Record<string, unknown>)[SCRIPT] !== 'function') {
      redis.defineCommand(SCRIPT, { lua: luaSource(SCRIPT), numberOfKeys: 1 });
    }
  }

  /** the counter of `key` under `name` */
  keyOf(name: string, key: string): string {
    return `${this.base}:rl:${name}:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
  }

  async hit(name: string, key: string, limit: RateLimit): Promise<RateLimitResult> {
    const windowMs = windowMsOf(name, key, limit);
    const [allowed, remaining, retryMs] = await this.redis.slidingWindowHit(
      this.keyOf(name, key),
      windowMs,
      limit.max,
      randomBytes(8).toString('hex'),
    );
    return {
      allowed: allowed === 1,
      remaining: Number(remaining),
      retryAfterSeconds: Math.ceil(Number(retryMs) / 1000),
    };
  }

  async reset(name: string, key: string): Promise<void> {
    if (typeof name !== 'string' || !NAME.test(name))
      throw new Error(`rate limit name '${name}' must be 1-64 letters, digits, '_', '.' or '-'`);
    await this.redis.del(this.keyOf(name, key));
  }
}
