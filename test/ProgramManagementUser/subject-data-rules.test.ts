/**
 * ProgramManagementUser's part of a data subject's export, pure
 * (classes/ProgramManagementUser/subject-data-rules.ts): the subject's
 * instance, the secrets left out of the state, the records and the company.
 */
import {
  exportedUserState,
  subjectUserId,
  traceValues,
  USER_SECRET_FIELDS,
  userSubjectData,
} from '../../classes/ProgramManagementUser/subject-data-rules';
import type { UserState } from '../../classes/ProgramManagementUser/types';

const HASH = 'scrypt$16384$8$1$c2FsdA$aGFzaC1vZi10aGUtcGFzc3dvcmQ';

const state = (companyId: string | null = 'c-1'): UserState => ({
  user: {
    id: 'u1',
    email: 'ann@example.com',
    name: 'Ann',
    type: companyId ? 'company' : 'internal',
    companyId,
    loginMethod: 'email_password',
    roles: ['viewer'],
    developer: false,
    status: 'active',
    createdBy: { id: 'system', type: 'system' },
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    invitedAt: '2026-01-01T00:00:00.000Z',
    acceptedAt: '2026-01-02T00:00:00.000Z',
    lastLoginAt: '2026-01-03T00:00:00.000Z',
  },
  credentials: { passwordHash: HASH, passwordChangedAt: '2026-01-02T00:00:00.000Z' },
  pendingApproval: null,
  lastSettledApprovalId: 'a-1',
  lastReview: null,
  sessionsValidAfter: '2026-01-02T00:00:00.000Z',
});

describe('subjectUserId', () => {
  test('a back-office user names its instance; other subjects none', () => {
    expect(subjectUserId({ type: 'program_management_user', id: 'u-1' })).toBe('u-1');
    expect(subjectUserId({ type: 'member', id: 'u-1' })).toBeUndefined();
    expect(subjectUserId({ type: 'partner_user', id: 'u-1' })).toBeUndefined();
  });

  test('a lookup address or an id the runtime would refuse names no user', () => {
    expect(subjectUserId({ type: 'program_management_user', id: 'email!ann@example.com' })).toBeUndefined();
    expect(subjectUserId({ type: 'program_management_user', id: 'a b' })).toBeUndefined();
  });
});

describe('exportedUserState', () => {
  test('the password hash is left out; when the password changed, and everything else, is kept', () => {
    const stored = state();
    const out = exportedUserState(stored);
    expect(USER_SECRET_FIELDS).toEqual(['credentials.passwordHash']);
    expect(out.credentials).toEqual({ passwordChangedAt: '2026-01-02T00:00:00.000Z' });
    expect(JSON.stringify(out)).not.toContain(HASH);
    const { credentials: _c, ...rest } = stored;
    expect(out).toMatchObject(rest);
  });

  test('the stored state is not touched', () => {
    const stored = state();
    const out = exportedUserState(stored);
    out.user.roles.push('changed');
    expect(stored.credentials.passwordHash).toBe(HASH);
    expect(stored.user.roles).toEqual(['viewer']);
  });

  test('a state without credentials (never given a password) exports empty ones', () => {
    const { credentials: _c, ...rest } = state();
    expect(exportedUserState(rest as UserState).credentials).toEqual({ passwordChangedAt: null });
  });
});

describe('userSubjectData', () => {
  test('the state and the listing document (without the store fields), and the company', () => {
    const exported = exportedUserState(state());
    const doc = { _id: 'u1', _v: 3, _instance: 'u1', _class: 'ProgramManagementUser', id: 'u1', search: 'ann' };
    expect(userSubjectData('u1', exported, doc)).toEqual({
      records: [
        { store: 'state', classId: 'ProgramManagementUser', instanceId: 'u1', kind: 'user', data: exported },
        {
          store: 'listing',
          classId: 'ProgramManagementUser',
          instanceId: 'u1',
          kind: 'userDocument',
          data: { id: 'u1', search: 'ann' },
        },
      ],
      files: [],
      companyId: 'c-1',
      values: ['Ann', 'ann@example.com'],
    });
  });

  test('an internal user belongs to no company; a user not streamed yet has no listing record', () => {
    const out = userSubjectData('u1', exportedUserState(state(null)), null);
    expect(out.companyId).toBeNull();
    expect(out.records.map((r) => r.store)).toEqual(['state']);
  });
});

describe('traceValues', () => {
  test('the name and the email, each once, none blank', () => {
    const { user } = state();
    expect(traceValues(user)).toEqual(['Ann', 'ann@example.com']);
    expect(traceValues({ ...user, name: 'ann@example.com' })).toEqual(['ann@example.com']);
    expect(traceValues({ ...user, name: ' ' })).toEqual(['ann@example.com']);
  });
});
