/** Pure rules of the HR contract (hr-contract.ts, hr-sync.ts). */
import { ActorError } from '../../runtime';
import { employeeRecord } from './support';
import {
  hrErrorShape,
  isCalendarDate,
  normalizeDependant,
  photoErrorShape,
  photoUploadFailed,
  toFieldMessages,
} from '../../classes/Member/hr-contract';
import {
  applyDependantRecord,
  applyEmployeeRecord,
  employeePushOutcome,
  employeeStatus,
} from '../../classes/Member/hr-sync';
import type { MemberProfile } from '../../classes/Member/types';
import type { HrUpdateEmployeeInput } from '../../schemas/Member/inputs';

const NOW = '2025-01-01T00:00:00.000Z';

function profile(over: Partial<MemberProfile> = {}): MemberProfile {
  return {
    id: 'm1',
    status: 'active',
    name: 'Ada',
    middleName: null,
    surname: 'Lovelace',
    staffId: 'S1',
    email: 's1@example.com',
    phone: '+1',
    company: { id: 'c-1' },
    grade: 'G1',
    idPhoto: null,
    loginMethod: 'sso',
    address: { country: 'AE', address: 'x' },
    memberType: 'mt',
    memberSubType: null,
    memberships: [],
    primaryMemberId: null,
    relation: null,
    familyMembers: [],
    createdBy: { id: 'system', type: 'system' },
    note: null,
    permissions: { sms: false, email: false },
    previousStaffIds: [],
    statusReason: null,
    gender: 'F',
    maritalStatus: 'single',
    coreGrade: 'C1',
    dependantsExists: 'N',
    lastDayOfService: null,
    createdAt: 'then',
    updatedAt: 'then',
    ...over,
  };
}

function record(over: Partial<HrUpdateEmployeeInput> = {}): HrUpdateEmployeeInput {
  return employeeRecord('S1', {
    phone: '+1',
    address: { country: 'AE', address: 'x' },
    birthdate: '1990-01-01',
    ...over,
  }) as unknown as HrUpdateEmployeeInput;
}

const input = (
  rec: HrUpdateEmployeeInput,
  over: Partial<{ memberTypeId: string; companyId: string; migrated: boolean }> = {},
) => ({
  record: rec,
  memberTypeId: 'mt',
  companyId: 'c-1',
  migrated: false,
  ...over,
});

describe('applyEmployeeRecord', () => {
  test('an identical record changes nothing, not even updatedAt (the same object comes back)', () => {
    const p = profile();
    const r = applyEmployeeRecord(p, input(record()), NOW);
    expect(r.updatedFields).toEqual([]);
    expect(r.profile).toBe(p);
  });

  test('changed fields in a fixed order; updatedAt moves', () => {
    const r = applyEmployeeRecord(
      profile(),
      input(record({ phone: '+2', name: 'B', grade: 'G2' }), { companyId: 'c-2', memberTypeId: 'mt2' }),
      NOW,
    );
    expect(r.updatedFields).toEqual(['name', 'phone', 'grade', 'memberType', 'company']);
    expect(r.profile).toMatchObject({
      name: 'B',
      phone: '+2',
      grade: 'G2',
      memberType: 'mt2',
      company: { id: 'c-2' },
      updatedAt: NOW,
    });
  });

  test('migration appends the old staff id once', () => {
    const r = applyEmployeeRecord(
      profile({ previousStaffIds: ['S0'] }),
      input(record({ employeeId: 'S2', oldStaffId: 'S1' }), { migrated: true }),
      NOW,
    );
    expect(r.updatedFields).toEqual(['staffId', 'previousStaffIds']);
    expect(r.profile).toMatchObject({ staffId: 'S2', previousStaffIds: ['S0', 'S1'] });
  });

  test('no migration unless found by the old staff id', () => {
    const r = applyEmployeeRecord(profile(), input(record({ oldStaffId: 'S0' })), NOW);
    expect(r.updatedFields).toEqual([]);
  });

  test('birthdate is never written', () => {
    const r = applyEmployeeRecord(profile(), input(record({ birthdate: '2000-01-01' })), NOW);
    expect(r.updatedFields).toEqual([]);
    expect(JSON.stringify(r.profile)).not.toContain('2000-01-01');
  });
});

describe('employeePushOutcome (the fast path: answered from a read, or written under the turn)', () => {
  const push = (
    rec: HrUpdateEmployeeInput,
    over: Partial<{ memberTypeId: string; companyId: string; foundBy: string; recordedAt: string }> = {},
  ) => ({
    record: rec,
    memberTypeId: 'mt',
    companyId: 'c-1',
    foundBy: 'S1',
    ...over,
  });
  const T1 = '2026-11-29T09:00:00.000Z';
  const T2 = '2026-11-29T10:00:00.000Z';

  test('an identical record is unchanged, with or without a time that is not newer', () => {
    expect(employeePushOutcome({ profile: profile(), held: false }, push(record()))).toBe('unchanged');
    expect(
      employeePushOutcome({ profile: profile(), hrRecordedAt: T2, held: false }, push(record(), { recordedAt: T2 })),
    ).toBe('unchanged');
  });

  test('a differing field, a move, a newer time, a held push or another staff id go to the write', () => {
    expect(employeePushOutcome({ profile: profile(), held: false }, push(record({ phone: '+2' })))).toBe('write');
    expect(employeePushOutcome({ profile: profile(), held: false }, push(record(), { companyId: 'c-2' }))).toBe(
      'write',
    );
    expect(employeePushOutcome({ profile: profile(), held: false }, push(record(), { memberTypeId: 'mt2' }))).toBe(
      'write',
    );
    expect(
      employeePushOutcome({ profile: profile(), hrRecordedAt: T1, held: false }, push(record(), { recordedAt: T2 })),
    ).toBe('write');
    expect(employeePushOutcome({ profile: profile(), held: false }, push(record(), { recordedAt: T2 }))).toBe('write');
    expect(employeePushOutcome({ profile: profile(), held: true }, push(record()))).toBe('write');
    expect(employeePushOutcome({ profile: profile({ staffId: 'S9' }), held: false }, push(record()))).toBe('write');
    expect(employeePushOutcome({ profile: profile(), held: false }, push(record({ status: 'terminated' })))).toBe(
      'write',
    );
  });

  test('an older record than one applied is stale, changed or not', () => {
    expect(
      employeePushOutcome(
        { profile: profile(), hrRecordedAt: T2, held: false },
        push(record({ phone: '+2' }), { recordedAt: T1 }),
      ),
    ).toBe('stale');
    // a move is decided under the turn, where the company checks come first
    expect(
      employeePushOutcome(
        { profile: profile(), hrRecordedAt: T2, held: false },
        push(record(), { recordedAt: T1, companyId: 'c-2' }),
      ),
    ).toBe('write');
  });
});

