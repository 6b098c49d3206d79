/**
 * Passwords: hashing with scrypt, checking in constant
 * time, and the password policy. For every class that stores a password
 * (ProgramManagementUser, Member); imports no class.
 *
 * Hashing. scrypt (RFC 7914) from node:crypto, memory-hard, so guessing runs
 * as slowly on a GPU as on the server: N = 2^15, r = 8, p = 3, one of the
 * equivalent minimums of OWASP's password storage cheat sheet (N = 2^17, r = 8,
 * p = 1 is another: 128 MiB per hash instead of 32 MiB); about 170 ms per hash
 * on one core of the development machine. A random 16-byte salt per password,
 * a 32-byte key.
 * Stored as `scrypt$<N>$<r>$<p>$<salt>$<key>` (salt and key base64url), so the
 * parameters can be raised later: `needsRehash` says when a stored hash was
 * made with other parameters (re-hash it at the next successful sign-in).
 *
 * Off the event loop: crypto.scrypt runs on libuv's thread pool (4 threads
 * unless UV_THREADPOOL_SIZE says otherwise), which file and DNS work share;
 * at most SCRYPT_CONCURRENCY hashes run at once and the others wait their
 * turn, so a burst of sign-ins cannot take the whole pool. Callers should
 * never hash while holding an instance (in a WRITE): hash in a STATIC or
 * before the write.
 *
 * Passwords are normalised to Unicode NFKC before hashing and before the
 * policy counts their characters (NIST SP 800-63B 5.1.1.2), so the same
 * password typed on two keyboards is the same password.
 *
 * Policy (`passwordProblems`, NIST SP 800-63B: length, a blocklist and context
 * words instead of composition rules): 12 to 128 characters (Unicode code
 * points, spaces and every printable character allowed); not containing the
 * account's email address or its local part (4 characters or more), nor any
 * other context word given (a name, 4 characters or more); not a commonly used
 * password (COMMON_PASSWORDS), nor a common word dressed up with digits and
 * symbols (`Password2024!`); at least 5 different characters; not a run of the
 * alphabet, the digits or a keyboard row (`abcdefghijkl`, `qwertyuiop[]`).
 * Each problem is `{field, reason}` for the caller's 400.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { FieldError } from '../../runtime';

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 128;
/** passwords longer than this (characters) are refused without hashing: no policy admits them */
const VERIFY_MAX_CHARS = 1024;

/**
 * The parameters new hashes are made with. SCRYPT_LOG_N (10-20, default 15)
 * sets log2(N): below 15 hashing is cheaper and weaker, which only a test
 * suite that hashes thousands of passwords wants; it is refused with
 * NODE_ENV=production. Read once, when this module loads.
 */
export function scryptParams(
  env: NodeJS.ProcessEnv = process.env,
): Readonly<{ N: number; r: number; p: number; keyLength: number; saltLength: number }> {
  const raw = env.SCRYPT_LOG_N?.trim();
  let logN = 15;
  if (raw) {
    if (!/^\d+$/.test(raw) || Number(raw) < 10 || Number(raw) > 20)
      throw new Error(`SCRYPT_LOG_N must be an integer from 10 to 20, got '${raw}'`);
    logN = Number(raw);
    if (logN < 15 && env.NODE_ENV === 'production')
      throw new Error(
        'SCRYPT_LOG_N below 15 weakens every new password hash: it is for test suites, and refused with NODE_ENV=production',
      );
  }
  return Object.freeze({ N: 2 ** logN, r: 8, p: 3, keyLength: 32, saltLength: 16 });
}

export const SCRYPT_PARAMS = scryptParams();
/** hashes running at once on the thread pool */
export const SCRYPT_CONCURRENCY = 2;
/** what a stored hash may ask for at most (a hash from the store is not trusted to be sane) */
const LIMITS = { minLogN: 10, maxLogN: 20, maxR: 32, maxP: 16, minSalt: 8, maxSalt: 64, minKey: 16, maxKey: 64 };

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A counting semaphore: at most `max` hashes on the thread pool, the rest wait in order. */
class Gate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await fn();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

const gate = new Gate(SCRYPT_CONCURRENCY);

