/**
 * Refresh tokens: opaque random strings, kept in Redis only as their SHA-256
 * with what they refresh (subject, type, tenant, methods), for
 * REFRESH_TOKEN_TTL_SECONDS after they were issued. Single use: an exchange
 * consumes the token and issues its successor in the same family (the chain of
 * tokens one sign-in started) in one Lua step, and remembers the consumed one
 * as revoked. A revoked token presented again means two parties hold the
 * session (a stolen token, or a client that replays): the whole family is
 * revoked, so the thief and the user both sign in again.
 *
 * Keys (`rt:<project>` prefix):
 *   rft:<hash>          the token's record (JSON), expiring with it
 *   rfx:<hash>          a consumed token: its family, kept as long as the token could have lived
 *   rff:<family>        the hashes of the family's live tokens
 *   rfs:<sha256(type, sub)>  the families of a subject (revokeAll)
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { IdentityType } from '../actor/types';

export interface RefreshRecord {
  sub: string;
  type: IdentityType;
  tenant?: string;
  methods?: string[];
  /** the access tokens' lifetime the issuing class asked for (absent: the default) */
  ttlSeconds?: number;
  family: string;
  /** when this token was issued (ms), compared with an identity source's validAfter */
  createdMs: number;
}

export type RefreshLookup =
  | { kind: 'live'; raw: string; record: RefreshRecord; hash: string }
  /** consumed before: its family, to revoke */
  | { kind: 'reused'; family: string }
  | { kind: 'unknown' };

const ROTATE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[5])
redis.call('SREM', KEYS[4], ARGV[6])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[5])
redis.call('SADD', KEYS[4], ARGV[4])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
redis.call('SADD', KEYS[5], ARGV[2])
redis.call('PEXPIRE', KEYS[5], ARGV[5])
return 1
`;

const REVOKE_FAMILY = `
local fam = ARGV[1] .. ':rff:' .. ARGV[2]
for _, h in ipairs(redis.call('SMEMBERS', fam)) do redis.call('DEL', ARGV[1] .. ':rft:' .. h) end
redis.call('DEL', fam)
return 1
`;

const REVOKE_SUBJECT = `
for _, f in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local fam = ARGV[1] .. ':rff:' .. f
  for _, h in ipairs(redis.call('SMEMBERS', fam)) do redis.call('DEL', ARGV[1] .. ':rft:' .. h) end
  redis.call('DEL', fam)
end
redis.call('DEL', KEYS[1])
return 1
`;

type RefreshRedis = Redis & {
  refreshRotate(...args: (string | number)[]): Promise<number>;
  refreshRevokeFamily(base: string, family: string): Promise<number>;
  refreshRevokeSubject(subjectKey: string, base: string): Promise<number>;
};

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

export class RefreshTokenStore {
  private readonly redis: RefreshRedis;
  private readonly ttlMs: number;

  /** `base`: the project's key prefix (`rt:<project>`) */
  constructor(
    redis: Redis,
    private readonly base: string,
    ttlSeconds: number,
  ) {
    this.redis = redis as RefreshRedis;
    this.ttlMs = ttlSeconds * 1000;
    const r = redis as unknown as Record<string, unknown>;
    if (typeof r.refreshRotate !== 'function') redis.defineCommand('refreshRotate', { lua: ROTATE, numberOfKeys: 5 });
    if (typeof r.refreshRevokeFamily !== 'function') redis.defineCommand('refreshRevokeFamily', { lua: REVOKE_FAMILY, numberOfKeys: 0 });
    if (typeof r.refreshRevokeSubject !== 'function') redis.defineCommand('refreshRevokeSubject', { lua: REVOKE_SUBJECT, numberOfKeys: 1 });
  }

  private tokenKey(hash: string): string {
    return `${this.base}:rft:${hash}`;
  }

  private familyKey(family: string): string {
    return `${this.base}:rff:${family}`;
  }

  private subjectKey(type: string, sub: string): string {
    return `${this.base}:rfs:${digest(`${type}\u0000${sub}`)}`;
  }

  /** A new token starting a family (a sign-in). Returns the plain token, which is never stored. */
  async create(record: Omit<RefreshRecord, 'family' | 'createdMs'>): Promise<string> {
    const token = `rt_${randomBytes(32).toString('base64url')}`;
    const hash = digest(token);
    const full: RefreshRecord = { ...record, family: randomUUID(), createdMs: Date.now() };
    const familyKey = this.familyKey(full.family);
    const subjectKey = this.subjectKey(record.type, record.sub);
    await this.redis
      .multi()
      .set(this.tokenKey(hash), JSON.stringify(full), 'PX', this.ttlMs)
      .sadd(familyKey, hash)
      .pexpire(familyKey, this.ttlMs)
      .sadd(subjectKey, full.family)
      .pexpire(subjectKey, this.ttlMs)
      .exec();
    return token;
  }

  /** What a presented token is: live (with its record), consumed before, or unknown (never issued, expired, revoked). */
  async lookup(token: string): Promise<RefreshLookup> {
    const hash = digest(token);
    const [[, raw], [, family]] = (await this.redis.multi().get(this.tokenKey(hash)).get(`${this.base}:rfx:${hash}`).exec()) as [
      [Error | null, string | null],
      [Error | null, string | null],
    ];
    if (raw) return { kind: 'live', raw, record: JSON.parse(raw) as RefreshRecord, hash };
    if (family) return { kind: 'reused', family };
    return { kind: 'unknown' };
  }

  /**
   * Consumes a live token and issues its successor in the same family, in one
   * step. Returns the new token, or null when the token was consumed or revoked
   * meanwhile (a concurrent exchange: the caller treats it as reuse).
   */
  async rotate(live: Extract<RefreshLookup, { kind: 'live' }>): Promise<string | null> {
    const token = `rt_${randomBytes(32).toString('base64url')}`;
    const hash = digest(token);
    const next: RefreshRecord = { ...live.record, createdMs: Date.now() };
    const { family } = live.record;
    const ok = await this.redis.refreshRotate(
      this.tokenKey(live.hash),
      `${this.base}:rfx:${live.hash}`,
      this.tokenKey(hash),
      this.familyKey(family),
      this.subjectKey(next.type, next.sub),
      live.raw,
      family,
      JSON.stringify(next),
      hash,
      this.ttlMs,
      live.hash,
    );
    return ok === 1 ? token : null;
  }

  /** Revokes every live token of a family (reuse detected, identity refused). */
  async revokeFamily(family: string): Promise<void> {
    await this.redis.refreshRevokeFamily(this.base, family);
  }

  /** Revokes every live token of a subject. */
  async revokeAll(sub: string, type: IdentityType): Promise<void> {
    await this.redis.refreshRevokeSubject(this.subjectKey(type, sub), this.base);
  }
}
