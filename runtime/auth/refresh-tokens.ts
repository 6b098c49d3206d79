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
 * A token is `rt_` + base64url(family id (16 bytes) + secret (32 bytes)): the
 * family it belongs to is read from the token itself, so every key of a family
 * (its tokens, its consumed tokens, its set of live tokens) carries the
 * family's hash tag and shares one slot of a Redis Cluster. A rotation and a
 * family's revocation are then each one Lua step in that slot, with every key
 * it touches declared. Only the secret makes a token: the family id is a
 * random UUID that names nothing else.
 *
 * Keys (`<family tag>` = `rt:{<project>:rf:<family>}`):
 *   <family tag>:rft:<hash>   the token's record (JSON), expiring with it
 *   <family tag>:rfx:<hash>   a consumed token: its family, kept as long as the token could have lived
 *   <family tag>:rff          the hashes of the family's live tokens
 *   <family tag>:rfr          the family was revoked: it gets no token any more (as long as one could live)
 *   rt:<project>:rfs:<sha256(type, sub)>  the families of a subject (revokeAll); its own slot
 *   rt:<project>:rfl:<hash>   the family of a token issued before families were part of tokens
 *                             (`rt_` + 43 characters), written by migrateRefreshTokenKeys
 *
 * A subject's families are in another slot than the families themselves: the
 * subject's set is extended before a family gets a token (sign-in, rotation),
 * so a family with a live token is always in its subject's set; revokeAll
 * revokes each family in its own step (atomic per family, as a rotation is),
 * then takes it out of the set. A revoked family is marked so, and a sign-in
 * does not give its first token to a family marked revoked (a revokeAll that
 * read the subject's set just after the sign-in named the family): it starts
 * another, as a sign-in after the revokeAll would.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { defineVariadicScript, scanTargets, type RedisConnection } from '../redis/connection';
import type { IdentityType } from '../types/identity';
import { luaSource } from '../actor/lua-source';

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

/** A session as an operator sees it (RefreshTokenStore.list): no token, only its family and times. */
export interface SessionInfo {
  family: string;
  /** when its current refresh token was issued (its sign-in, or its last refresh) */
  issuedAt: string;
  /** when that token lapses unless it is used */
  expiresAt: string;
  tenant?: string;
  methods?: string[];
}

export type RefreshLookup =
  | { kind: 'live'; raw: string; record: RefreshRecord; hash: string }
  /** consumed before: its family, to revoke */
  | { kind: 'reused'; family: string }
  | { kind: 'unknown' };

/** a token: `rt_` + base64url of the family id (16 bytes) and the secret (32 bytes) */
const TOKEN = /^rt_([A-Za-z0-9_-]{64})$/;
/** a token issued before the family was part of it: 32 random bytes */
const LEGACY_TOKEN = /^rt_[A-Za-z0-9_-]{43}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type RefreshRedis = RedisConnection & {
  refreshCreate(
    token: string,
    family: string,
    revoked: string,
    record: string,
    hash: string,
    ttlMs: number,
  ): Promise<number>;
  refreshRotate(...args: (string | number)[]): Promise<number>;
  refreshRevokeFamily(numKeys: number, ...args: string[]): Promise<number>;
};

/** revokeFamily reads the family again at most this often when tokens keep joining it meanwhile */
const REVOKE_ATTEMPTS = 10;
/** a sign-in starts another family at most this often when the one it started was revoked at once */
const CREATE_ATTEMPTS = 3;
/** families revoked at once by revokeAll */
const REVOKE_ALL_CONCURRENCY = 32;

function digest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

function familyBytes(family: string): Buffer {
  return Buffer.from(family.replace(/-/g, ''), 'hex');
}

function familyOfBytes(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The family a token names (undefined: not a token of this format). */
export function familyOfToken(token: string): string | undefined {
  const m = TOKEN.exec(token);
  if (!m) return undefined;
  return familyOfBytes(Buffer.from(m[1], 'base64url').subarray(0, 16));
}

/** A new token of `family`: the family id and 32 random bytes. */
function newToken(family: string): string {
  return `rt_${Buffer.concat([familyBytes(family), randomBytes(32)]).toString('base64url')}`;
}

/**
 * The Redis key names of one project's refresh tokens. `base` is the
 * project's key prefix, `rt:<project>`; a family's keys carry its hash tag
 * `rt:{<project>:rf:<family>}`.
 */
export class RefreshKeys {
  private readonly head: string;
  private readonly rest: string;

  constructor(readonly base: string) {
    if (/[{}]/.test(base)) throw new Error(`refresh tokens: the key prefix '${base}' may not hold '{' or '}'`);
    const colon = base.indexOf(':');
    this.head = colon < 0 ? '' : base.slice(0, colon + 1);
    this.rest = colon < 0 ? base : base.slice(colon + 1);
  }

  /** the hash tag of a family's keys */
  familyTag(family: string): string {
    return `${this.head}{${this.rest}:rf:${family}}`;
  }

  token(family: string, hash: string): string {
    return `${this.familyTag(family)}:rft:${hash}`;
  }

  consumed(family: string, hash: string): string {
    return `${this.familyTag(family)}:rfx:${hash}`;
  }

  family(family: string): string {
    return `${this.familyTag(family)}:rff`;
  }

  revoked(family: string): string {
    return `${this.familyTag(family)}:rfr`;
  }

  subject(type: string, sub: string): string {
    return `${this.base}:rfs:${digest(`${type}\u0000${sub}`)}`;
  }

  /** the family of a token issued before families were part of tokens (written by the migration) */
  legacyFamily(hash: string): string {
    return `${this.base}:rfl:${hash}`;
  }

  /** where the record of `token` is (undefined: a token that names no family) */
  tokenKeyOf(token: string): string | undefined {
    const family = familyOfToken(token);
    return family === undefined ? undefined : this.token(family, digest(token));
  }
}

export class RefreshTokenStore {
  private readonly redis: RefreshRedis;
  private readonly ttlMs: number;
  readonly keys: RefreshKeys;

  /** `base`: the project's key prefix (`rt:<project>`) */
  constructor(redis: RedisConnection, base: string, ttlSeconds: number) {
    this.redis = redis as RefreshRedis;
    this.keys = new RefreshKeys(base);
    this.ttlMs = ttlSeconds * 1000;
    const r = redis as unknown as Record<string, unknown>;
    if (typeof r.refreshCreate !== 'function')
      redis.defineCommand('refreshCreate', { lua: luaSource('refreshCreate'), numberOfKeys: 3 });
    if (typeof r.refreshRotate !== 'function')
      redis.defineCommand('refreshRotate', { lua: luaSource('refreshRotate'), numberOfKeys: 4 });
    if (typeof r.refreshRevokeFamily !== 'function')
      defineVariadicScript(redis, 'refreshRevokeFamily', luaSource('refreshRevokeFamily'));
  }

  /** The subject's set names `family`, for as long as a token of it may live (before the family gets that token). */
  private async keepInSubject(record: Pick<RefreshRecord, 'type' | 'sub' | 'family'>): Promise<void> {
    const subjectKey = this.keys.subject(record.type, record.sub);
    await this.redis.multi().sadd(subjectKey, record.family).pexpire(subjectKey, this.ttlMs).exec();
  }

  /** A new token starting a family (a sign-in). Returns the plain token, which is never stored. */
  async create(record: Omit<RefreshRecord, 'family' | 'createdMs'>): Promise<string> {
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      const full: RefreshRecord = { ...record, family: randomUUID(), createdMs: Date.now() };
      const token = newToken(full.family);
      const hash = digest(token);
      const { family } = full;
      await this.keepInSubject(full);
      const ok = await this.redis.refreshCreate(
        this.keys.token(family, hash),
        this.keys.family(family),
        this.keys.revoked(family),
        JSON.stringify(full),
        hash,
        this.ttlMs,
      );
      if (ok === 1) return token;
    }
    throw new Error('refresh tokens: every family a sign-in started was revoked at once');
  }

  /** What a presented token is: live (with its record), consumed before, or unknown (never issued, expired, revoked). */
  async lookup(token: string): Promise<RefreshLookup> {
    const hash = digest(token);
    let family = familyOfToken(token);
    if (family === undefined && LEGACY_TOKEN.test(token))
      family = (await this.redis.get(this.keys.legacyFamily(hash))) ?? undefined;
    if (family === undefined || !UUID.test(family)) return { kind: 'unknown' };
    const [[, raw], [, consumed]] = (await this.redis
      .multi()
      .get(this.keys.token(family, hash))
      .get(this.keys.consumed(family, hash))
      .exec()) as [[Error | null, string | null], [Error | null, string | null]];
    if (raw) {
      const record = JSON.parse(raw) as RefreshRecord;
      // a record is found under its own family's tag only: anything else is not this store's
      if (record.family !== family) return { kind: 'unknown' };
      return { kind: 'live', raw, record, hash };
    }
    if (consumed) return { kind: 'reused', family };
    return { kind: 'unknown' };
  }

  /**
   * Consumes a live token and issues its successor in the same family, in one
   * step. Returns the new token, or null when the token was consumed or revoked
   * meanwhile (a concurrent exchange: the caller treats it as reuse).
   */
  async rotate(live: Extract<RefreshLookup, { kind: 'live' }>): Promise<string | null> {
    const { family } = live.record;
    const token = newToken(family);
    const hash = digest(token);
    const next: RefreshRecord = { ...live.record, createdMs: Date.now() };
    await this.keepInSubject(next);
    const ok = await this.redis.refreshRotate(
      this.keys.token(family, live.hash),
      this.keys.consumed(family, live.hash),
      this.keys.token(family, hash),
      this.keys.family(family),
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
    if (!UUID.test(family)) return;
    const familyKey = this.keys.family(family);
    for (let attempt = 0; attempt < REVOKE_ATTEMPTS; attempt++) {
      const hashes = await this.redis.smembers(familyKey);
      const tokenKeys = hashes.map((h) => this.keys.token(family, h));
      const complete = await this.redis.refreshRevokeFamily(
        2 + tokenKeys.length,
        familyKey,
        this.keys.revoked(family),
        ...tokenKeys,
        String(this.ttlMs),
        ...hashes,
      );
      if (complete === 1) return;
    }
    throw new Error(`refresh tokens: family ${family} kept gaining tokens while it was revoked`);
  }

  /**
   * The subject's sessions: one per family with a live token, newest first,
   * with when its current token was issued and when it lapses unless used.
   */
  async list(sub: string, type: IdentityType): Promise<SessionInfo[]> {
    const sessions: SessionInfo[] = [];
    for (const family of await this.redis.smembers(this.keys.subject(type, sub))) {
      if (!UUID.test(family)) continue;
      for (const hash of await this.redis.smembers(this.keys.family(family))) {
        const key = this.keys.token(family, hash);
        const [[, raw], [, pttl]] = (await this.redis.multi().get(key).pttl(key).exec()) as [
          [Error | null, string | null],
          [Error | null, number],
        ];
        if (!raw || pttl < 0) continue;
        const record = JSON.parse(raw) as RefreshRecord;
        if (record.family !== family || record.sub !== sub || record.type !== type) continue;
        sessions.push({
          family,
          issuedAt: new Date(record.createdMs).toISOString(),
          expiresAt: new Date(Date.now() + pttl).toISOString(),
          ...(record.tenant !== undefined ? { tenant: record.tenant } : {}),
          ...(record.methods ? { methods: record.methods } : {}),
        });
      }
    }
    return sessions.sort((a, b) => b.issuedAt.localeCompare(a.issuedAt));
  }

  /** Revokes one of the subject's sessions; false when the subject holds no such family. */
  async revokeSession(sub: string, type: IdentityType, family: string): Promise<boolean> {
    const subjectKey = this.keys.subject(type, sub);
    if (!UUID.test(family) || !(await this.redis.sismember(subjectKey, family))) return false;
    await this.revokeFamily(family);
    await this.redis.srem(subjectKey, family);
    return true;
  }

  /** Revokes every live token of a subject. */
  async revokeAll(sub: string, type: IdentityType): Promise<void> {
    const subjectKey = this.keys.subject(type, sub);
    const families = await this.redis.smembers(subjectKey);
    for (let i = 0; i < families.length; i += REVOKE_ALL_CONCURRENCY) {
      const chunk = families.slice(i, i + REVOKE_ALL_CONCURRENCY);
      await Promise.all(chunk.map((f) => this.revokeFamily(f)));
      // only the families revoked (each gets no token any more): one a sign-in added meanwhile stays named
      await this.redis.srem(subjectKey, ...chunk);
    }
  }
}

/**
 * Moves refresh tokens stored under the layout before families had a hash tag
 * (`rt:<project>:rft:<hash>`, `:rfx:<hash>`, `:rff:<family>`) to the current
 * one, keeping each key's time-to-live, and writes `rt:<project>:rfl:<hash>`
 * (the token's family) for every token moved, so a token issued before (which
 * does not name its family) is still found, rotated, and recognised when
 * reused. The new name depends on the value (a record's family), so this is
 * not a plain rename. Safe to run at every start: it finds nothing once done.
 * Returns how many keys it moved.
 */
export async function migrateRefreshTokenKeys(conn: RedisConnection, base: string): Promise<number> {
  const keys = new RefreshKeys(base);
  let moved = 0;
  for (const node of scanTargets(conn)) {
    for (const kind of ['rft', 'rfx', 'rff'] as const) {
      const prefix = `${base}:${kind}:`;
      let cursor = '0';
      do {
        const [next, found] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        for (const old of found) {
          const id = old.slice(prefix.length);
          if (!/^[0-9a-f-]+$/.test(id)) continue;
          if (await moveKey(conn, keys, kind, old, id)) moved++;
        }
      } while (cursor !== '0');
    }
  }
  return moved;
}

async function moveKey(
  conn: RedisConnection,
  keys: RefreshKeys,
  kind: 'rft' | 'rfx' | 'rff',
  old: string,
  id: string,
): Promise<boolean> {
  const ttl = await conn.pttl(old);
  if (ttl === -2) return false;
  let family: string;
  if (kind === 'rff') family = id;
  else {
    const value = await conn.get(old);
    if (value === null) return false;
    try {
      family = kind === 'rfx' ? value : String((JSON.parse(value) as RefreshRecord).family ?? '');
    } catch {
      return false;
    }
  }
  if (!UUID.test(family)) return false;
  const target =
    kind === 'rft' ? keys.token(family, id) : kind === 'rfx' ? keys.consumed(family, id) : keys.family(family);
  const keep = ttl > 0 ? ttl : 0;
  // DUMP and RESTORE rather than RENAME: the new name may be in another slot of a cluster
  const dumped = await conn.dumpBuffer(old);
  if (dumped === null) return false;
  await conn.restore(target, keep, dumped).catch((err: Error) => {
    // moved before (a start that stopped half-way): the copy there stands
    if (!/BUSYKEY/.test(err.message)) throw err;
  });
  if (kind !== 'rff') {
    const index = keys.legacyFamily(id);
    await (keep ? conn.set(index, family, 'PX', keep) : conn.set(index, family));
  }
  await conn.del(old);
  return true;
}
