/**
 * Sessions a class opens when it signs a caller in (ctx.tokens): short-lived
 * access tokens (TokenService.issue) and, when asked for, a refresh token
 * exchanged at `POST /<projectId>/auth/refresh` for a new pair. An exchange
 * asks the type's identity source afresh (not the cache): an inactive user, or
 * a refresh token issued before the user's validAfter, is refused and its
 * family revoked.
 */
import type { IdentityType } from '../types/identity';
import type { IssuedToken, TokenIssueRequest, TokenIssuer } from '../types/tokens';
import { runtimeError } from '../errors';
import { isMethodName, TOKEN_IDENTITIES, type TokenService } from './auth';
import type { IdentityResolver } from './identities';
import type { RefreshTokenStore, SessionInfo } from './refresh-tokens';

/** a subject as an instance id can be (the identity source is called on it) */
const SUBJECT = /^[A-Za-z0-9_.@+\-=]{1,200}$/;
/** the longest access token a class may ask for (ttlSeconds) */
export const MAX_ACCESS_TTL_SECONDS = 86_400;

export interface SessionTokensOptions {
  tokens: TokenService;
  refresh: RefreshTokenStore;
  identities: IdentityResolver;
  /** ACCESS_TOKEN_TTL_SECONDS */
  accessTtlSeconds: number;
  /** does `Class.method` exist (a token limited to methods names only real ones) */
  knownMethod: (name: string) => boolean;
}

/** A class's mistake in an issue request: a plain Error (500, logged), not its caller's fault. */
function checkRequest(req: TokenIssueRequest, knownMethod: (name: string) => boolean): void {
  if (!req || typeof req !== 'object') throw new Error('tokens.issue: the request must be an object');
  if (typeof req.sub !== 'string' || !SUBJECT.test(req.sub))
    throw new Error('tokens.issue: sub must be 1-200 of [A-Za-z0-9_.@+-=]');
  if (!TOKEN_IDENTITIES.includes(req.type))
    throw new Error(`tokens.issue: type must be one of ${TOKEN_IDENTITIES.join(', ')}`);
  if (
    req.tenant !== undefined &&
    (typeof req.tenant !== 'string' || req.tenant.length === 0 || req.tenant.length > 200)
  ) {
    throw new Error('tokens.issue: tenant must be a string of 1-200 characters');
  }
  if (req.methods !== undefined) {
    if (!Array.isArray(req.methods) || req.methods.length === 0 || req.methods.length > 100)
      throw new Error('tokens.issue: methods must list 1-100 `Class.method` names');
    for (const m of req.methods) {
      if (!isMethodName(m) || !knownMethod(m))
        throw new Error(`tokens.issue: methods: '${String(m)}' is not a method of a class this runtime serves`);
    }
  }
  const ttl = req.ttlSeconds;
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_ACCESS_TTL_SECONDS)) {
    throw new Error(`tokens.issue: ttlSeconds must be an integer from 1 to ${MAX_ACCESS_TTL_SECONDS}`);
  }
  if (req.refresh !== undefined && typeof req.refresh !== 'boolean')
    throw new Error('tokens.issue: refresh must be a boolean');
}

export class SessionTokens implements TokenIssuer {
  constructor(private readonly opts: SessionTokensOptions) {}

  async issue(req: TokenIssueRequest): Promise<IssuedToken> {
    checkRequest(req, this.opts.knownMethod);
    const methods = req.methods ? [...new Set(req.methods)] : undefined;
    const access = this.opts.tokens.issue(
      {
        sub: req.sub,
        identity: req.type,
        ...(req.tenant !== undefined ? { tenant: req.tenant } : {}),
        ...(methods ? { methods } : {}),
      },
      req.ttlSeconds ?? this.opts.accessTtlSeconds,
    );
    if (!req.refresh) return access;
    const refreshToken = await this.opts.refresh.create({
      sub: req.sub,
      type: req.type,
      ...(req.tenant !== undefined ? { tenant: req.tenant } : {}),
      ...(methods ? { methods } : {}),
      ...(req.ttlSeconds !== undefined ? { ttlSeconds: req.ttlSeconds } : {}),
    });
    return { ...access, refreshToken };
  }

  /** The subject's sessions (families with a live refresh token), newest first. */
  list(sub: string, type: IdentityType): Promise<SessionInfo[]> {
    return this.opts.refresh.list(sub, type);
  }

  /** Ends one session of the subject (its refresh tokens); false when it has no such session. */
  async revoke(sub: string, type: IdentityType, family: string): Promise<boolean> {
    const done = await this.opts.refresh.revokeSession(sub, type, family);
    if (done) this.opts.identities.invalidate(type, sub);
    return done;
  }

  async revokeAll(sub: string, type: IdentityType): Promise<void> {
    if (typeof sub !== 'string' || sub.length === 0)
      throw new Error('tokens.revokeAll: sub must be a non-empty string');
    if (!TOKEN_IDENTITIES.includes(type))
      throw new Error(`tokens.revokeAll: type must be one of ${TOKEN_IDENTITIES.join(', ')}`);
    await this.opts.refresh.revokeAll(sub, type);
    this.opts.identities.invalidate(type, sub);
  }

  /**
   * A refresh token for a new access token and its successor. 401 when the
   * token is unknown, expired or revoked; when it was used before (the whole
   * family is revoked); when the identity source refuses its subject.
   */
  async exchange(refreshToken: string): Promise<Required<IssuedToken>> {
    const { refresh, identities } = this.opts;
    const found = await refresh.lookup(refreshToken);
    if (found.kind === 'unknown')
      throw runtimeError('UNAUTHENTICATED', 'Invalid refresh token (unknown, expired or revoked)');
    if (found.kind === 'reused') {
      await refresh.revokeFamily(found.family);
      throw runtimeError(
        'UNAUTHENTICATED',
        'This refresh token was used before: every token of its session is revoked, sign in again',
      );
    }
    const r = found.record;
    try {
      await identities.check(r.type, r.sub, r.createdMs, true);
    } catch (err) {
      if ((err as { status?: number }).status === 401) await refresh.revokeFamily(r.family);
      throw err;
    }
    const next = await refresh.rotate(found);
    if (next === null) {
      // consumed by a concurrent exchange between our look-up and now: a second holder of the token
      await refresh.revokeFamily(r.family);
      throw runtimeError(
        'UNAUTHENTICATED',
        'This refresh token was used before: every token of its session is revoked, sign in again',
      );
    }
    const access = this.opts.tokens.issue(
      {
        sub: r.sub,
        identity: r.type,
        ...(r.tenant !== undefined ? { tenant: r.tenant } : {}),
        ...(r.methods ? { methods: r.methods } : {}),
      },
      r.ttlSeconds ?? this.opts.accessTtlSeconds,
    );
    return { ...access, refreshToken: next };
  }
}
