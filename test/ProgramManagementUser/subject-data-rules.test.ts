/**
 * ProgramManagementUser's part of a data subject's export and erasure, pure
 * (classes/ProgramManagementUser/subject-data-rules.ts): the subject's
 * instance, the secrets left out of the state, the records and the company,
 * and the state once erased (with the rules that refuse an erased user).
 */
import {
  identityOf,
  mayAcceptInvitation,
  mayUsePassword,
  mayUseSso,
  userDocument,
} from '../../classes/ProgramManagementUser/rules';
import {
  ERASED_USER_FIELDS,
  erasedRecordCount,
  erasedUserState,
  exportedUserState,
  isErased,
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

describe('erasedUserState', () => {
  const AT = '2026-05-01T00:00:00.000Z';
  const waiting = (): UserState => ({
    ...state(),
    pendingApproval: { id: 'a-2', event: 'user_update', requestedStatus: 'active' },
    lastReview: {
      approvalId: 'a-1',
      event: 'user_update',
      action: 'approve',
      outcome: 'conflict',
      reason: 'another user holds the email now',
      by: 'pm-approver',
      at: '2026-01-04T00:00:00.000Z',
    },
  });

  test('name and email become ERASED; what tells of its use goes; the account facts stay', () => {
    const out = erasedUserState(waiting(), 'e-1', AT);
    expect(ERASED_USER_FIELDS).toEqual(['name', 'email']);
    expect(out.user).toEqual({
      ...state().user,
      name: '[erased]',
      email: '[erased]',
      status: 'inactive',
      invitedAt: null,
      acceptedAt: null,
      lastLoginAt: null,
      updatedAt: AT,
      erasedAt: AT,
      erasureId: 'e-1',
    });
    const json = JSON.stringify(out);
    for (const value of ['Ann', 'ann@example.com', HASH]) expect(json).not.toContain(value);
  });

  test('the credentials and the change waiting for an approval go; sessions before now are refused', () => {
    const out = erasedUserState(waiting(), 'e-1', AT);
    expect(out.credentials).toEqual({ passwordHash: null, passwordChangedAt: null });
    expect(out.pendingApproval).toBeNull();
    expect(out.sessionsValidAfter).toBe(AT);
  });

  test('the last review keeps its facts and redelivery guard, not its free-text reason', () => {
    const out = erasedUserState(waiting(), 'e-1', AT);
    expect(out.lastSettledApprovalId).toBe('a-1');
    expect(out.lastReview).toEqual({
      approvalId: 'a-1',
      event: 'user_update',
      action: 'approve',
      outcome: 'conflict',
      by: 'pm-approver',
      at: '2026-01-04T00:00:00.000Z',
    });
    expect(erasedUserState(state(), 'e-1', AT).lastReview).toBeNull();
  });

  test('the state given is not changed', () => {
    const stored = waiting();
    erasedUserState(stored, 'e-1', AT);
    expect(stored).toEqual(waiting());
  });
});

describe('an erased user', () => {
  const erased = () => erasedUserState(state(), 'e-1', '2026-05-01T00:00:00.000Z');

  test('is marked erased; a user never erased is not', () => {
    expect(isErased(erased().user)).toBe(true);
    expect(isErased(state().user)).toBe(false);
    expect(isErased(null)).toBe(false);
  });

  test('is no session and signs in no way, whatever its status says', () => {
    const e = erased();
    expect(identityOf(e)).toEqual({ active: false, roles: [] });
    // even were its status set back, the mark refuses it
    for (const status of ['active', 'pending'] as const) {
      const u = { ...e.user, status, invitedAt: '2026-01-01T00:00:00.000Z', acceptedAt: null };
      expect(identityOf({ ...e, user: u }).active).toBe(false);
      expect(mayUsePassword(u)).toBe(false);
      expect(mayAcceptInvitation(u)).toBe(false);
      expect(mayUseSso({ ...u, loginMethod: 'sso' })).toBe(false);
    }
  });

  test('its listing document holds no personal value, in its search column neither, and says it is erased', () => {
    const doc = userDocument(erased().user, null);
    expect(doc).toMatchObject({ name: '[erased]', email: '[erased]', search: '[erased] [erased]', status: 'inactive' });
    expect(doc.erasedAt).toBe('2026-05-01T00:00:00.000Z');
    expect(JSON.stringify(doc)).not.toMatch(/ann/i);
    expect(userDocument(state().user, null)).not.toHaveProperty('erasedAt');
  });

  test("has no trace values left: ERASED is no one's value", () => {
    expect(traceValues(erased().user)).toEqual([]);
  });
});

describe('erasedRecordCount', () => {
  test('the state, and the listing document when one is streamed; nothing when erased before', () => {
    expect(erasedRecordCount(true, true)).toBe(2);
    expect(erasedRecordCount(true, false)).toBe(1);
    expect(erasedRecordCount(false, true)).toBe(0);
    expect(erasedRecordCount(false, false)).toBe(0);
  });
});
