/** Throttling counters shared by every process (ctx.limits). */

/** A limit of `max` counted hits in any window of `windowSeconds` (ctx.limits.hit). */
export interface RateLimit {
  max: number;
  windowSeconds: number;
}

export interface RateLimitResult {
  /** this hit was within the limit (and counted); a refused hit is not counted */
  allowed: boolean;
  /** hits still allowed in the window after this one (0 when refused) */
  remaining: number;
  /** 0 when allowed; otherwise seconds until a hit is allowed again (rounded up: a Retry-After value) */
  retryAfterSeconds: number;
}

/**
 * Throttling counters shared by every process of the project (Redis, a
 * sliding window; runtime/actor/rate-limit.ts), for every handler kind. A
 * counter is named by the class (`name`: 1-64 of [A-Za-z0-9_.-]) and keyed by
 * what it throttles (an address, an account), which is hashed before it
 * becomes part of a Redis key. Counters are not state: a handler that throws
 * keeps its hits.
 */
export interface RateLimits {
  /** counts one hit of `key` under `name`, unless `limit` is already reached */
  hit(name: string, key: string, limit: RateLimit): Promise<RateLimitResult>;
  /** forgets every hit of `key` under `name` (e.g. the failed attempts, after a success) */
  reset(name: string, key: string): Promise<void>;
}
