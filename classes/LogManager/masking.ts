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
 *
 * Except: inside a top-level field the caller declares plain (`plainFields`,
 * data that is not personal, such as a member's consent flags
 * `permissions: {sms, email}`), declared personal-data names are not matched,
 * so that `permissions.email` (a yes/no consent) stays readable while the
 * member's `email` is masked. Credentials are masked everywhere.
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

/**
 * Keys already normalised, with whether they are credentials: the same few
 * keys (a member's fields, a payment schedule's dueDate and amount) come back
 * in every entry. Bounded: emptied when full, so keys chosen by callers
 * cannot grow it without limit.
 */
const KNOWN_KEYS = new Map<string, { normalised: string; credential: boolean }>();
const KNOWN_KEYS_MAX = 4096;

function known(key: string): { normalised: string; credential: boolean } {
  let k = KNOWN_KEYS.get(key);
  if (!k) {
    const normalised = normaliseKey(key);
    k = {
      normalised,
      credential: DEFAULT_SET.has(normalised) || CREDENTIAL_SUFFIXES.some((s) => normalised.endsWith(s)),
    };
    if (KNOWN_KEYS.size >= KNOWN_KEYS_MAX) KNOWN_KEYS.clear();
    KNOWN_KEYS.set(key, k);
  }
  return k;
}

/** Credentials: always masked, whatever the caller declares. */
export function isCredentialKey(key: string): boolean {
  return known(key).credential;
}

export type KeyMatcher = (key: string) => boolean;

/** The sensitive-key test for one log entry: credentials plus the declared personal-data fields. */
export function sensitiveKeyMatcher(declared: readonly string[] = []): KeyMatcher {
  const personal = new Set(declared.map(normaliseKey).filter((k) => k.length > 0));
  return (key) => {
    const k = known(key);
    return k.credential || personal.has(k.normalised);
  };
}

/**
 * A copy of `value` with the value of every sensitive key (at any depth)
 * replaced by MASK. Iterative, so a value nested 100 000 deep (passed by a
 * class in-process, where no HTTP depth limit applies) costs no stack. Every
 * key is copied as an own key (`__proto__` included: masked like any other,
 * never turned into the copy's prototype). A value met twice is copied once
 * (a cycle stays a cycle, for JSON encoding to refuse).
 */
export function maskNested(value: unknown, isSensitive: KeyMatcher): unknown {
  if (value === null || typeof value !== 'object') return value;
  const copies = new Map<object, Record<string, unknown> | unknown[]>();
  const work: object[] = [];
  const copyOf = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    let copy = copies.get(v);
    if (!copy) {
      copy = Array.isArray(v) ? [] : {};
      copies.set(v, copy);
      work.push(v);
    }
    return copy;
  };
  const root = copyOf(value);
  while (work.length > 0) {
    const src = work.pop()!;
    const dst = copies.get(src)!;
    if (Array.isArray(src)) {
      for (let i = 0; i < src.length; i++) (dst as unknown[])[i] = copyOf(src[i]);
    } else {
      for (const k of Object.keys(src)) {
        const v = isSensitive(k) ? MASK : copyOf((src as Record<string, unknown>)[k]);
        // a plain assignment makes an own property of any key but __proto__, whose setter would set the prototype
        if (k === '__proto__')
          Object.defineProperty(dst, k, { value: v, writable: true, enumerable: true, configurable: true });
        else (dst as Record<string, unknown>)[k] = v;
      }
    }
  }
  return root;
}

/** The value of top-level field `key` as it may be logged (`plain`: the top-level fields that hold no personal data). */
export function maskField(
  key: string,
  value: unknown,
  isSensitive: KeyMatcher,
  plain: ReadonlySet<string> = NO_PLAIN_FIELDS,
): unknown {
  if (plain.has(key)) return isCredentialKey(key) ? MASK : maskNested(value, isCredentialKey);
  return isSensitive(key) ? MASK : maskNested(value, isSensitive);
}

const NO_PLAIN_FIELDS: ReadonlySet<string> = new Set();
