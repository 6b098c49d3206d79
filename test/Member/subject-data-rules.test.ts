/**
 * Member's personal-data export, the pure part (subject-data-rules.ts): the
 * secrets left out, the records the instance gives, which HR ledger entries
 * are about the member, its dependants and company.
 */
import type { JournalEntry } from '../../runtime';
import {
  exportableState,
  instanceRecords,
  ledgerEntryConcerns,
  ledgerRecords,
  mayBeMemberId,
  relatedSubjects,
  staffIdsOf,
  subjectCompany,
  traceValues,
  withoutSecrets,
} from '../../classes/Member/subject-data-rules';
import type { HeldHrPush, MemberPrivateState, MemberProfile } from '../../classes/Member/types';

const HASH = 'scrypt$16384$8$1$c2FsdA$a2V5';

function profile(overrides: Partial<MemberProfile> = {}): MemberProfile {
  return {
    id: 'm-1',
    status: 'active',
    name: 'Ada',
    middleName: null,
    surname: 'Lovelace',
    staffId: 'E1',
    email: 'ada@example.com',
    phone: '+100',
    company: { id: 'c-1' },
    grade: 'G1',
    idPhoto: null,
    loginMethod: 'email_password',
    address: null,
    memberType: 'mt-perm',
    memberSubType: null,
    memberships: [],
    primaryMemberId: null,
    relation: null,
    familyMembers: [],
    createdBy: { id: 'pm1', type: 'program_management_user' },
    note: null,
    permissions: { sms: true, email: false },
    previousStaffIds: [],
    statusReason: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

const held: HeldHrPush = {
  kind: 'employee',
  body: { record: { employeeId: 'E1', status: 'terminated' }, foundBy: 'E1' },
  companyId: 'c-1',
  approvalId: 'ap-1',
  heldAt: '2026-02-01T00:00:00.000Z',
  replaced: 0,
};

function entry(id: string, data: Record<string, string>): JournalEntry {
  return {
    id,
    at: new Date(Number(id.split('-')[0])).toISOString(),
    classId: 'Member',
    method: 'hrUpdateEmployee',
    caller: { type: 'integration_user', id: 'key-1' },
    status: 200,
    durationMs: 3,
    data,
  };
}

describe('secrets', () => {
  test('the password hash stays in the instance; when the password was set is kept', () => {
    const state: MemberPrivateState = {
      profile: profile(),
      credentials: { passwordHash: HASH, passwordChangedAt: '2026-01-02T00:00:00.000Z' },
      lastSignInAt: '2026-01-03T00:00:00.000Z',
    };
    const out = exportableState(state);
    expect(out).toEqual({
      profile: state.profile,
      credentials: { passwordChangedAt: '2026-01-02T00:00:00.000Z' },
      lastSignInAt: '2026-01-03T00:00:00.000Z',
    });
    expect(JSON.stringify(out)).not.toContain(HASH);
    // the state itself is not changed
    expect(state.credentials?.passwordHash).toBe(HASH);
  });

  test('no credentials, nothing made up; the held push is not part of the state record', () => {
    expect(exportableState({ profile: profile(), credentials: null, heldHr: held })).toEqual({ profile: profile() });
  });

  test('tokens, passwords and codes are left out at any depth; other values as they are', () => {
    expect(
      withoutSecrets({
        a: 1,
        token: 't',
        nested: [
          { accessToken: 'x', refreshToken: 'y', keep: null, deeper: { otp: '123456', password: 'p', ok: 'v' } },
        ],
        SAMLResponse: 's',
        secret: 'z',
        passwordHash: HASH,
      }),
    ).toEqual({ a: 1, nested: [{ keep: null, deeper: { ok: 'v' } }] });
    expect(withoutSecrets('text')).toBe('text');
    expect(withoutSecrets(null)).toBeNull();
  });
});

describe('the records of the instance', () => {
  test('the state (kind member) and, when one waits, the held HR push (store hr)', () => {
    const state: MemberPrivateState = { profile: profile(), heldHr: held };
    expect(instanceRecords('m-1', state)).toEqual([
      { store: 'state', classId: 'Member', instanceId: 'm-1', kind: 'member', data: { profile: profile() } },
      { store: 'hr', classId: 'Member', instanceId: 'm-1', kind: 'heldHrPush', data: held },
    ]);
    expect(instanceRecords('m-1', { profile: profile() })).toHaveLength(1);
  });

  test('dependants as subjects; the company, or null', () => {
    const family = [
      {
        id: 'd-1',
        relation: 'spouse',
        memberSubType: null,
        name: 'B',
        surname: 'L',
        status: 'active' as const,
        createdAt: '',
      },
      {
        id: 'd-2',
        relation: 'child',
        memberSubType: null,
        name: 'C',
        surname: 'L',
        status: 'inactive' as const,
        createdAt: '',
      },
    ];
    expect(relatedSubjects(profile({ familyMembers: family }))).toEqual([
      { type: 'member', id: 'd-1' },
      { type: 'member', id: 'd-2' },
    ]);
    expect(relatedSubjects(profile())).toEqual([]);
    expect(subjectCompany(profile())).toBe('c-1');
    expect(subjectCompany(profile({ company: undefined as unknown as { id: string } }))).toBeNull();
  });

  test('the values traces are found by: names, full name, email, phone, staff ids, each once', () => {
    expect(traceValues(profile({ middleName: 'King', previousStaffIds: ['E0'] }))).toEqual([
      'Ada King Lovelace',
      'Ada',
      'King',
      'Lovelace',
      'ada@example.com',
      '+100',
      'E1',
      'E0',
    ]);
    // a dependant: no staff id, no email; nothing empty
    expect(traceValues(profile({ staffId: null, email: null, phone: ' ', surname: 'Ada' }))).toEqual([
      'Ada Ada',
      'Ada',
    ]);
  });

  test('an id with `!` is a lookup, never a member id', () => {
    expect(mayBeMemberId('3f1c0a4e-0000-4000-8000-000000000000')).toBe(true);
    expect(mayBeMemberId('dep_1-a')).toBe(true);
    expect(mayBeMemberId('staffId!E1')).toBe(false);
  });
});

describe('the HR ledger', () => {
  test('staff ids: the current one and those given up, once each', () => {
    expect(staffIdsOf({ staffId: 'E2', previousStaffIds: ['E1', 'E2'] })).toEqual(['E2', 'E1']);
    expect(staffIdsOf({ staffId: null, previousStaffIds: [] })).toEqual([]);
  });

  test("an employee's own pushes are its; a dependant's are the dependant's", () => {
    const employee = { id: 'm-1', isDependant: false };
    const dependant = { id: 'd-1', isDependant: true };
    const own = entry('1-0', { endpoint: 'employee', employeeId: 'E1' });
    const photo = entry('2-0', { endpoint: 'photo', employeeId: 'E1' });
    const ofD1 = entry('3-0', { endpoint: 'dependant', employeeId: 'E1', dependantId: 'd-1' });
    const ofD2 = entry('4-0', { endpoint: 'dependant', employeeId: 'E1', dependantId: 'd-2' });
    expect([own, photo, ofD1, ofD2].map((e) => ledgerEntryConcerns(e, employee))).toEqual([true, true, false, false]);
    expect([own, photo, ofD1, ofD2].map((e) => ledgerEntryConcerns(e, dependant))).toEqual([false, false, true, false]);
  });

  test('records: the entries about the member, each once, newest first (by the ids as numbers)', () => {
    const a = entry('1700000000000-9', { endpoint: 'employee', employeeId: 'E1' });
    const b = entry('1700000000000-10', { endpoint: 'photo', employeeId: 'E1' });
    const c = entry('1600000000000-0', { endpoint: 'employee', employeeId: 'E0' });
    const other = entry('1800000000000-0', { endpoint: 'dependant', employeeId: 'E1', dependantId: 'd-1' });
    const records = ledgerRecords('m-1', false, [a, c, other, b, a]);
    expect(records.map((r) => (r.data as JournalEntry).id)).toEqual([
      '1700000000000-10',
      '1700000000000-9',
      '1600000000000-0',
    ]);
    expect(records[0]).toEqual({ store: 'hr', classId: 'Member', instanceId: 'm-1', kind: 'hrLedgerEntry', data: b });
  });
});