describe('employeeStatus', () => {
  test.each([
    ['active', 'terminated', 'Resigned', 'inactive', 'Resigned'],
    ['active', 'inactive', null, 'inactive', 'inactive'],
    ['inactive', 'active', null, 'active', null],
    ['pending_tier', 'active', null, 'pending_tier', 'kept'],
  ] as const)('%s + HR %s (%s) → %s / %s', (from, hr, reason, status, statusReason) => {
    expect(employeeStatus({ status: from, statusReason: 'kept' }, { status: hr, leavingReason: reason })).toEqual({
      status,
      statusReason,
    });
  });
});

describe('dependants', () => {
  test('normalisation: blank email → null, blank/null/omitted phone → unchanged, status any case', () => {
    const base = { id: 'd', employeeId: 'S', name: 'n', surname: 's', type: ' Spouse ', birthdate: '2000-01-01' };
    expect(normalizeDependant({ ...base, status: 'IN-ACTIVE', email: '  ', phone: ' ' })).toMatchObject({
      status: 'in-active',
      email: null,
      phone: undefined,
      type: 'Spouse',
    });
    expect(normalizeDependant({ ...base, status: 'active', email: ' a@b.c ', phone: null })).toMatchObject({
      status: 'active',
      email: 'a@b.c',
      phone: undefined,
    });
    expect(normalizeDependant({ ...base, status: 'Active', email: null })).toMatchObject({ phone: undefined });
  });

  test('applyDependantRecord leaves the phone when undefined', () => {
    const p = profile({ primaryMemberId: 'm0', staffId: null, relation: 'spouse', phone: '+9' });
    const rec = {
      id: 'm1',
      employeeId: 'S',
      status: 'active' as const,
      name: 'Ada',
      surname: 'Lovelace',
      email: 's1@example.com',
      phone: undefined,
      type: 'spouse',
    };
    expect(applyDependantRecord(p, { record: rec, memberSubTypeId: null }, NOW).updatedFields).toEqual([]);
    expect(
      applyDependantRecord(p, { record: { ...rec, phone: '+8' }, memberSubTypeId: 'st' }, NOW).updatedFields,
    ).toEqual(['phone', 'memberSubType']);
  });
});

describe('contract helpers', () => {
  test('isCalendarDate', () => {
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('2023-02-29')).toBe(false);
    expect(isCalendarDate('2023-04-31')).toBe(false);
    expect(isCalendarDate('2023-00-10')).toBe(false);
    expect(isCalendarDate('2023-01-10T24:00:00')).toBe(false);
    expect(isCalendarDate('2023-01-10T23:59:59.999Z')).toBe(true);
  });

  test('field messages: one list per field, duplicates merged, empty wins', () => {
    expect(
      toFieldMessages(
        [
          { field: 'name', reason: 'must NOT have fewer than 1 characters' },
          { field: 'name', reason: 'must match pattern "\\S"' },
          { field: 'address.country', reason: 'is required' },
        ],
        'employee',
      ),
    ).toEqual({ name: ['must not be empty'], 'address.country': ['is required'] });
  });

  test('hrErrorShape maps runtime errors to the 7.2 envelope', () => {
    const shape = hrErrorShape('employee');
    expect(shape(new ActorError(401, 1007, 'x')).toBody()).toEqual({
      success: false,
      error: { code: 10072, message: 'Invalid or missing API key' },
    });
    expect(shape(new ActorError(403, 1008, 'x')).status).toBe(401);
    expect(shape(new ActorError(504, 1011, 'x')).toBody()).toEqual({
      success: false,
      error: { code: 10000, message: 'Internal server error, please retry later' },
    });
    const busy = shape(new ActorError(503, 1012, 'x'));
    expect([busy.status, busy.toBody()]).toEqual([
      503,
      { success: false, error: { code: 10000, message: 'Service unavailable, please retry later' } },
    ]);
  });

  test('photoErrorShape keeps {code, message}', () => {
    expect(photoErrorShape(new ActorError(404, 1005, 'no method')).toBody()).toEqual({
      code: 1005,
      message: 'no method',
    });
  });

  test('photoUploadFailed: 400 for a refused file, 500 for a store failure', () => {
    expect(photoUploadFailed(new ActorError(400, 13004, 'mismatch')).status).toBe(400);
    expect(photoUploadFailed(new ActorError(500, 13014, 'store')).status).toBe(500);
    expect(photoUploadFailed(new Error('boom')).status).toBe(500);
    expect(photoUploadFailed(new ActorError(400, 13004, 'mismatch')).toBody()).toEqual({
      code: 10018,
      message: 'Employee photo upload failed',
      details: { message: 'mismatch', code: 13004 },
    });
  });
});