interface Parsed {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

function parseHash(encoded: string): Parsed | null {
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [, n, r, p, salt, key] = parts as [string, string, string, string, string, string];
  if (!/^\d{1,8}$/.test(n) || !/^\d{1,3}$/.test(r) || !/^\d{1,3}$/.test(p) || !B64URL.test(salt) || !B64URL.test(key))
    return null;
  const out = {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    salt: Buffer.from(salt, 'base64url'),
    key: Buffer.from(key, 'base64url'),
  };
  const logN = Math.log2(out.N);
  if (!Number.isInteger(logN) || logN < LIMITS.minLogN || logN > LIMITS.maxLogN) return null;
  if (out.r < 1 || out.r > LIMITS.maxR || out.p < 1 || out.p > LIMITS.maxP) return null;
  if (
    out.salt.length < LIMITS.minSalt ||
    out.salt.length > LIMITS.maxSalt ||
    out.key.length < LIMITS.minKey ||
    out.key.length > LIMITS.maxKey
  )
    return null;
  return out;
}

/** scrypt's memory need (128·N·r bytes, plus its own margin) as node's `maxmem` */
function maxmem(N: number, r: number): number {
  return 128 * N * r * 2;
}

function derive(password: string, salt: Buffer, keyLength: number, N: number, r: number, p: number): Promise<Buffer> {
  return gate.run(() => scrypt(password.normalize('NFKC'), salt, keyLength, { N, r, p, maxmem: maxmem(N, r) }));
}

/** The stored form of a password: `scrypt$N$r$p$salt$key`. Check it against the policy first. */
export async function hashPassword(password: string): Promise<string> {
  if (typeof password !== 'string' || password.length === 0) throw new Error('hashPassword needs a password');
  const { N, r, p, keyLength, saltLength } = SCRYPT_PARAMS;
  const salt = randomBytes(saltLength);
  const key = await derive(password, salt, keyLength, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** made once, on first need: what an account without a password is checked against */
let dummy: Promise<string> | undefined;

/**
 * Is `password` the one `encoded` was made from? Compared in constant time.
 * `encoded` undefined or null (no such account, or no password set): the
 * password is still hashed, against a stand-in, and the answer is false, so
 * an unknown email takes as long as a known one. A malformed stored hash
 * answers false.
 */
export async function verifyPassword(password: string, encoded: string | null | undefined): Promise<boolean> {
  if (typeof password !== 'string' || password.length === 0 || password.length > VERIFY_MAX_CHARS) return false;
  const parsed = typeof encoded === 'string' ? parseHash(encoded) : null;
  if (!parsed) {
    dummy ??= hashPassword(randomBytes(18).toString('base64url'));
    const stand = parseHash(await dummy)!;
    await derive(password, stand.salt, stand.key.length, stand.N, stand.r, stand.p);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.N, parsed.r, parsed.p);
  return timingSafeEqual(key, parsed.key);
}

/** Was `encoded` made with other parameters than SCRYPT_PARAMS (or is it no hash of ours)? */
export function needsRehash(encoded: string): boolean {
  const parsed = parseHash(encoded);
  if (!parsed) return true;
  const { N, r, p, keyLength, saltLength } = SCRYPT_PARAMS;
  return (
    parsed.N !== N ||
    parsed.r !== r ||
    parsed.p !== p ||
    parsed.key.length !== keyLength ||
    parsed.salt.length !== saltLength
  );
}

// ------------------------------------------------------------------ policy

/**
 * Passwords of 12 characters or more that lead breach corpora (lower case).
 * Shorter ones are refused by length already.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456123456',
  '111111111111',
  '000000000000',
  '123123123123',
  '121212121212',
  '987654321987',
  '147258369147',
  '123qweasdzxc',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  'qazwsxedcrfv',
  'zaq12wsxcde3',
  'qwertyuiop12',
  'qwerty123456',
  'qwertyuiop123',
  'asdfghjkl123',
  'password1234',
  'password12345',
  'password123456',
  'passw0rd1234',
  'p@ssw0rd1234',
  'iloveyou1234',
  'iloveyou12345',
  'welcome12345',
  'welcome123456',
  'changeme1234',
  'letmein12345',
  'administrator',
  'administrator1',
  'admin1234567',
  'trustno1trustno1',
  'sunshine1234',
  'princess1234',
  'football1234',
  'baseball1234',
  'superman1234',
  'starwars1234',
  'whatever1234',
  'computer1234',
  'internet1234',
  'monkey123456',
  'dragon123456',
  'master123456',
  'abc123abc123',
  'abcd1234abcd',
  'aa123456789a',
  'correcthorsebatterystaple',
  'thequickbrownfox',
  'qwertyqwerty',
  'asdfasdfasdf',
  'passwordpassword',
  'mypassword123',
  'mypassword1234',
  'newpassword123',
  'newpassword1234',
]);

/**
 * Words that make a password predictable when the rest of it is only digits
 * and symbols (`Password2024!`, `Welcome@12345`).
 */
const COMMON_WORDS: ReadonlySet<string> = new Set([
  'password',
  'passwort',
  'passw',
  'pass',
  'welcome',
  'letmein',
  'qwerty',
  'qwertz',
  'azerty',
  'asdf',
  'admin',
  'administrator',
  'root',
  'user',
  'login',
  'iloveyou',
  'love',
  'secret',
  'changeme',
  'default',
  'test',
  'guest',
  'monkey',
  'dragon',
  'master',
  'sunshine',
  'princess',
  'football',
  'baseball',
  'soccer',
  'superman',
  'batman',
  'starwars',
  'shadow',
  'michael',
  'jennifer',
  'hello',
  'freedom',
  'whatever',
  'trustno',
  'computer',
  'internet',
  'summer',
  'winter',
  'spring',
  'autumn',
  'january',
  'february',
  'march',
  'april',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'member',
  'membership',
  'company',
  'abc',
  'abcd',
  'qwe',
  'qaz',
]);

/** runs that make a password a sequence when it is a piece of one of them (or of one reversed) */
const SEQUENCES = [
  'abcdefghijklmnopqrstuvwxyz',
  '01234567890123456789',
  "qwertyuiop[]asdfghjkl;'zxcvbnm,./",
  'qwertzuiopasdfghjklyxcvbnm',
  'azertyuiopqsdfghjklmwxcvbn',
  '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik,9ol.0p;/',
  '1q2w3e4r5t6y7u8i9o0p',
  '!@#$%^&*()_+',
];
const SEQUENCE_SOURCES = SEQUENCES.flatMap((s) => [s + s, [...s].reverse().join('').repeat(2)]);
const MIN_DISTINCT = 5;
const MIN_CONTEXT_WORD = 4;

export interface PasswordContext {
  /** the account's email address: neither it nor its local part may be in the password */
  email?: string | null;
  /** other words of the account (names): none of 4 characters or more may be in the password */
  words?: readonly (string | null | undefined)[];
  /** the field the problems name (default `password`) */
  field?: string;
}

/** NFKC, and the code points of it */
function codePoints(password: string): string[] {
  return [...password.normalize('NFKC')];
}

const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '!': 'i',
};

/**
 * A common word with only digits and symbols around or in it: the letters
 * alone are one (`password2024!`), or the part before a trailing run of
 * digits and symbols is one once its look-alike digits are read as letters
 * (`p4ssw0rd2024`, `P@ssw0rd!`).
 */
function dressedUpWord(lower: string): boolean {
  if (COMMON_WORDS.has(lower.replace(/[^\p{L}]/gu, ''))) return true;
  const core = lower.replace(/^[^\p{L}]+/u, '').replace(/[^\p{L}]+$/u, '');
  const read = [...core].map((c) => LEET[c] ?? c).join('');
  return COMMON_WORDS.has(read);
}

/**
 * What is wrong with `password` under the policy (empty: nothing). Pure:
 * the caller turns a non-empty list into its class's 400 with
 * `details.errors`.
 */
export function passwordProblems(password: unknown, context: PasswordContext = {}): FieldError[] {
  const field = context.field ?? 'password';
  if (typeof password !== 'string') return [{ field, reason: 'must be a string' }];
  const chars = codePoints(password);
  if (chars.length < PASSWORD_MIN_LENGTH)
    return [{ field, reason: `must be at least ${PASSWORD_MIN_LENGTH} characters` }];
  if (chars.length > PASSWORD_MAX_LENGTH)
    return [{ field, reason: `must be at most ${PASSWORD_MAX_LENGTH} characters` }];
  const problems: FieldError[] = [];
  const lower = chars.join('').toLowerCase();

  const email = typeof context.email === 'string' ? context.email.normalize('NFKC').toLowerCase().trim() : '';
  const local = email.includes('@') ? email.slice(0, email.lastIndexOf('@')) : email;
  if (email && (lower.includes(email) || (local.length >= MIN_CONTEXT_WORD && lower.includes(local)))) {
    problems.push({ field, reason: 'must not contain the email address' });
  }
  const word = (context.words ?? [])
    .map((w) => (typeof w === 'string' ? w.normalize('NFKC').toLowerCase().trim() : ''))
    .find((w) => w.length >= MIN_CONTEXT_WORD && lower.includes(w));
  if (word) problems.push({ field, reason: 'must not contain the name of the account' });

  if (COMMON_PASSWORDS.has(lower)) problems.push({ field, reason: 'is a commonly used password' });
  else if (dressedUpWord(lower))
    problems.push({ field, reason: 'is a common word with digits or symbols added: too easy to guess' });
  if (new Set(chars).size < MIN_DISTINCT)
    problems.push({ field, reason: `must use at least ${MIN_DISTINCT} different characters` });
  else if (SEQUENCE_SOURCES.some((s) => s.includes(lower)))
    problems.push({ field, reason: 'must not be a run of the alphabet, digits or a keyboard row' });
  return problems;
}
