/**
 * The runtime's Redis connections when Redis stops answering.
 *
 * Every command a call waits on has a time-out (REDIS_COMMAND_TIMEOUT_MS,
 * ioredis `commandTimeout`), also while it waits in the offline queue for a
 * reconnection, so a frozen Redis (SIGSTOP, a stalled host) or an unreachable
 * one fails a call with 503 REDIS_UNAVAILABLE instead of holding it forever.
 * The clock of a command starts when it is written: with auto-pipelining a
 * command can first wait for the pipeline ahead of it (one at a time), so a
 * call fails after at most about twice the time-out.
 *
 * A command that timed out may still run when a frozen Redis resumes (it was
 * sent): callers must not resend it, and ioredis does not either
 * (`autoResendUnfulfilledCommands: false`). A lease request that timed out is
 * therefore released behind it (dispatcher); a commit carries a deadline
 * (now + the time-out) that commitInstance.lua checks against Redis's clock,
 * so a commit that waited in a frozen Redis past it is refused on resume and
 * its caller's 503 stays true (this assumes the service's and Redis's clocks
 * agree to within a few ms). Reconnection never gives up and waits at most about a second
 * between attempts, so the service recovers on its own when Redis returns.
 *
 * BullMQ's worker connections keep `maxRetriesPerRequest: null` and no
 * command time-out (BullMQ requires it for its blocking commands); the queue
 * connection that calls enqueue through has the time-out.
 *
 * RedisHealth logs one warning when Redis stops answering and one line when it
 * answers again, however many calls and reconnection attempts fail meanwhile,
 * and answers `/ready` with its own short PING time-out.
 */
import type { RedisOptions } from 'ioredis';
import { commandTimeoutOf, type RedisConnection } from './connection';
import type { Logger } from 'pino';
import { ActorError, RuntimeCodes } from '../errors';

/** How long `/ready` waits for PING before answering 503. */
export const READY_PING_TIMEOUT_MS = 500;

/** Between two probes of an unavailable Redis (each with READY_PING_TIMEOUT_MS). */
const PROBE_INTERVAL_MS = 500;

/** Reconnect soon: 50 ms doubling up to 1 s, with jitter; never gives up. */
export function reconnectDelay(times: number): number {
  return Math.min(50 * 2 ** Math.min(Math.max(times - 1, 0), 5), 1000) + Math.floor(Math.random() * 100);
}

/** Options of a connection whose commands calls wait on (state, leases, lookups, outbox, the BullMQ queue). */
export function callConnectionOptions(commandTimeoutMs: number): RedisOptions {
  return {
    commandTimeout: commandTimeoutMs,
    // a (re)connection attempt to a host that does not answer: given up after this long, then retried
    connectTimeout: Math.max(commandTimeoutMs, 1000),
    // a command queued while reconnecting fails after one failed attempt (and at the latest on its time-out)
    maxRetriesPerRequest: 1,
    // a command sent on a connection that dropped has failed for its caller already: never sent twice
    autoResendUnfulfilledCommands: false,
    retryStrategy: reconnectDelay,
  };
}

/** Overrides for a BullMQ worker connection duplicated from a call connection: BullMQ's own settings. */
export function workerConnectionOverrides(): RedisOptions {
  return { commandTimeout: undefined, maxRetriesPerRequest: null, autoResendUnfulfilledCommands: true };
}

/** Overrides for a connection that blocks up to `blockMs` per command (XREAD BLOCK): its time-out covers the block. */
export function blockingConnectionOverrides(client: RedisConnection, blockMs: number): RedisOptions {
  const t = commandTimeoutOf(client);
  return t > 0 ? { commandTimeout: t + blockMs } : {};
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * Redis refusing for a while rather than for good: loading its data set after
 * a restart, busy in a long script, a replica without its master, out of
 * memory, or unable to persist (writes refused).
 */
const UNAVAILABLE_REPLY = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|MISCONF|OOM)\b/;

/**
 * Does `err` say that Redis did not answer (time-out, connection lost or
 * refused, Redis loading or busy), rather than refuse a command? The runtime's
 * own REDIS_UNAVAILABLE answer counts too.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (err instanceof ActorError) return err.code === RuntimeCodes.REDIS_UNAVAILABLE.code;
  // not `instanceof Error`: socket errors come from Node's own realm (different under jest's vm)
  if (typeof err !== 'object' || err === null || typeof (err as Error).message !== 'string') return false;
  const msg = (err as Error).message;
  if (msg === 'Command timed out' || msg === 'Connection is closed.') return true;
  if (
    (err as Error).name === 'MaxRetriesPerRequestError' ||
    msg.startsWith('Reached the max retries per request limit')
  )
    return true;
  if (msg.startsWith("Stream isn't writeable")) return true;
  const code = (err as NodeJS.ErrnoException).code;
  if (code && NETWORK_CODES.has(code)) return true;
  if (UNAVAILABLE_REPLY.test(msg)) return true;
  return false;
}

/** The 503 for a Redis that did not answer, or undefined when `err` is something else. */
export function asRedisUnavailable(err: unknown): ActorError | undefined {
  if (err instanceof ActorError) return undefined;
  if (!isRedisUnavailable(err)) return undefined;
  const { code, status } = RuntimeCodes.REDIS_UNAVAILABLE;
  return new ActorError(status, code, `Redis did not answer in time (${describe(err)}); try again later`, {
    retryable: true,
  });
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException | null;
  if (typeof e?.message !== 'string') return String(err);
  return e.code && !e.message.includes(e.code) ? `${e.code}: ${e.message}` : e.message;
}

