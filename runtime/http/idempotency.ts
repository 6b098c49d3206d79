/**
 * Idempotency keys (beyond the spec): a request with an `Idempotency-Key`
 * header has its answer kept for 24 h, so that a client retrying after a lost
 * answer gets the first answer again instead of running the call twice.
 *
 * - Keys are scoped per caller (`<identity type>:<user id>`: the API key id or
 *   the token's subject) and project: `rt:<project>:idem:<sha256(caller + key)>`,
 *   so what a caller typed never appears in a Redis key name and two callers'
 *   keys never meet. Every command and script touches that one key, so on a
 *   Redis Cluster it needs no hash tag. Anonymous callers have no scope of
 *   their own: the header is ignored for them (their answers, sign-in tokens
 *   among them, are not kept).
 * - The first request claims the key with SET NX (state `running`), with a
 *   time-to-live of the method's budget plus a margin: a process that dies
 *   mid-call frees the key on its own.
 * - Its answer then replaces the claim for 24 h, when it is a 2xx-4xx; a 5xx
 *   (503 busy, Redis unavailable, time-out, internal error) releases the claim
 *   so that a retry runs the call.
 * - A repeat with the same key and the same request (method, path and body,
 *   keys sorted) is answered with the stored status, headers and body, plus
 *   `Idempotent-Replayed: true`; with another request 422; while the first
 *   still runs 409.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RedisConnection } from '../redis/connection';
import { canonicalJson } from '../canonical-json';
import { ActorError, RuntimeCodes } from '../errors';
import { luaSource } from '../actor/lua-source';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';
/** how long an answer is kept */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;
/** added to the method's budget for the claim's time-to-live (waiting for the caller's identity, writing the answer) */
export const CLAIM_MARGIN_MS = 10_000;

/** how often a repeat of a running request looks for its answer */
const REPEAT_POLL_MS = 50;

/** 409: the first request with this key is still running */
export const IDEMPOTENCY_IN_PROGRESS = 'IDEMPOTENCY_KEY_IN_PROGRESS';
/** 422: the key was used with another request */
export const IDEMPOTENCY_MISMATCH = 'IDEMPOTENCY_KEY_REUSED';

/** An answer as it is stored and replayed. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

interface Running {
  state: 'running';
  /** the claim's owner: only it may replace or release the claim */
  token: string;
  hash: string;
}

interface Done {
  state: 'done';
  hash: string;
  status: number;
  headers: Record<string, string>;
  /** json: the body itself; text: a string; bytes: base64; empty: none */
  kind: 'json' | 'text' | 'bytes' | 'empty';
  body?: unknown;
}

function invalidKey(reason: string): ActorError {
  return new ActorError(400, RuntimeCodes.VALIDATION.code, `Invalid header: Idempotency-Key ${reason}`, {
    details: { errors: [{ field: 'Idempotency-Key', reason }] },
  });
}

/** The header's value, checked: 1-255 printable ASCII characters; undefined when absent. */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  if (value.length === 0 || value.length > 255) throw invalidKey('must be 1-255 characters');
  if (!/^[\x20-\x7e]+$/.test(value)) throw invalidKey('must be printable ASCII characters');
  return value;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Headers of an answer that describe the exchange, not the answer: never stored. */
const NOT_STORED = new Set([
  'x-request-id',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  REPLAYED_HEADER,
]);

/** A claimed key: settle it with the answer (or release it) once the call is done. */
export class IdempotencyClaim {
  constructor(
    private readonly redis: RedisConnection,
    private readonly name: string,
    private readonly token: string,
    private readonly hash: string,
    /** how long the answer is kept */
    private readonly ttlSeconds: number = IDEMPOTENCY_TTL_SECONDS,
  ) {}

