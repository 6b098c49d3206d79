/** Member's erasure rules (classes/Member/erasure-rules.ts): the tombstone, field by field, the markers, the settings. */
import { ERASED } from '../../classes/_platform/personal-data';
import {
  erasedFamilyRef,
  erasedProfile,
  erasedRecordCount,
  erasedState,
  erasureSettingsFrom,
  familyRefHoldsValues,
  identifiers,
  identifiersOf,
  isErased,
  MARKER_PREFIX,
  markerKeyFrom,
  markerName,
} from '../../classes/Member/erasure-rules';
import { traceValues } from '../../classes/Member/subject-data-rules';
import type { FamilyMember, MemberPrivateState, MemberProfile } from '../../classes/Member/types';

const AT = '2026-03-01T10:00:00.000Z';

const family: FamilyMember = {
  id: 'dep-1',
  relation: 'Wife',
  memberSubType: 'mst-spouse',
  name: 'Bea',
  surname: 'Lovelace',
  status: 'active',
  createdAt: '2025-01-01T00:00:00.000Z',
};

function profile(over: Partial<MemberProfile> = {}): MemberProfile {
  return {
    id: 'm-1',
    status: 'active',
    name: 'Ada',
    middleName: 'Augusta',
    surname: 'Lovelace',
    staffId: 'E200',
    email: 'Ada@Example.com',
    phone: '+100',
    company: { id: 'c-1' },
    grade: 'G7',
    idPhoto: 'member_m-1_photo.png',
    loginMethod: 'email_password',
    address: { country: 'AE', address: '1 Main Street' },
    memberType: 'mt-perm',
    memberSubType: null,
    memberships: [
      {
        id: 'ms-1',
        tierId: 't-1',
        tierGroup: 'base',
        status: 'active',
        paymentType: 'company_paid',
        eligibilityRuleId: 'r-1',
        paymentPeriod: 'yearly',
        startDate: '2025-01-01',
        endDate: '2026-01-01',
        paymentSchedule: [],
        lastRenewal: null,
        createdBy: { id: 'pm-1', type: 'program_management_user', name: 'Back Office' },
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedAt: '2025-01-01T00:00:00.000Z',
        transitions: [
          {
            at: '2025-06-01T00:00:00.000Z',
            from: 'active',
            to: 'suspended',
            event: 'suspended',
            actor: { id: 'pm-1', type: 'program_management_user' },
            reason: 'Ada is on sick leave',
          },
        ],
      },
    ],
    primaryMemberId: null,
    relation: null,
    familyMembers: [family],
    createdBy: { id: 'pm-1', type: 'program_management_user' },
    note: 'prefers calls after 5',
    permissions: { sms: true, email: false },
    previousStaffIds: ['E100'],
    statusReason: 'back from leave',
    gender: 'F',
    maritalStatus: 'married',
    coreGrade: 'C1',
    dependantsExists: 'Y',
    lastDayOfService: null,
    isCabinCrew: false,
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedAt: '2025-06-01T00:00:00.000Z',
    ...over,
  };
}

describe('erasedProfile', () => {
  test('personal values become ERASED, null or absent; ids, company, types, memberships, consent and dates stay', () => {
    const p = profile();
    const erased = erasedProfile(p, AT);
    expect(erased).toEqual({
      id: 'm-1',
      status: 'inactive',
      name: ERASED,
      middleName: null,
      surname: ERASED,
      staffId: null,
      email: null,
      phone: null,
      company: { id: 'c-1' },
      grade: null,
      idPhoto: null,
      loginMethod: 'email_password',
      address: null,
      memberType: 'mt-perm',
      memberSubType: null,
      memberships: [
        {
          ...p.memberships[0],
          transitions: [{ ...p.memberships[0]!.transitions![0], reason: ERASED }],
        },
      ],
      primaryMemberId: null,
      relation: null,
      familyMembers: [
        {
          id: 'dep-1',
          relation: null,
          memberSubType: 'mst-spouse',
          name: ERASED,
          surname: ERASED,
          status: 'active',
          createdAt: family.createdAt,
        },
      ],
      createdBy: { id: 'pm-1', type: 'program_management_user' },
      note: null,
      permissions: { sms: true, email: false },
      previousStaffIds: [],
      statusReason: ERASED,
      createdAt: p.createdAt,
      updatedAt: AT,
    });
    // the input is not changed
    expect(p.name).toBe('Ada');
    expect(p.memberships[0]!.transitions![0]!.reason).toBe('Ada is on sick leave');
    const text = JSON.stringify(erased);
    for (const v of ['Ada', 'Augusta', 'Lovelace', 'E200', 'E100', 'Example.com', '+100', 'Main Street', 'G7', 'Bea'])
      expect([v, text.includes(v)]).toEqual([v, false]);
  });

  test('an erased member has no trace values: its ERASED names are nobody', () => {
    expect(traceValues(erasedProfile(profile(), AT))).toEqual([]);
  });

  test("a dependant keeps its primary member's id; its HR relationship goes", () => {
    const erased = erasedProfile(profile({ primaryMemberId: 'm-0', relation: 'Wife', staffId: null }), AT);
    expect(erased).toMatchObject({ primaryMemberId: 'm-0', relation: null });
  });
});

