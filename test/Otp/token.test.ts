/**
 * OTP tokens (classes/Otp/token.ts): what each tokenType makes, how typed
 * tokens are normalised, which caller-made tokens are accepted, the HMAC that
 * is stored instead of the token, and where its key comes from.
 */
import { createHash } from 'node:crypto';
import {
  ALPHANUMERIC_ALPHABET,
  generateOtpToken,
  hashToken,
  normalizeToken,
  otpKeyFrom,
  tokenFormatProblem,
  tokenMatches,
} from '../../classes/Otp/token';

const KEY = otpKeyFrom({ OTP_SECRET: 'o'.repeat(40) }).key;

describe('generateOtpToken', () => {
  test('numeric: 6 digits, leading zeros kept, spread over the range', () => {
    const tokens = Array.from({ length: 3000 }, () => generateOtpToken('numeric'));
    expect(tokens.every((t) => /^[0-9]{6}$/.test(t))).toBe(true);
    expect(new Set(tokens).size).toBeGreaterThan(2900);
    // each digit position takes every digit
    for (let i = 0; i < 6; i++) expect(new Set(tokens.map((t) => t[i])).size).toBe(10);
  });

  test('alphanumeric: 8 characters of the 32 that cannot be misread', () => {
    expect(ALPHANUMERIC_ALPHABET).toHaveLength(32);
    expect(ALPHANUMERIC_ALPHABET).not.toMatch(/[01OI]/);
    const tokens = Array.from({ length: 2000 }, () => generateOtpToken('alphanumeric'));
    expect(tokens.every((t) => /^[A-HJ-NP-Z2-9]{8}$/.test(t))).toBe(true);
    expect(new Set(tokens.join('')).size).toBe(32);
  });

  test('uuid: a random (version 4) UUID', () => {
    const t = generateOtpToken('uuid');
    expect(t).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(generateOtpToken('uuid')).not.toBe(t);
  });
});

test('typed tokens are normalised as people copy them', () => {
  expect(normalizeToken('numeric', ' 123 456 ')).toBe('123456');
  expect(normalizeToken('numeric', '123-456')).toBe('123456');
  expect(normalizeToken('alphanumeric', 'abcd-efgh')).toBe('ABCDEFGH');
  expect(normalizeToken('uuid', ' 5F0C8A1E-1B2C-4D3E-8F4A-0123456789AB')).toBe('5f0c8a1e-1b2c-4d3e-8f4a-0123456789ab');
});

test('caller-made tokens must fit their tokenType', () => {
  expect(tokenFormatProblem('numeric', '123456')).toBeUndefined();
  expect(tokenFormatProblem('numeric', '12345')).toBe('must be 6 to 12 digits for tokenType numeric');
  expect(tokenFormatProblem('numeric', '12345a')).toBeDefined();
  expect(tokenFormatProblem('alphanumeric', 'abc123')).toBeUndefined();
  expect(tokenFormatProblem('alphanumeric', 'abc12!')).toBe(
    'must be 6 to 64 letters and digits for tokenType alphanumeric',
  );
  expect(tokenFormatProblem('uuid', generateOtpToken('uuid'))).toBeUndefined();
  expect(tokenFormatProblem('uuid', '123456')).toBe('must be a UUID for tokenType uuid');
});

describe('stored as an HMAC', () => {
  const record = (tokenType: 'numeric' | 'alphanumeric' | 'uuid', token: string, id = 'rec-1') => ({
    id,
    tokenType,
    token: hashToken(KEY, id, tokenType, token),
  });

  test('the stored form names its algorithm, and holds neither the token nor its plain hash', () => {
    const r = record('numeric', '042917');
    expect(r.token).toMatch(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(r.token).not.toContain('042917');
    for (const plain of [
      createHash('sha256').update('042917').digest('base64url'),
      createHash('sha256').update('rec-1\u0000042917').digest('base64url'),
    ]) {
      expect(r.token).not.toContain(plain);
    }
  });

  test('bound to its record and its key: the same token stores differently elsewhere', () => {
    expect(record('numeric', '042917', 'a').token).not.toBe(record('numeric', '042917', 'b').token);
    const other = otpKeyFrom({ OTP_SECRET: 'p'.repeat(40) }).key;
    expect(hashToken(other, 'a', 'numeric', '042917')).not.toBe(record('numeric', '042917', 'a').token);
  });

  test('the token matches, as typed (spaces, hyphens, case); anything else does not', () => {
    const n = record('numeric', '042917');
    expect(tokenMatches(KEY, n, '042917')).toBe(true);
    expect(tokenMatches(KEY, n, '042 917')).toBe(true);
    expect(tokenMatches(KEY, n, '042918')).toBe(false);
    expect(tokenMatches(KEY, n, '42917')).toBe(false);
    expect(tokenMatches(KEY, n, '')).toBe(false);
    const a = record('alphanumeric', 'K7QW-9XPM');
    expect(tokenMatches(KEY, a, 'k7qw9xpm')).toBe(true);
    expect(tokenMatches(KEY, a, 'K7QW9XPN')).toBe(false);
    // the record's own id is part of the HMAC: a token copied onto another record does not match there
    expect(tokenMatches(KEY, { ...n, id: 'rec-2' }, '042917')).toBe(false);
    // another key does not match, nor a stored value that is not an HMAC of ours
    expect(tokenMatches(otpKeyFrom({ OTP_SECRET: 'p'.repeat(40) }).key, n, '042917')).toBe(false);
    expect(tokenMatches(KEY, { ...n, token: '042917' }, '042917')).toBe(false);
  });
});

test('the key: OTP_SECRET, else derived from JWT_SECRET, else a development key; a short OTP_SECRET stops the start', () => {
  expect(otpKeyFrom({ OTP_SECRET: 'o'.repeat(40), JWT_SECRET: 'j'.repeat(40) }).source).toBe('OTP_SECRET');
  const fromJwt = otpKeyFrom({ JWT_SECRET: 'j'.repeat(40) });
  expect(fromJwt.source).toBe('JWT_SECRET');
  expect(fromJwt.key.toString('utf8')).not.toContain('jjjj');
  expect(fromJwt.key.equals(otpKeyFrom({ JWT_SECRET: 'k'.repeat(40) }).key)).toBe(false);
  expect(otpKeyFrom({}).source).toBe('development');
  expect(() => otpKeyFrom({ OTP_SECRET: 'short' })).toThrow('OTP_SECRET must be at least 32 characters');
});

test('in production the public development key is refused: the start stops until a secret is set', () => {
  expect(() => otpKeyFrom({ NODE_ENV: 'production' })).toThrow('OTP_SECRET (or JWT_SECRET) must be set in production');
  expect(otpKeyFrom({ NODE_ENV: 'production', JWT_SECRET: 'j'.repeat(40) }).source).toBe('JWT_SECRET');
});