  /**
   * Stores a 2xx-4xx answer for 24 h; anything else releases the key so that
   * a retry runs the call. Never throws: the answer is sent either way (a key
   * that could not be written is freed by its time-to-live).
   */
  async settle(answer: StoredAnswer): Promise<void> {
    try {
      if (answer.status < 200 || answer.status >= 500) {
        await this.redis.eval(luaSource('settleIdempotency'), 1, this.name, this.token);
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (!NOT_STORED.has(k.toLowerCase())) headers[k] = v;
      const done: Done = { state: 'done', hash: this.hash, status: answer.status, headers, kind: 'empty' };
      const body = answer.body;
      if (answer.status === 204 || body === undefined) done.kind = 'empty';
      else if (Buffer.isBuffer(body)) Object.assign(done, { kind: 'bytes', body: body.toString('base64') });
      else if (typeof body === 'string' && Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
        Object.assign(done, { kind: 'text', body });
      else Object.assign(done, { kind: 'json', body });
      await this.redis.eval(
        luaSource('settleIdempotency'),
        1,
        this.name,
        this.token,
        JSON.stringify(done),
        String(this.ttlSeconds),
      );
    } catch {
      // the claim runs out with its time-to-live
    }
  }
}

export type IdempotencyOutcome =
  { claim: IdempotencyClaim; replay?: undefined } | { replay: StoredAnswer; claim?: undefined };

export class IdempotencyStore {
  /** `base`: the project's key prefix (`rt:<project>`) */
  constructor(
    private readonly redis: RedisConnection,
    private readonly base: string,
  ) {}

  /**
   * Without the header: undefined. Otherwise claims its key for `caller`'s request, or answers the stored answer to
   * replay. Throws 409 while the first request runs, 422 when the key was
   * used with another request.
   */
  async begin(
    headers: Record<string, string | string[] | undefined>,
    caller: string,
    request: { method: string; path: string; body: unknown },
    budgetMs: number,
    /** MethodOptions.replayWindowSeconds: without the header, the request itself is the key for this long */
    replayWindowSeconds?: number,
  ): Promise<IdempotencyOutcome | undefined> {
    const key = idempotencyKeyOf(headers);
    // neither a key nor a replay window: nothing to hash or claim
    if (key === undefined && !replayWindowSeconds) return undefined;
    const hash = sha256(`${request.method} ${request.path}\n${canonicalJson(request.body)}`);
    if (key !== undefined)
      return this.claim(
        `${this.base}:idem:${sha256(`${caller}\n${key}`)}`,
        hash,
        budgetMs,
        IDEMPOTENCY_TTL_SECONDS,
        false,
      );
    if (!replayWindowSeconds) return undefined;
    return this.claim(
      `${this.base}:idem:${sha256(`${caller}\nrequest:${hash}`)}`,
      hash,
      budgetMs,
      replayWindowSeconds,
      true,
    );
  }

  /**
   * Claims `name`, or answers what it holds. `wait`: a request that is its own key (a repeat of the same
   * request, which the caller may not know it sent twice) waits for the first one's answer instead of a 409.
   */
  private async claim(
    name: string,
    hash: string,
    budgetMs: number,
    ttlSeconds: number,
    wait: boolean,
  ): Promise<IdempotencyOutcome> {
    const token = randomUUID();
    const running: Running = { state: 'running', token, hash };
    const until = Date.now() + budgetMs + CLAIM_MARGIN_MS;
    // a claim that ran out or was released between SET and GET: try again
    for (let attempt = 0; wait ? Date.now() < until : attempt < 3; attempt++) {
      const set = await this.redis.set(name, JSON.stringify(running), 'PX', budgetMs + CLAIM_MARGIN_MS, 'NX');
      if (set === 'OK') return { claim: new IdempotencyClaim(this.redis, name, token, hash, ttlSeconds) };
      const raw = await this.redis.get(name);
      if (raw === null) continue;
      const held = JSON.parse(raw) as Running | Done;
      if (held.hash !== hash) {
        throw new ActorError(
          422,
          IDEMPOTENCY_MISMATCH,
          'This Idempotency-Key was used with another request (method, path or body)',
        );
      }
      if (held.state === 'running') {
        if (!wait)
          throw new ActorError(
            409,
            IDEMPOTENCY_IN_PROGRESS,
            'A request with this Idempotency-Key is still running; retry later',
          );
        await new Promise((resolve) => setTimeout(resolve, REPEAT_POLL_MS));
        continue;
      }
      const body =
        held.kind === 'bytes'
          ? Buffer.from(held.body as string, 'base64')
          : held.kind === 'empty'
            ? undefined
            : held.body;
      return { replay: { status: held.status, headers: { ...held.headers, [REPLAYED_HEADER]: 'true' }, body } };
    }
    throw new ActorError(
      409,
      IDEMPOTENCY_IN_PROGRESS,
      'A request with this Idempotency-Key is still running; retry later',
    );
  }
}
