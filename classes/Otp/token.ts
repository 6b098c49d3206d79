/**
 * OTP tokens: made with crypto (never Math.random), normalised the way people
 * type them, and stored only as an HMAC.
 *
 *  - numeric: 6 digits (crypto.randomInt): one in a million per guess, and
 *    checks are limited (retryLimit per window);
 *  - alphanumeric: 8 characters of 32 that cannot be misread (no 0/O, 1/I):
 *    40 bits;
 *  - uuid: crypto.randomUUID (122 random bits), for links (invitations, resets).
 *
 * A token is stored as `hmac-sha256:<base64url>` of the record id and the
 * normalised token, keyed with the OTP key (otpKey): a leaked state, backup or
 * log does not give the token, and a 6-digit token cannot be found by hashing
 * the million candidates offline without the key. Checks compare the HMACs
 * with crypto.timingSafeEqual.
 */
import { createHash, createHmac, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { OtpRecord, TokenType } from './types';

/** 32 characters, none that reads as another (no 0, O, 1, I) */
export const ALPHANUMERIC_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const NUMERIC_LENGTH = 6;
export const ALPHANUMERIC_LENGTH = 8;
const HASH_PREFIX = 'hmac-sha256:';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** what a token made by a caller (createOtpRecord) must look like, once normalised */
const FORMAT: Record<TokenType, { pattern: RegExp; reason: string }> = {
  numeric: { pattern: /^[0-9]{6,12}$/, reason: 'must be 6 to 12 digits for tokenType numeric' },
  alphanumeric: {
    pattern: /^[A-Z0-9]{6,64}$/,
    reason: 'must be 6 to 64 letters and digits for tokenType alphanumeric',
  },
  uuid: { pattern: UUID, reason: 'must be a UUID for tokenType uuid' },
};

/** A new token of `tokenType`. */
export function generateOtpToken(tokenType: TokenType): string {
  switch (tokenType) {
    case 'numeric':
      return String(randomInt(0, 10 ** NUMERIC_LENGTH)).padStart(NUMERIC_LENGTH, '0');
    case 'alphanumeric': {
      let out = '';
      for (let i = 0; i < ALPHANUMERIC_LENGTH; i++)
        out += ALPHANUMERIC_ALPHABET[randomInt(ALPHANUMERIC_ALPHABET.length)];
      return out;
    }
    case 'uuid':
      return randomUUID();
  }
}

/**
 * The token as it is compared: spaces (and, for codes, hyphens) dropped, as
 * people copy `123 456` or `ABCD-EFGH`; codes in upper case, UUIDs in lower.
 */
export function normalizeToken(tokenType: TokenType, raw: string): string {
  const compact = raw.replace(/\s+/g, '');
  if (tokenType === 'uuid') return compact.toLowerCase();
  const code = compact.replace(/-/g, '');
  return tokenType === 'alphanumeric' ? code.toUpperCase() : code;
}

/** Why a caller's token cannot be a token of `tokenType` (undefined: it can). */
export function tokenFormatProblem(tokenType: TokenType, raw: string): string | undefined {
  const { pattern, reason } = FORMAT[tokenType];
  return pattern.test(normalizeToken(tokenType, raw)) ? undefined : reason;
}

/**
 * The OTP key: OTP_SECRET (32 characters or more), else one derived from
 * JWT_SECRET (HMAC-SHA256 of it, so neither reveals the other), else a fixed
 * development key, which makes the HMAC no better than a plain hash: outside
 * production only (NODE_ENV=production without either stops the start). A
 * short OTP_SECRET stops the start.
 */
export function otpKeyFrom(env: NodeJS.ProcessEnv): {
  key: Buffer;
  source: 'OTP_SECRET' | 'JWT_SECRET' | 'development';
} {
  const own = env.OTP_SECRET;
  if (own !== undefined && own !== '') {
    if (own.length < 32) throw new Error('OTP_SECRET must be at least 32 characters');
    return { key: createHash('sha256').update(own, 'utf8').digest(), source: 'OTP_SECRET' };
  }
  if (env.JWT_SECRET)
    return { key: createHmac('sha256', env.JWT_SECRET).update('otp-token-key').digest(), source: 'JWT_SECRET' };
  // the fixed key is public: stored codes would be as easy to reverse as a plain hash of six digits
  if (env.NODE_ENV === 'production')
    throw new Error(
      'OTP_SECRET (or JWT_SECRET) must be set in production: without either, one-time codes are stored under a public development key',
    );
  return { key: createHash('sha256').update('otp-development-key').digest(), source: 'development' };
}

function hmac(key: Buffer, recordId: string, normalized: string): Buffer {
  return createHmac('sha256', key).update(recordId).update('\u0000').update(normalized).digest();
}

/** What a record stores for `token` (normalised first). */
export function hashToken(key: Buffer, recordId: string, tokenType: TokenType, token: string): string {
  return HASH_PREFIX + hmac(key, recordId, normalizeToken(tokenType, token)).toString('base64url');
}

/** Is `candidate` the token of `record`? The HMACs are compared in constant time. */
export function tokenMatches(
  key: Buffer,
  record: Pick<OtpRecord, 'id' | 'token' | 'tokenType'>,
  candidate: string,
): boolean {
  if (!record.token.startsWith(HASH_PREFIX)) return false;
  const stored = Buffer.from(record.token.slice(HASH_PREFIX.length), 'base64url');
  const given = hmac(key, record.id, normalizeToken(record.tokenType, candidate));
  return stored.length === given.length && timingSafeEqual(stored, given);
}
