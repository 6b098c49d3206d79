import {
  createHash,
  createSecretKey,
  hash,
  randomBytes,
  randomUUID,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { RedisConnection } from '../redis/connection';
import type { Identity, IdentityType } from '../types/identity';
import { runtimeError } from '../errors';

export const JWT_ALGORITHM = 'HS256' as const;
/** shortest JWT_SECRET accepted (HS256 wants a key of at least its hash size: 256 bits) */
export const JWT_SECRET_MIN_LENGTH = 32;
export const TOKEN_IDENTITIES: readonly IdentityType[] = ['program_management_user', 'enduser', 'member_otp'];

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  createdAt: string;
  /** first characters of the key, to recognise it without revealing it */
  prefix: string;
}

/**
 * Integration API keys (`x-api-key` → integration_user). Keys come from the
 * INTEGRATION_API_KEYS environment variable and from keys created by the CLI;
 * only their SHA-256 digests are kept, in memory and in Redis.
 */
export class ApiKeyStore {
  private readonly envDigests: Buffer[];
  /** the records of the INTEGRATION_API_KEYS keys, made once and frozen (every call shares them) */
  private readonly envRecords: readonly ApiKeyRecord[];
  private readonly cache = new Map<string, { record: ApiKeyRecord | null; until: number }>();
  /** CLI keys' records taken from the cache, and those read from Redis (read by the runtime's metrics) */
  hits = 0;
  misses = 0;

  constructor(
    private readonly redis: RedisConnection,
    private readonly hashKey: string,
    envKeys: string[],
    private readonly cacheMs = 5000,
  ) {
    this.envDigests = envKeys.map((k) => Buffer.from(hashApiKey(k), 'hex'));
    this.envRecords = envKeys.map((_, i) =>
      Object.freeze({ id: `env-${i + 1}`, name: 'INTEGRATION_API_KEYS', createdAt: '', prefix: '' }),
    );
  }

  async verify(key: string): Promise<ApiKeyRecord | null> {
    return this.verifyNow(key);
  }

  /**
   * verify, answered without a promise when it needs no Redis read (a key of
   * INTEGRATION_API_KEYS, or a CLI key's record still cached): a call pays no
   * promise and microtask for its credentials then.
   */
  verifyNow(key: string): ApiKeyRecord | null | Promise<ApiKeyRecord | null> {
    if (!key || key.length > 512) return null;
    // the digest as bytes for the comparisons; in hex only for the keys kept in Redis
    // (one-shot crypto.hash: a Hash object per request cost a READ about 2 % of its CPU)
    const digest = Buffer.from(hash('sha256', key, 'hex'), 'hex');
    let envMatch = -1;
    // compare against every configured key in constant time, whatever matches
    for (let i = 0; i < this.envDigests.length; i++) {
      if (timingSafeEqual(this.envDigests[i], digest)) envMatch = i;
    }
    if (envMatch >= 0) return this.envRecords[envMatch];
    return this.stored(digest.toString('hex'));
  }

  /** a key created by the CLI: its record in Redis, remembered for cacheMs */
  private stored(digestHex: string): ApiKeyRecord | null | Promise<ApiKeyRecord | null> {
    const cached = this.cache.get(digestHex);
    if (cached && cached.until > Date.now()) {
      this.hits++;
      return cached.record;
    }
    this.misses++;
    return this.read(digestHex);
  }

  private async read(digestHex: string): Promise<ApiKeyRecord | null> {
    const raw = await this.redis.hget(this.hashKey, digestHex);
    const record = raw ? (JSON.parse(raw) as ApiKeyRecord) : null;
    this.cache.set(digestHex, { record, until: Date.now() + this.cacheMs });
    if (this.cache.size > 10_000) this.cache.clear();
    return record;
  }

  /** Create a key; the plain key is returned once and never stored. */
  async create(name: string): Promise<{ key: string; record: ApiKeyRecord }> {
    const key = `ik_${randomBytes(24).toString('base64url')}`;
    const record: ApiKeyRecord = {
      id: randomUUID(),
      name,
      createdAt: new Date().toISOString(),
      prefix: key.slice(0, 7),
    };
    await this.redis.hset(this.hashKey, hashApiKey(key), JSON.stringify(record));
    return { key, record };
  }

  async list(): Promise<ApiKeyRecord[]> {
    const all = await this.redis.hvals(this.hashKey);
    return all.map((v) => JSON.parse(v) as ApiKeyRecord);
  }