/**
 * Redis availability as this process sees it. `failed(err)` is told of every
 * failure (a call's, a connection's); the first of an incident is logged and
 * starts a probe that PINGs until Redis answers, which ends the incident
 * (logged once more). Errors that are not about availability are left to the
 * caller.
 */
export class RedisHealth {
  private downSince?: number;
  private probe?: NodeJS.Timeout;
  private probing = false;
  private stopped = false;

  constructor(
    private readonly client: RedisConnection,
    private readonly logger: Logger,
  ) {}

  /** false from the first failure of an incident until a PING answers again */
  get available(): boolean {
    return this.downSince === undefined;
  }

  /** Record `err` when it is about availability (true), logging the first of an incident. */
  failed(err: unknown): boolean {
    if (!isRedisUnavailable(err)) return false;
    if (this.downSince !== undefined || this.stopped) return true;
    this.downSince = Date.now();
    this.logger.warn(
      { reason: describe(err) },
      'Redis is not answering: calls answer 503 (REDIS_UNAVAILABLE) until it does; retrying',
    );
    this.probe = setInterval(() => void this.tryProbe(), PROBE_INTERVAL_MS);
    this.probe.unref();
    return true;
  }

  /** Redis answered: ends an incident. */
  recovered(): void {
    if (this.downSince === undefined) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
    if (!this.stopped) this.logger.info({ downMs }, 'Redis answers again');
  }

  /** PING within `timeoutMs` (for /ready), whatever the connection's own time-outs; rejects otherwise. */
  async ping(timeoutMs = READY_PING_TIMEOUT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('Command timed out')), timeoutMs);
    });
    const ping = this.client.ping();
    ping.catch(() => undefined); // settles after the race is lost: not an unhandled rejection
    try {
      await Promise.race([ping, timeout]);
    } catch (err) {
      this.failed(err);
      throw new Error(`Redis did not answer PING within ${timeoutMs} ms (${describe(err)})`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
    this.recovered();
  }

  private async tryProbe(): Promise<void> {
    if (this.probing) return; // one probe at a time: a frozen Redis does not collect PINGs
    this.probing = true;
    try {
      await this.ping();
    } catch {
      /* still down: the next probe tries again */
    } finally {
      this.probing = false;
    }
  }

  /**
   * Route a connection's 'error' events here: availability errors (each
   * failed reconnection attempt emits one) are folded into the incident,
   * others logged. Without a listener ioredis prints each to the console.
   */
  watch(connection: { on(event: 'error', listener: (err: Error) => void): unknown }, name: string): void {
    connection.on('error', (err: Error) => {
      if (!this.failed(err)) this.logger.warn({ err, connection: name }, 'Redis connection error');
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.probe) clearInterval(this.probe);
    this.probe = undefined;
  }
}

/** How long a start waits for a Redis that is reachable but does not answer yet (slow, loading, failing over). */
export const STARTUP_WAIT_MS = 30_000;

/**
 * Runs one start-up step, again while Redis is reachable but not answering:
 * a command time-out, or a reply saying it is loading, busy or failing over.
 * A start on a loaded machine or during a failover then waits for Redis (at
 * most STARTUP_WAIT_MS) instead of leaving a process that exits or a
 * half-started one. Refused connections and every other error end the step at
 * once (an unreachable Redis is told to the operator without waiting). The
 * step must be safe to run again: start-up steps only read, or write
 * idempotently.
 */
export async function untilRedisAnswers<T>(
  step: string,
  fn: () => Promise<T>,
  opts: { waitMs?: number; onRetry?: (step: string, err: Error, attempt: number) => void } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.waitMs ?? STARTUP_WAIT_MS);
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      const msg = (err as Error | null)?.message;
      const waiting = msg === 'Command timed out' || (typeof msg === 'string' && UNAVAILABLE_REPLY.test(msg));
      if (!waiting) throw err;
      if (Date.now() >= deadline) {
        (err as Error).message = `${step}: ${msg} (waited ${opts.waitMs ?? STARTUP_WAIT_MS} ms for Redis)`;
        throw err;
      }
      opts.onRetry?.(step, err as Error, attempt);
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** Math.min(attempt - 1, 4), 1000)));
    }
  }
}

/** untilRedisAnswers's onRetry that logs the first wait of a step, and every tenth after it. */
export function startupRetryLogger(logger: Logger): (step: string, err: Error, attempt: number) => void {
  return (step, err, attempt) => {
    if (attempt === 1 || attempt % 10 === 0)
      logger.warn({ step, attempt, err: err.message }, 'Redis does not answer yet at start; waiting for it');
  };
}
