/**
 * Otp's part of a data subject's export and erasure, pure
 * (classes/Otp/subject-data-rules.ts): the instance holding the subject's
 * OTPs, the secret left out of a record, the records the export gets, and the
 * records once cleared.
 */
import {
  clearedRecords,
  exportedOtpRecord,
  OTP_SECRET_FIELDS,
  otpSubjectRecords,
  subjectOtpInstanceId,
} from '../../classes/Otp/subject-data-rules';
import type { OtpRecord } from '../../classes/Otp/types';

const record = (): OtpRecord => ({
  id: 'r1',
  otpType: 'login',
  token: 'hmac-sha256:c2VjcmV0LWRpZ2VzdA',
  tokenType: 'numeric',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T00:05:00.000Z',
  usedAt: '2026-01-01T00:01:00.000Z',
  additionalData: { source: 'password' },
  history: [
    {
      timestamp: '2026-01-01T00:00:30.000Z',
      isSuccessful: false,
      validationResult: 'invalid_token',
      requestedBy: 'a@example.com',
      requesterDetails: { identity: 'member_otp', ipAddress: '203.0.113.7' },
    },
    {
      timestamp: '2026-01-01T00:01:00.000Z',
      isSuccessful: true,
      requestedBy: 'a@example.com',
      requesterDetails: { identity: 'member_otp' },
    },
  ],
});

describe('subjectOtpInstanceId', () => {
  test('a member is Member_<id>, a back-office user ProgramManagementUser_<id>, a partner user has none', () => {
    expect(subjectOtpInstanceId({ type: 'member', id: 'm-1' })).toBe('Member_m-1');
    expect(subjectOtpInstanceId({ type: 'program_management_user', id: 'p-1' })).toBe('ProgramManagementUser_p-1');
    expect(subjectOtpInstanceId({ type: 'partner_user', id: 'pu-1' })).toBeUndefined();
  });

  test('an id no Otp instance can have (a lookup address, a space) reads nothing', () => {
    expect(subjectOtpInstanceId({ type: 'member', id: 'email!a@b.example' })).toBeUndefined();
    expect(subjectOtpInstanceId({ type: 'member', id: 'a b' })).toBeUndefined();
  });
});

describe('exportedOtpRecord', () => {
  test('the token HMAC is left out; when, the checks, their outcomes and who asked are kept', () => {
    const stored = record();
    const out = exportedOtpRecord(stored);
    expect(OTP_SECRET_FIELDS).toEqual(['token']);
    expect(out).not.toHaveProperty('token');
    expect(JSON.stringify(out)).not.toContain(stored.token.slice('hmac-sha256:'.length));
    const { token: _secret, ...rest } = stored;
    expect(out).toEqual(rest);
  });

  test('the stored record is not touched', () => {
    const stored = record();
    const out = exportedOtpRecord(stored);
    out.history[0].requestedBy = 'changed';
    expect(stored.token).toMatch(/^hmac-sha256:/);
    expect(stored.history[0].requestedBy).toBe('a@example.com');
  });
});

describe('otpSubjectRecords', () => {
  test('one record per OTP, store otp, kind otpRecord', () => {
    const exported = [exportedOtpRecord(record()), exportedOtpRecord({ ...record(), id: 'r2', history: [] })];
    expect(otpSubjectRecords('Member_m-1', exported)).toEqual([
      { store: 'otp', classId: 'Otp', instanceId: 'Member_m-1', kind: 'otpRecord', data: exported[0] },
      { store: 'otp', classId: 'Otp', instanceId: 'Member_m-1', kind: 'otpRecord', data: exported[1] },
    ]);
  });
});

describe('clearedRecords', () => {
  test('every record goes with its checks, counted one per OTP as the export counts them', () => {
    const records = [record(), { ...record(), id: 'r2', history: [] }];
    expect(clearedRecords(records)).toEqual({ records: [], removed: 2 });
  });

  test('nothing to clear: zero', () => {
    expect(clearedRecords([])).toEqual({ records: [], removed: 0 });
  });

  test('the records given are not changed', () => {
    const records = [record()];
    clearedRecords(records);
    expect(records[0]).toEqual(record());
  });
});