describe('erasedState', () => {
  test('keeps the erasure and the approvals and tasks records; drops documents, waiting changes, credentials, HR marks', () => {
    const state: MemberPrivateState = {
      profile: profile(),
      documents: [{ id: 'd-1' } as never],
      pendingPhoto: { approvalId: 'a-1' } as never,
      pendingChange: { approvalId: 'a-2', event: 'member_update', requestedAt: AT },
      previousIdPhoto: 'old.png',
      lastApprovalId: 'a-0',
      hrMemberIdRecordedAt: AT,
      creationSource: 'hr_registration',
      hrRegistrationFinishedAt: AT,
      hrRecordedAt: AT,
      heldHr: {
        kind: 'employee',
        body: { record: { name: 'Ada' } },
        companyId: 'c-1',
        approvalId: 'a-3',
        heldAt: AT,
        replaced: 0,
      },
      streamedAt: AT,
      credentials: { passwordHash: 'scrypt$x', passwordChangedAt: AT },
      lastSignInAt: AT,
      membershipChanges: {
        'ms-1': {
          approvalId: 'a-4',
          move: 'suspend',
          reason: 'Ada asked',
          requestedBy: { id: 'pm-1', type: 'program_management_user' },
          requestedAt: AT,
        },
      },
      settledMembershipApprovals: ['a-5'],
      membershipTasks: { 'ms-1': { remindedFor: '2026-01-01' } },
    };
    const erasure = { erasureId: 'er-1', erasedAt: AT, markers: ['erasedRef_x'] };
    expect(erasedRecordCount(state)).toBe(3);
    const next = erasedState(state, erasure, AT);
    expect(Object.keys(next).sort()).toEqual(
      ['erasure', 'lastApprovalId', 'membershipTasks', 'profile', 'settledMembershipApprovals'].sort(),
    );
    expect(next.erasure).toEqual(erasure);
    expect(isErased(next)).toBe(true);
    expect(isErased(state)).toBe(false);
    expect(erasedRecordCount({ profile: profile() })).toBe(2);
  });
});

describe('family links', () => {
  test('an erased link keeps id, sub type and date; it no longer holds values', () => {
    expect(familyRefHoldsValues(family)).toBe(true);
    const erased = erasedFamilyRef(family, 'inactive');
    expect(erased).toEqual({ ...family, relation: null, name: ERASED, surname: ERASED, status: 'inactive' });
    expect(familyRefHoldsValues(erased)).toBe(false);
  });
});

describe('markers', () => {
  const key = markerKeyFrom({ JWT_SECRET: 'a-secret-of-thirty-two-characters-or-more' });

  test('the identifiers a person had: staff ids, email, a dependant its own id; each once, blanks left out', () => {
    expect(identifiersOf(profile())).toEqual([
      { kind: 'staffId', value: 'E200' },
      { kind: 'staffId', value: 'E100' },
      { kind: 'email', value: 'Ada@Example.com' },
    ]);
    expect(
      identifiersOf(profile({ primaryMemberId: 'm-0', staffId: null, previousStaffIds: [], email: null })),
    ).toEqual([{ kind: 'dependantId', value: 'm-1' }]);
    expect(identifiers({ staffIds: ['E1', ' E1 ', null, '', ERASED], emails: ['a@x.com', 'A@X.COM'] })).toEqual([
      { kind: 'staffId', value: 'E1' },
      { kind: 'email', value: 'a@x.com' },
    ]);
  });

  test('a lookup name of the keyed hash: the value never in it, emails by their lower case, kinds apart, keys apart', () => {
    const name = markerName(key, { kind: 'email', value: 'Ada@Example.com' });
    expect(name).toMatch(/^erasedRef_[0-9a-f]{54}$/);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name.startsWith(MARKER_PREFIX)).toBe(true);
    expect(markerName(key, { kind: 'email', value: ' ada@example.COM ' })).toBe(name);
    expect(markerName(key, { kind: 'staffId', value: 'E1' })).not.toBe(
      markerName(key, { kind: 'dependantId', value: 'E1' }),
    );
    expect(markerName(key, { kind: 'staffId', value: 'E1' })).not.toBe(
      markerName(key, { kind: 'staffId', value: 'e1' }),
    );
    const otherKey = markerKeyFrom({ JWT_SECRET: 'another-secret-of-thirty-two-characters' });
    expect(markerName(otherKey, { kind: 'email', value: 'Ada@Example.com' })).not.toBe(name);
  });
});

describe('settings', () => {
  test('ERASED_MEMBERS_RETURN: refuse by default, allow, anything else stops the start', () => {
    expect(erasureSettingsFrom({ JWT_SECRET: 's' }).returnPolicy).toBe('refuse');
    expect(erasureSettingsFrom({ JWT_SECRET: 's', ERASED_MEMBERS_RETURN: ' Allow ' }).returnPolicy).toBe('allow');
    expect(erasureSettingsFrom({ JWT_SECRET: 's', ERASED_MEMBERS_RETURN: 'refuse' }).returnPolicy).toBe('refuse');
    expect(() => erasureSettingsFrom({ ERASED_MEMBERS_RETURN: 'sometimes' })).toThrow(/ERASED_MEMBERS_RETURN/);
  });

  test('the key: from JWT_SECRET, else OTP_SECRET, else a development key that production refuses', () => {
    const jwt = markerKeyFrom({ JWT_SECRET: 'jwt-secret' });
    expect(jwt.equals(markerKeyFrom({ JWT_SECRET: 'jwt-secret', OTP_SECRET: 'otp' }))).toBe(true);
    expect(jwt.equals(markerKeyFrom({ OTP_SECRET: 'otp-secret' }))).toBe(false);
    expect(markerKeyFrom({}).length).toBe(32);
    expect(() => markerKeyFrom({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
  });
});
