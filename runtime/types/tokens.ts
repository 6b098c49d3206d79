/** Signing callers in from a handler (ctx.tokens). */
import type { IdentityType } from './identity';

/** What a class asks for when it signs a caller in (ctx.tokens.issue). */
export interface TokenIssueRequest {
  /** the subject: the user's id (for a type with an identity source, the source class's instance id) */
  sub: string;
  /** one of the token identity types (TokenIdentityType) */
  type: IdentityType;
  /** the tenant the token is limited to (an identity source's answer takes precedence) */
  tenant?: string;
  /** `Class.method` names the token may call, and nothing else; absent: any the identity may */
  methods?: string[];
  /** lifetime of the access token, 1-86400 s; default ACCESS_TOKEN_TTL_SECONDS */
  ttlSeconds?: number;
  /** also return a refresh token (exchanged at POST /<projectId>/auth/refresh) */
  refresh?: boolean;
}

export interface IssuedToken {
  /** the access token (a JWT) */
  token: string;
  /** ISO time the access token expires */
  expiresAt: string;
  /** when asked for: an opaque, single-use refresh token */
  refreshToken?: string;
}

/**
 * Signs callers in (ctx.tokens): short-lived access tokens and rotating
 * refresh tokens. Issuing writes nothing a handler commits: a token issued by
 * a handler that then throws is still valid until it expires.
 */
export interface TokenIssuer {
  issue(request: TokenIssueRequest): Promise<IssuedToken>;
  /**
   * Revokes every refresh token of the subject (sign-out everywhere, password
   * change, deactivation) and forgets this process's cached identity answer
   * for it; access tokens already issued run until they expire, or until the
   * identity source refuses them.
   */
  revokeAll(sub: string, type: IdentityType): Promise<void>;
}
