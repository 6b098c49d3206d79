/**
 * Waiting for a lease another process holds, without polling: the waiter
 * blocks on the lease's wake-up list (BLPOP), and the release that hands the
 * lease over pushes to it. Redis serves blocked clients of a key in the order
 * they blocked, so the longest waiter is woken first.
 *
 * A blocking command holds its connection, so each wait borrows one from a
 * small pool duplicated from the call connection. Only the writer at the head
 * of a process's local queue for an instance waits on Redis, so a process
 * needs one connection per instance it waits for at once; past the pool's
 * bound a waiter sleeps briefly instead and looks again.
 */
import { duplicate, type RedisConnection } from '../redis/connection';
import { blockingConnectionOverrides } from '../redis/client';
import { sleep } from './local-queue';

/** connections blocked at once, at most, per process */
export const MAX_BLOCKED_WAITERS = 32;
/** idle blocking connections kept for the next wait: opening one per wait would cost more than the wait */
const IDLE_KEPT = MAX_BLOCKED_WAITERS;
/** one block's longest time: a safety net for a wake-up that never comes (its releaser died) */
export const WAKE_BLOCK_MS = 1000;
/** a waiter without a free connection looks again after this long */
const NO_CONNECTION_SLEEP_MS = 20;

export class LeaseWakes {
  private readonly idle: RedisConnection[] = [];
  private readonly inUse = new Set<RedisConnection>();
  private closed = false;

  constructor(
    private readonly base: RedisConnection,
    private readonly max = MAX_BLOCKED_WAITERS,
  ) {}

  /**
   * Waits up to `ms` for a wake-up on `key`: true when woken (a lease was handed
   * over), false when the time ran out, no connection was free or the
   * connection failed (the caller then simply looks at the lease again).
   */
  async wait(key: string, ms: number): Promise<boolean> {
    const conn = this.borrow();
    if (!conn) {
      await sleep(Math.min(ms, NO_CONNECTION_SLEEP_MS));
      // a wake-up pushed meanwhile is taken without blocking, so a lease handed over is not left to expire
      return (await this.base.lpop(key).catch(() => null)) !== null;
    }
    let healthy = true;
    try {
      // BLPOP's time-out is in seconds, 0 meaning for ever: never below 10 ms
      return (await conn.blpop(key, Math.max(ms, 10) / 1000)) !== null;
    } catch {
      healthy = false;
      return false;
    } finally {
      this.giveBack(conn, healthy);
    }
  }

  private borrow(): RedisConnection | undefined {
    if (this.closed) return undefined;
    let conn = this.idle.pop();
    if (!conn) {
      if (this.inUse.size >= this.max) return undefined;
      conn = duplicate(this.base, {
        ...blockingConnectionOverrides(this.base, WAKE_BLOCK_MS),
        enableAutoPipelining: false,
        lazyConnect: false,
      });
    }
    this.inUse.add(conn);
    return conn;
  }

  private giveBack(conn: RedisConnection, healthy: boolean): void {
    this.inUse.delete(conn);
    if (healthy && !this.closed && this.idle.length < IDLE_KEPT) this.idle.push(conn);
    else conn.disconnect();
  }

  /** Closes every connection: a wait under way ends at once (as not woken). */
  close(): void {
    this.closed = true;
    for (const conn of this.idle.splice(0)) conn.disconnect();
    for (const conn of this.inUse) conn.disconnect();
  }
}