  async revoke(id: string): Promise<boolean> {
    const all = await this.redis.hgetall(this.hashKey);
    for (const [digest, raw] of Object.entries(all)) {
      if ((JSON.parse(raw) as ApiKeyRecord).id === id) {
        await this.redis.hdel(this.hashKey, digest);
        this.cache.delete(digest);
        return true;
      }
    }
    return false;
  }
}

export interface TokenClaims {
  sub: string;
  identity: IdentityType;
  roles?: string[];
  /** the tenant (e.g. company) the user's data access is limited to; absent: not limited */
  tenant?: string;
  [claim: string]: unknown;
}

/** What a session token (TokenService.issue) carries besides its subject and type. */
export interface SessionClaims {
  sub: string;
  identity: IdentityType;
  tenant?: string;
  methods?: readonly string[];
}

/** The claim marking a development token (TokenService.sign: the CLI's `token` command, tests). */
export const DEV_CLAIM = 'dev';
/** The issue time of a session token in milliseconds (iat is whole seconds), compared with an identity source's validAfter. */
export const ISSUED_MS_CLAIM = 'iatMs';

const METHOD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}\.[A-Za-z_$][A-Za-z0-9_$]{0,127}$/;

export interface TokenServiceOptions {
  /** accept development tokens (ALLOW_DEV_TOKENS); default true */
  allowDevTokens?: boolean;
}

/**
 * JWT bearer tokens, HS256 only (the algorithm is pinned on verify). Two
 * kinds, both with iat, exp, jti and iss (when JWT_ISSUER is set):
 *  - session tokens (`issue`), which classes hand out when they sign a caller
 *    in: subject, type, tenant and the methods they are limited to; roles and
 *    the developer flag come from the type's identity source, never the token;
 *  - development tokens (`sign`: the CLI's `token` command, tests), marked
 *    `dev: true`, whose roles, tenant and developer claims are honoured as
 *    they are, and only while development tokens are allowed (ALLOW_DEV_TOKENS).
 */
export class TokenService {
  /**
   * The secret as a key object, made once: given a string, jsonwebtoken first
   * tries (and fails) to read it as a public key on every verify.
   */
  private readonly key: KeyObject;
  readonly allowDevTokens: boolean;

  constructor(
    secret: string,
    private readonly issuer?: string,
    opts: TokenServiceOptions = {},
  ) {
    if (secret.length < JWT_SECRET_MIN_LENGTH)
      throw new Error(`JWT_SECRET must be at least ${JWT_SECRET_MIN_LENGTH} characters`);
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
    this.allowDevTokens = opts.allowDevTokens ?? true;
  }

  /** A development token: its claims (roles, tenant, developer) are honoured while ALLOW_DEV_TOKENS is on. */
  sign(claims: TokenClaims, expiresInSeconds = 3600): string {
    if (!this.allowDevTokens)
      throw new Error('development tokens are off (ALLOW_DEV_TOKENS is false): sign in through the service');
    if (!TOKEN_IDENTITIES.includes(claims.identity))
      throw new Error(`identity must be one of ${TOKEN_IDENTITIES.join(', ')}`);
    return jwt.sign({ ...claims, [DEV_CLAIM]: true }, this.key, {
      algorithm: JWT_ALGORITHM,
      expiresIn: expiresInSeconds,
      jwtid: randomUUID(),
      ...(this.issuer ? { issuer: this.issuer } : {}),
    });
  }

  /** A session token (ctx.tokens.issue): the arguments are the issuing class's, checked by SessionTokens. */
  issue(claims: SessionClaims, ttlSeconds: number): { token: string; expiresAt: string } {
    const now = Date.now();
    const iat = Math.floor(now / 1000);
    const payload: Record<string, unknown> = {
      sub: claims.sub,
      identity: claims.identity,
      iat,
      [ISSUED_MS_CLAIM]: now,
    };
    if (claims.tenant !== undefined) payload.tenant = claims.tenant;
    if (claims.methods !== undefined) payload.methods = [...claims.methods];
    const token = jwt.sign(payload, this.key, {
      algorithm: JWT_ALGORITHM,
      expiresIn: ttlSeconds,
      jwtid: randomUUID(),
      ...(this.issuer ? { issuer: this.issuer } : {}),
    });
    return { token, expiresAt: new Date((iat + ttlSeconds) * 1000).toISOString() };
  }

