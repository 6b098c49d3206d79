/**
 * classes/_platform/passwords.ts: scrypt hashes (format, salts, constant-time
 * check, stand-in for unknown accounts, malformed and tampered hashes,
 * re-hash detection, NFKC) and the password policy as a pure function.
 */
import '../support/production-scrypt';
import { scryptSync } from 'node:crypto';
import {
  COMMON_PASSWORDS,
  hashPassword,
  needsRehash,
  passwordProblems,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  SCRYPT_PARAMS,
  scryptParams,
  verifyPassword,
} from '../../classes/_platform/passwords';

const GOOD = 'violet-anchor-river-9';

describe('hashing', () => {
  let stored: string;
  beforeAll(async () => {
    stored = await hashPassword(GOOD);
  });

  test('scrypt$N$r$p$salt$key with the documented parameters, a 16-byte salt and a 32-byte key', () => {
    const [alg, n, r, p, salt, key] = stored.split('$');
    expect([alg, Number(n), Number(r), Number(p)]).toEqual(['scrypt', 2 ** 15, 8, 3]);
    expect(Buffer.from(salt!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64url')).toHaveLength(32);
    // the key is scrypt's, with those parameters and that salt
    const expected = scryptSync(GOOD, Buffer.from(salt!, 'base64url'), 32, {
      N: 2 ** 15,
      r: 8,
      p: 3,
      maxmem: 128 * 1024 * 1024,
    });
    expect(key).toBe(expected.toString('base64url'));
    expect(stored).not.toContain(GOOD);
  });

  test('the same password hashes differently each time (random salt), and both verify', async () => {
    const again = await hashPassword(GOOD);
    expect(again).not.toBe(stored);
    expect(await verifyPassword(GOOD, again)).toBe(true);
    expect(await verifyPassword(GOOD, stored)).toBe(true);
  });

  test('another password, a near miss or an empty one does not verify', async () => {
    expect(await verifyPassword('violet-anchor-river-8', stored)).toBe(false);
    expect(await verifyPassword(GOOD.toUpperCase(), stored)).toBe(false);
    expect(await verifyPassword(`${GOOD} `, stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
    expect(await verifyPassword('x'.repeat(5000), stored)).toBe(false);
  });

  test('a tampered or malformed stored hash does not verify', async () => {
    const parts = stored.split('$');
    const key = Buffer.from(parts[5]!, 'base64url');
    key[0] = key[0]! ^ 1;
    const tampered = [...parts.slice(0, 5), key.toString('base64url')].join('$');
    expect(await verifyPassword(GOOD, tampered)).toBe(false);
    for (const bad of [
      '',
      'plain',
      `bcrypt$${parts.slice(1).join('$')}`,
      stored.replace('$32768$', '$30000$'),
      stored.replace('$32768$', `$${2 ** 24}$`),
      stored.replace('$8$3$', '$0$3$'),
      parts.slice(0, 5).join('$'),
    ]) {
      expect([bad, await verifyPassword(GOOD, bad)]).toEqual([bad, false]);
    }
  });

  test('no stored hash (unknown account): still hashed against a stand-in, and false', async () => {
    expect(await verifyPassword(GOOD, undefined)).toBe(false);
    expect(await verifyPassword(GOOD, null)).toBe(false);
  });

  test('passwords are NFKC-normalised: the same password typed with other code points verifies', async () => {
    const h = await hashPassword('ｆｕｌｌｗｉｄｔｈ-ｐａｓｓ-42');
    expect(await verifyPassword('fullwidth-pass-42', h)).toBe(true);
    const composed = await hashPassword('caf\u00e9-terrace-lamp');
    expect(await verifyPassword('cafe\u0301-terrace-lamp', composed)).toBe(true);
  });

  test('needsRehash: hashes made with other parameters, or not ours', () => {
    expect(needsRehash(stored)).toBe(false);
    expect(needsRehash(stored.replace('$32768$', '$16384$'))).toBe(true);
    expect(needsRehash(stored.replace('$8$3$', '$8$1$'))).toBe(true);
    expect(needsRehash('md5$abc')).toBe(true);
    expect(SCRYPT_PARAMS).toEqual({ N: 32768, r: 8, p: 3, keyLength: 32, saltLength: 16 });
  });

  test('SCRYPT_LOG_N: 10 to 20, below 15 never in production', () => {
    expect(scryptParams({})).toEqual(SCRYPT_PARAMS);
    expect(scryptParams({ SCRYPT_LOG_N: '10' }).N).toBe(1024);
    expect(scryptParams({ SCRYPT_LOG_N: '17', NODE_ENV: 'production' }).N).toBe(2 ** 17);
    expect(() => scryptParams({ SCRYPT_LOG_N: '12', NODE_ENV: 'production' })).toThrow(
      'SCRYPT_LOG_N below 15 weakens every new password hash',
    );
    for (const bad of ['9', '21', 'x', '15.5'])
      expect(() => scryptParams({ SCRYPT_LOG_N: bad })).toThrow(
        `SCRYPT_LOG_N must be an integer from 10 to 20, got '${bad}'`,
      );
  });

  test('hashes that start together all finish (the gate lets them through in turn)', async () => {
    const hashes = await Promise.all(Array.from({ length: 5 }, (_, i) => hashPassword(`${GOOD}-${i}`)));
    expect(new Set(hashes).size).toBe(5);
    expect(await verifyPassword(`${GOOD}-3`, hashes[3])).toBe(true);
  });
});

describe('policy', () => {
  const reasons = (pw: unknown, ctx = {}) => passwordProblems(pw, ctx).map((p) => p.reason);

  test('a long, unremarkable password passes', () => {
    expect(passwordProblems(GOOD)).toEqual([]);
    expect(passwordProblems('correct battery horse staple lamp')).toEqual([]);
    expect(passwordProblems('Ünïcödé-pässwörd-ok')).toEqual([]);
  });

  test(`length: ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters, counted in code points after NFKC`, () => {
    expect(passwordProblems('short-pw-1')).toEqual([{ field: 'password', reason: 'must be at least 12 characters' }]);
    expect(passwordProblems('river-lamp-9')).toEqual([]);
    expect(reasons('x1y2z3'.repeat(22))).toEqual(['must be at most 128 characters']);
    expect(
      passwordProblems(
        'r7'
          .repeat(64)
          .slice(0, 128)
          .replace(/^r7r7r7/, 'abcdef'),
      ),
    ).toEqual([]);
    // 12 emoji are 12 characters (24 UTF-16 units)
    expect(reasons('🐙🦑🐳🐬🦈🐟🐠🐡🦐🦞🦀🐚')).toEqual([]);
    expect(reasons('🐙🦑🐳🐬🦈🐟🐠🐡🦐🦞🦀')).toEqual(['must be at least 12 characters']);
    expect(reasons(42)).toEqual(['must be a string']);
  });

  test('not the email address nor its local part; not a name of the account', () => {
    expect(reasons('jane.doe@example.com', { email: 'Jane.Doe@Example.com' })).toEqual([
      'must not contain the email address',
    ]);
    expect(reasons('my-jane.doe-secret', { email: 'jane.doe@example.com' })).toEqual([
      'must not contain the email address',
    ]);
    expect(reasons('violet-anchor-bob-9', { email: 'bob@example.com' })).toEqual([]);
    expect(reasons('violet-Smithers-9', { words: ['Smithers', null, 'Al'] })).toEqual([
      'must not contain the name of the account',
    ]);
    expect(reasons('violet-al-river-9', { words: ['Al'] })).toEqual([]);
  });

  test('commonly used passwords, and common words dressed up with digits and symbols', () => {
    expect(reasons('Password1234')).toEqual(['is a commonly used password']);
    expect(reasons('qwertyuiop123')).toEqual(['is a commonly used password']);
    expect(COMMON_PASSWORDS.has('password1234')).toBe(true);
    for (const pw of ['Password2024!', 'P@ssw0rd!2024', 'p4ssw0rd2024', '!!Welcome2025', 'Summer@2024!!']) {
      expect([pw, reasons(pw)]).toEqual([pw, ['is a common word with digits or symbols added: too easy to guess']]);
    }
  });

  test('too few different characters, or a run of the alphabet, the digits or a keyboard row', () => {
    expect(reasons('aaaaaaaaaaaa')).toEqual(['must use at least 5 different characters']);
    expect(reasons('abababababababab')).toEqual(['must use at least 5 different characters']);
    for (const pw of [
      'abcdefghijkl',
      'lkjihgfedcba',
      '0123456789012',
      '987654321098',
      'qwertyuiop[]',
      '1qaz2wsx3edc4rfv',
      'zxcvbnm,./qwe',
    ]) {
      expect([pw, reasons(pw)]).toEqual([pw, ['must not be a run of the alphabet, digits or a keyboard row']]);
    }
  });

  test('the problems name the field the caller gives', () => {
    expect(passwordProblems('short', { field: 'newPassword' })).toEqual([
      { field: 'newPassword', reason: 'must be at least 12 characters' },
    ]);
  });
});
