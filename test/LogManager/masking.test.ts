import { diffFields } from '../../classes/_platform/field-diff';
import {
  DEFAULT_SENSITIVE_KEYS,
  MASK,
  MASKED_JSON,
  isCredentialKey,
  maskField,
  maskNested,
  sensitiveKeyMatcher,
} from '../../classes/LogManager/masking';

const credentials = sensitiveKeyMatcher();

describe('masking', () => {
  test('the marker is the JSON string "***"', () => {
    expect(MASKED_JSON).toBe('"***"');
    expect(JSON.parse(MASKED_JSON)).toBe(MASK);
  });

  test.each(DEFAULT_SENSITIVE_KEYS.map((k) => [k]))(
    'default key %s is masked at the top level, nested and in arrays, in any case',
    (key) => {
      expect(maskField(key, 'plain', credentials)).toBe(MASK);
      expect(maskField(key.toUpperCase(), { deep: 'x' }, credentials)).toBe(MASK);
      const nested = {
        user: { profile: { [key]: 's3cr3t', keep: 'ok' } },
        list: [{ [key.toLowerCase()]: 's3cr3t', keep: 1 }],
      };
      const masked = maskField('data', nested, credentials);
      expect(masked).toEqual({
        user: { profile: { [key]: MASK, keep: 'ok' } },
        list: [{ [key.toLowerCase()]: MASK, keep: 1 }],
      });
      expect(JSON.stringify(masked)).not.toContain('s3cr3t');
    },
  );

  test('credential-like names are masked; look-alikes are not', () => {
    for (const k of [
      'newPassword',
      'current_password',
      'password_hash',
      'idToken',
      'clientSecret',
      'x-api-key',
      'OTP',
    ]) {
      expect([k, isCredentialKey(k)]).toEqual([k, true]);
    }
    for (const k of ['tokenType', 'otpType', 'name', 'passwordPolicy', 'secretary']) {
      expect([k, isCredentialKey(k)]).toEqual([k, false]);
    }
  });

  test('declared personal-data fields are masked at any depth, case-insensitively; others are not', () => {
    const isSensitive = sensitiveKeyMatcher(['birthdate', 'Phone']);
    expect(maskField('birthDate', '1990-01-01', isSensitive)).toBe(MASK);
    expect(maskField('phone', null, isSensitive)).toBe(MASK);
    expect(maskNested({ familyMembers: [{ name: 'Bo', birthdate: '2010-02-02', PHONE: '555' }] }, isSensitive)).toEqual(
      {
        familyMembers: [{ name: 'Bo', birthdate: MASK, PHONE: MASK }],
      },
    );
    expect(maskField('birthdate', '1990-01-01', credentials)).toBe('1990-01-01');
  });

  test('masking does not change the input', () => {
    const input = { a: { password: 'p' } };
    maskNested(input, credentials);
    expect(input).toEqual({ a: { password: 'p' } });
  });

  test('a masked field still shows that it changed, and an unchanged one is not logged', () => {
    const isSensitive = sensitiveKeyMatcher(['phone']);
    const mask = (key: string, v: unknown) => maskField(key, v, isSensitive);
    const out = diffFields(
      { password: 'old', phone: '111', name: 'A', auth: { token: 't1', kind: 'x' } },
      { password: 'new', phone: '111', name: 'A', auth: { token: 't2', kind: 'x' } },
      { mask },
    );
    expect(out).toEqual([
      { key: 'password', operation: 'replace', oldValue: MASKED_JSON, newValue: MASKED_JSON },
      {
        key: 'auth',
        operation: 'replace',
        oldValue: '{"token":"***","kind":"x"}',
        newValue: '{"token":"***","kind":"x"}',
      },
    ]);
    expect(diffFields(null, { phone: '222' }, { mask })).toEqual([
      { key: 'phone', operation: 'add', newValue: MASKED_JSON },
    ]);
  });
});

describe('plain fields (data that is not personal, e.g. consent flags)', () => {
  const personal = sensitiveKeyMatcher(['email', 'phone']);
  const plain = new Set(['permissions']);

  test('declared personal names are not masked inside a plain field; credentials still are', () => {
    expect(maskField('permissions', { sms: true, email: false }, personal, plain)).toEqual({ sms: true, email: false });
    expect(maskField('permissions', { email: true, apiKey: 'k' }, personal, plain)).toEqual({
      email: true,
      apiKey: MASK,
    });
  });

  test('elsewhere the same names stay masked, at any depth', () => {
    expect(maskField('email', 'a@b.c', personal, plain)).toBe(MASK);
    expect(maskField('familyMembers', [{ email: 'k@b.c', phone: '1' }], personal, plain)).toEqual([
      { email: MASK, phone: MASK },
    ]);
    // without plain fields, consent flags named like personal data are masked (the old behaviour)
    expect(maskField('permissions', { sms: true, email: false }, personal)).toEqual({ sms: true, email: MASK });
  });
});