  /**
   * The identity a token's own claims describe: for a development token its
   * roles, tenant and claims; for a session token its subject, type, tenant
   * and methods, with no roles (an identity source supplies them). A token that
   * is invalid, expired, of another issuer, malformed, or a development token
   * while they are off is a 401.
   */
  verify(token: string): Identity {
    let payload: jwt.JwtPayload;
    try {
      const decoded = jwt.verify(token, this.key, {
        algorithms: [JWT_ALGORITHM],
        ...(this.issuer ? { issuer: this.issuer } : {}),
      });
      if (typeof decoded === 'string') throw new Error('unexpected payload');
      payload = decoded;
    } catch (err) {
      throw runtimeError('UNAUTHENTICATED', `Invalid bearer token: ${(err as Error).message}`);
    }
    const type = payload.identity as IdentityType;
    if (!TOKEN_IDENTITIES.includes(type) || typeof payload.sub !== 'string' || payload.sub.length === 0) {
      throw runtimeError('UNAUTHENTICATED', 'Bearer token lacks a valid identity or subject');
    }
    const dev = payload[DEV_CLAIM] === true;
    if (dev && !this.allowDevTokens)
      throw runtimeError('UNAUTHENTICATED', 'Development tokens are not accepted here (ALLOW_DEV_TOKENS)');
    // a tenant claim limits the identity's data access (ClassOptions.tenancy); a malformed one must not widen it
    const tenant: unknown = payload.tenant;
    if (tenant !== undefined && (typeof tenant !== 'string' || tenant.length === 0 || tenant.length > 200)) {
      throw runtimeError('UNAUTHENTICATED', 'Bearer token has an invalid tenant claim');
    }
    // a methods claim limits the token to those methods; a malformed one must not widen it either
    const methods: unknown = payload.methods;
    if (
      methods !== undefined &&
      (!Array.isArray(methods) ||
        methods.length === 0 ||
        methods.length > 100 ||
        !methods.every((m) => typeof m === 'string' && METHOD_NAME.test(m)))
    ) {
      throw runtimeError('UNAUTHENTICATED', 'Bearer token has an invalid methods claim');
    }
    // roles (and the developer flag in the claims) are a development token's only
    const roles =
      dev && Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
    const identity: Identity = { type, userId: payload.sub, roles, claims: dev ? payload : withoutGrants(payload) };
    if (tenant !== undefined) identity.tenant = tenant;
    if (methods !== undefined) identity.methods = methods as string[];
    return identity;
  }
}

/** a session token's claims without what only an identity source may say (a token never grants roles itself) */
function withoutGrants(payload: jwt.JwtPayload): Record<string, unknown> {
  if (payload.roles === undefined && payload.developer === undefined && payload.name === undefined) return payload;
  const { roles: _roles, developer: _developer, name: _name, ...rest } = payload;
  return rest;
}

/** Is `name` a `Class.method` name (the form of a token's methods)? */
export function isMethodName(name: unknown): name is string {
  return typeof name === 'string' && METHOD_NAME.test(name);
}

function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The caller's identity from HTTP headers: `x-api-key` (header names are
 * case-insensitive in Node) or `Authorization: Bearer <jwt>` (checked by
 * `tokens`: a TokenService, or an IdentityResolver that consults identity
 * sources); anonymous when neither is present. A credential that is present
 * but wrong is a 401.
 */
export async function identify(
  headers: Record<string, string | string[] | undefined>,
  apiKeys: ApiKeyStore,
  tokens: { verify(token: string): Identity | Promise<Identity> },
): Promise<Identity> {
  return identifyNow(headers, apiKeys, tokens);
}

/** an API key's identity (401 for none) */
function integrationUser(record: ApiKeyRecord | null): Identity {
  if (!record) throw runtimeError('UNAUTHENTICATED', 'Invalid API key');
  return { type: 'integration_user', userId: record.id, roles: [] };
}

/**
 * identify, answered without a promise when nothing has to be read (an API key
 * known in memory, no credentials); it may then also throw instead of rejecting.
 */
export function identifyNow(
  headers: Record<string, string | string[] | undefined>,
  apiKeys: ApiKeyStore,
  tokens: { verify(token: string): Identity | Promise<Identity> },
): Identity | Promise<Identity> {
  const key = header(headers, 'x-api-key');
  if (key !== undefined) {
    const record = apiKeys.verifyNow(key);
    return record instanceof Promise ? record.then(integrationUser) : integrationUser(record);
  }
  const auth = header(headers, 'authorization');
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!m) throw runtimeError('UNAUTHENTICATED', 'Authorization header must be "Bearer <token>"');
    return tokens.verify(m[1]);
  }
  return { type: 'anonymous' };
}
