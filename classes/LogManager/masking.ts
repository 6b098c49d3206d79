/**
 * Masking of sensitive values in log entries (spec 6: "sensitive fields
 * (passwords, personal data) are masked in logs"). Pure functions.
 *
 * A key is sensitive when
 *  - its normalised name (lower case, without '_', '-', '.' and spaces) is one
 *    of the default credential names: password, passwordhash, token,
 *    accesstoken, refreshtoken, otp, secret, apikey; or ends with one of the
 *    credential suffixes password, passwordhash, token, secret, apikey (so
 *    newPassword, password_hash, idToken, clientSecret, x-api-key are masked;
 *    tokenType or otpType are not);
 *  - or it is one of the caller's declared personal-data field names
 *    (`sensitiveFields`, compared the same normalised way, exact names only).
 * Both rules apply at any depth: a top-level field with a sensitive name is
 * masked whole, and inside any value (objects and arrays of objects) the value
 * of every sensitive key is replaced by the marker.
 */

/** What a masked value becomes (JSON-encoded in a field update: "\"***\""). */
export const MASK = '***';
export const MASKED_JSON = JSON.stringify(MASK);

export const DEFAULT_SENSITIVE_KEYS = [
  'password',
  'passwordHash',
  'token',
  'accessToken',
  'refreshToken',
  'otp',
  'secret',
  'apiKey',
] as const;

const CREDENTIAL_SUFFIXES = ['password', 'passwordhash', 'token', 'secret', 'apikey'];

export function normaliseKey(key: string): string {
  return key.toLowerCase().replace(/[\s_.-]/g, '');
}

const DEFAULT_SET = new Set(DEFAULT_SENSITIVE_KEYS.map(normaliseKey));

/** Credentials: always masked, whatever the caller declares. */
export function isCredentialKey(key: string): boolean {
  const k = normaliseKey(key);
  return DEFAULT_SET.has(k) || CREDENTIAL_SUFFIXES.some((s) => k.endsWith(s));
}

export type KeyMatcher = (key: string) => boolean;

/** The sensitive-key test for one log entry: credentials plus the declared personal-data fields. */
export function sensitiveKeyMatcher(declared: readonly string[] = []): KeyMatcher {
  const personal = new Set(declared.map(normaliseKey).filter((k) => k.length > 0));
  return (key) => isCredentialKey(key) || personal.has(normaliseKey(key));
}

/** A copy of `value` with the value of every sensitive key (at any depth) replaced by MASK. */
export function maskNested(value: unknown, isSensitive: KeyMatcher): unknown {
  if (Array.isArray(value)) return value.map((v) => maskNested(v, isSensitive));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = isSensitive(k) ? MASK : maskNested(v, isSensitive);
    }
    return out;
  }
  return value;
}

/** The value of top-level field `key` as it may be logged. */
export function maskField(key: string, value: unknown, isSensitive: KeyMatcher): unknown {
  return isSensitive(key) ? MASK : maskNested(value, isSensitive);
}
