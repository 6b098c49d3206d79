import jwt from 'jsonwebtoken';

/**
 * Short-lived signed tokens for purposes other than login (file download
 * links, invitations): HS256 with a key derived from the JWT secret and the
 * purpose, so a token minted for one purpose is refused for another and can
 * never pass as a bearer token.
 */
export class Signer {
  constructor(private readonly secret: string) {}

  private key(purpose: string): string {
    return `${this.secret}\u0000signer\u0000${purpose}`;
  }

  sign(purpose: string, payload: Record<string, unknown>, ttlSeconds: number): string {
    return jwt.sign(payload, this.key(purpose), { algorithm: 'HS256', expiresIn: ttlSeconds, audience: purpose });
  }

  /** the payload, or null when the token is invalid, expired or for another purpose */
  verify<T extends Record<string, unknown> = Record<string, unknown>>(purpose: string, token: string): T | null {
    try {
      const out = jwt.verify(token, this.key(purpose), { algorithms: ['HS256'], audience: purpose });
      return typeof out === 'string' ? null : (out as T);
    } catch {
      return null;
    }
  }
}
