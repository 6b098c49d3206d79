/** ProgramManagementUser's pure rules (classes/ProgramManagementUser/rules.ts). */
import { schemaRefusal } from '../support/schema-check';
import {
  applyUserUpdate,
  buildListFilter,
  companyRefusal,
  identityOf,
  mayAcceptInvitation,
  mayUsePassword,
  mayUseSso,
  newUser,
  normalizeEmail,
  listQuery,
  permissionsOf,
  privilegeRefusal,
  scopeProblems,
  statusMove,
  unknownRoles,
  userDocument,
  type CallerPower,
  answeredUser,
} from '../../classes/ProgramManagementUser/rules';
import type { ProgramManagementUserRecord } from '../../classes/ProgramManagementUser/types';
import type { HeldRole } from '../../classes/_platform/permissions';

const schemaCheck = (method: string, raw: Record<string, unknown>) =>
  schemaRefusal('ProgramManagementUser', method, raw);

const T0 = '2026-01-01T00:00:00.000Z';
const actor = { id: 'maker', type: 'program_management_user' as const };

function user(over: Partial<ProgramManagementUserRecord> = {}): ProgramManagementUserRecord {
  return {
    ...newUser(
      {
        email: ' Ann@Example.COM ',
        name: ' Ann ',
        type: 'internal',
        loginMethod: 'email_password',
        roles: ['viewer', 'viewer'],
      },
      actor,
      T0,
      'u-1',
    ),
    ...over,
  };
}

const viewer: HeldRole = {
  id: 'r-viewer',
  name: 'viewer',
  level: 10,
  permissions: { Tier: ['getTier', 'listTiers'] },
  status: 'active',
};
const editor: HeldRole = {
  id: 'r-editor',
  name: 'editor',
  level: 10,
  permissions: { Tier: ['getTier', 'listTiers', 'updateTier'] },
  status: 'active',
};
const superRole: HeldRole = { id: 'super', name: 'super', level: 1, permissions: {}, status: 'active' };

const holdingViewer: CallerPower = {
  holding: { all: false, permissions: { Tier: ['getTier', 'listTiers'] } },
  developer: false,
  userId: 'me',
};
const holdingAll: CallerPower = { holding: { all: true }, developer: false, userId: 'me' };

describe('records', () => {
  test('a new user: email lower-cased and trimmed, name trimmed, roles once each, pending, no company for internal users', () => {
    const u = user();
    expect(u).toMatchObject({
      id: 'u-1',
      email: 'ann@example.com',
      name: 'Ann',
      roles: ['viewer'],
      status: 'pending',
      companyId: null,
      developer: false,
      invitedAt: null,
    });
    expect(normalizeEmail('  X@Y.Z ')).toBe('x@y.z');
    const c = newUser(
      { email: 'c@x.io', name: 'C', type: 'company', companyId: 'c-1', loginMethod: 'sso', roles: [], developer: true },
      actor,
      T0,
      'u-2',
    );
    expect([c.companyId, c.developer]).toEqual(['c-1', true]);
  });

  test('a company user names its company, an internal user none', () => {
    expect(scopeProblems('company', undefined)).toEqual([
      { field: 'companyId', reason: 'is required for a company user' },
    ]);
    expect(scopeProblems('internal', 'c-1')).toHaveLength(1);
    expect(scopeProblems('company', 'c-1')).toEqual([]);
    expect(scopeProblems('internal', null)).toEqual([]);
  });

  test('an update names the fields it changes; becoming internal drops the company; no change is no change', () => {
    const c = user({ type: 'company', companyId: 'c-1' });
    const { next, changed } = applyUserUpdate(c, { type: 'internal', name: 'Ann' }, '2026-02-01T00:00:00.000Z');
    expect(changed.sort()).toEqual(['companyId', 'type']);
    expect([next.companyId, next.updatedAt]).toEqual([null, '2026-02-01T00:00:00.000Z']);
    const same = applyUserUpdate(c, { email: 'ANN@example.com', roles: ['viewer'] }, '2026-02-01T00:00:00.000Z');
    expect(same.changed).toEqual([]);
    expect(same.next.updatedAt).toBe(T0);
  });

  test('status: any of the three, not the same one', () => {
    expect(statusMove('pending', 'active')).toEqual({ ok: true, to: 'active' });
    expect(statusMove('active', 'inactive')).toEqual({ ok: true, to: 'inactive' });
    expect(statusMove('inactive', 'pending')).toEqual({ ok: true, to: 'pending' });
    expect(statusMove('active', 'active').ok).toBe(false);
    expect(statusMove('active', 'deleted').ok).toBe(false);
  });

  test('unknown roles are those no role has as id or name', () => {
    expect(unknownRoles(['viewer', 'r-editor', 'ghost', 'ghost'], [viewer, editor])).toEqual(['ghost']);
  });
});

describe('no privilege beyond your own', () => {
  const create = (next: ProgramManagementUserRecord, granted: HeldRole[] = [viewer]) => ({
    kind: 'create' as const,
    old: null,
    next,
    grantedRoles: granted,
    heldRoles: [],
  });

  test('a user may give roles whose permissions it holds, and not others', () => {
    expect(privilegeRefusal(create(user()), holdingViewer)).toBeNull();
    const r = privilegeRefusal(create(user({ roles: ['editor'] }), [editor]), holdingViewer);
    expect(r).toMatchObject({ error: 'PM_USER_PERMISSION_NOT_HELD', details: { notHeld: ['Tier.updateTier'] } });
    expect(privilegeRefusal(create(user({ roles: ['editor'] }), [editor]), holdingAll)).toBeNull();
  });

  test('a level-1 role is given only by a caller holding everything', () => {
    expect(privilegeRefusal(create(user({ roles: ['super'] }), [superRole]), holdingViewer)).toMatchObject({
      error: 'PM_USER_LEVEL_NOT_HELD',
    });
    expect(privilegeRefusal(create(user({ roles: ['super'] }), [superRole]), holdingAll)).toBeNull();
  });

  test('a user who can do more than the caller cannot be changed by it, even its name or status', () => {
    const old = user({ id: 'u-9', roles: ['editor'], status: 'active' });
    const rename = {
      kind: 'update' as const,
      old,
      next: { ...old, name: 'Other' },
      grantedRoles: [editor],
      heldRoles: [editor],
    };
    expect(privilegeRefusal(rename, holdingViewer)).toMatchObject({ error: 'PM_USER_PERMISSION_NOT_HELD' });
    const off = {
      kind: 'status' as const,
      old,
      next: { ...old, status: 'inactive' as const },
      grantedRoles: [editor],
      heldRoles: [editor],
    };
    expect(privilegeRefusal(off, holdingViewer)).toMatchObject({ error: 'PM_USER_PERMISSION_NOT_HELD' });
  });

  test('only a developer makes, unmakes or changes a developer', () => {
    expect(privilegeRefusal(create(user({ developer: true })), holdingAll)).toMatchObject({
      error: 'PM_USER_DEVELOPER_ONLY',
    });
    expect(privilegeRefusal(create(user({ developer: true })), { ...holdingAll, developer: true })).toBeNull();
    const dev = user({ id: 'u-dev', developer: true, status: 'active' });
    const off = {
      kind: 'status' as const,
      old: dev,
      next: { ...dev, status: 'inactive' as const },
      grantedRoles: [],
      heldRoles: [],
    };
    expect(privilegeRefusal(off, holdingAll)).toMatchObject({ error: 'PM_USER_DEVELOPER_ONLY' });
  });

  test('nobody changes its own status or anything of its own but its name', () => {
    const me = user({ id: 'me', status: 'active', roles: ['viewer'] });
    const self = (next: ProgramManagementUserRecord, kind: 'update' | 'status' = 'update') => ({
      kind,
      old: me,
      next,
      grantedRoles: [viewer],
      heldRoles: [viewer],
    });
    expect(privilegeRefusal(self({ ...me, name: 'New name' }), holdingViewer)).toBeNull();
    expect(privilegeRefusal(self({ ...me, roles: ['viewer', 'x'] }), holdingAll)).toMatchObject({
      error: 'PM_USER_SELF_EDIT',
      details: { fields: ['roles'] },
    });
    expect(privilegeRefusal(self({ ...me, status: 'inactive' }, 'status'), holdingAll)).toMatchObject({
      error: 'PM_USER_SELF_EDIT',
      details: { fields: ['status'] },
    });
  });
});

describe('permissions and identity', () => {
  const catalogue = { Tier: ['getTier', 'listTiers', 'updateTier'], Company: ['getCompany'] };

  test('a level-1 role gives the whole catalogue; level-10 roles the union of theirs, within the catalogue', () => {
    expect(permissionsOf([superRole], catalogue)).toEqual({
      level: 1,
      permissions: { Company: ['getCompany'], Tier: ['getTier', 'listTiers', 'updateTier'] },
    });
    const gone = { ...viewer, permissions: { Tier: ['listTiers', 'removed'], Ghost: ['x'] } };
    expect(permissionsOf([gone, editor], catalogue)).toEqual({
      level: 10,
      permissions: { Tier: ['getTier', 'listTiers', 'updateTier'] },
    });
    expect(permissionsOf([{ ...editor, status: 'inactive' }], catalogue)).toEqual({ level: null, permissions: {} });
  });

  test('the identity: active only when active; a company user has its company as tenant; validAfter after a password change', () => {
    const u = user({ status: 'active', type: 'company', companyId: 'c-1', developer: true });
    expect(identityOf({ user: u, sessionsValidAfter: '2026-03-01T00:00:00.000Z' })).toEqual({
      active: true,
      roles: ['viewer'],
      tenant: 'c-1',
      developer: true,
      validAfter: '2026-03-01T00:00:00.000Z',
    });
    expect(identityOf({ user: { ...u, status: 'inactive' } }).active).toBe(false);
    expect(identityOf({ user: { ...u, status: 'pending' } }).active).toBe(false);
    expect(identityOf({})).toEqual({ active: false, roles: [] });
  });

  test("a company user's change keeps the user a company user of its company (checked on request and on approval)", () => {
    const inC1 = user({ type: 'company', companyId: 'c-1' });
    expect(companyRefusal(inC1, 'c-1')).toBeNull();
    expect(companyRefusal({ ...inC1, type: 'internal', companyId: null }, 'c-1')).toMatchObject({
      error: 'PM_USER_OUTSIDE_COMPANY',
      details: { id: 'u-1', companyId: 'c-1' },
    });
    expect(companyRefusal({ ...inC1, companyId: 'c-2' }, 'c-1')).toMatchObject({ error: 'PM_USER_OUTSIDE_COMPANY' });
    expect(companyRefusal(user(), 'c-1')).toMatchObject({ error: 'PM_USER_OUTSIDE_COMPANY' });
    // a caller without a tenant is not limited
    expect(companyRefusal(user(), undefined)).toBeNull();
    expect(companyRefusal({ ...inC1, companyId: 'c-2' }, null)).toBeNull();
  });

  test('who signs in how', () => {
    const active = user({ status: 'active' });
    expect(mayUsePassword(active)).toBe(true);
    expect(mayUsePassword({ ...active, loginMethod: 'sso' })).toBe(false);
    expect(mayUsePassword({ ...active, status: 'inactive' })).toBe(false);
    expect(mayAcceptInvitation(user({ invitedAt: T0 }))).toBe(true);
    expect(mayAcceptInvitation(user())).toBe(false); // not invited yet: the creation waits for its approval
    expect(mayAcceptInvitation(user({ invitedAt: T0, acceptedAt: T0 }))).toBe(false);
    expect(mayUseSso(user({ loginMethod: 'sso', invitedAt: T0 }))).toBe(true);
    expect(mayUseSso(user({ loginMethod: 'sso' }))).toBe(false);
    expect(mayUseSso({ ...active, loginMethod: 'sso' })).toBe(true);
    // set back to pending by an approved status change after its first sign-in: SSO does not make it active again
    expect(mayUseSso(user({ loginMethod: 'sso', invitedAt: T0, acceptedAt: T0 }))).toBe(false);
  });
});

describe('listing', () => {
  test('the query: defaults, the search trimmed (blank: none)', () => {
    expect(listQuery({ status: 'active', search: ' Ann ', page: 2, limit: 5 })).toEqual({
      page: 2,
      limit: 5,
      status: 'active',
      search: 'Ann',
    });
    expect(listQuery({ search: ' ' })).toEqual({ page: 1, limit: 20 });
  });

  test('the schema reads a GET query as its types and refuses bad values and unknown keys', () => {
    expect(schemaCheck('listUsers', { status: 'active', type: 'company', page: '2', limit: '5' })).toEqual({
      input: { status: 'active', type: 'company', page: 2, limit: 5 },
      fields: [],
    });
    expect(schemaCheck('listUsers', { status: 'gone', limit: 500, sort: 'x' }).fields.sort()).toEqual([
      'limit',
      'sort',
      'status',
    ]);
    expect(schemaCheck('listUsers', { loginMethod: 'otp', search: 'x'.repeat(201), page: '0' }).fields.sort()).toEqual([
      'loginMethod',
      'page',
      'search',
    ]);
  });

  test('the filter searches a literal in name and email', () => {
    expect(buildListFilter({ page: 1, limit: 10, type: 'company', search: 'a.b' })).toEqual({
      $and: [{ type: 'company' }, { search: { $regex: 'a\\.b' } }],
    });
    expect(buildListFilter({ page: 1, limit: 10 })).toEqual({});
  });

  test('the document holds no secret and a lower-cased search column', () => {
    const doc = userDocument(user(), null);
    expect(doc.search).toBe('ann ann@example.com');
    expect(Object.keys(doc)).not.toContain('passwordHash');
  });
});

describe('answeredUser: the user a self-call answered, its shape checked', () => {
  const user = { id: 'u1', email: 'a@b.example', status: 'active', name: 'A' };
  test('the user when the flag is true', () => {
    expect(answeredUser({ valid: true, user }, 'valid')).toEqual(user);
    expect(answeredUser({ signedIn: true, user }, 'signedIn')).toEqual(user);
  });
  test('null when the flag is false or missing, or the user is not a user record', () => {
    expect(answeredUser({ valid: false, user }, 'valid')).toBeNull();
    expect(answeredUser({ signedIn: true, user }, 'valid')).toBeNull();
    expect(answeredUser({ valid: 'true', user }, 'valid')).toBeNull();
    expect(answeredUser({ valid: true }, 'valid')).toBeNull();
    expect(answeredUser({ valid: true, user: { id: 'u1' } }, 'valid')).toBeNull();
    expect(answeredUser(null, 'valid')).toBeNull();
    expect(answeredUser('valid', 'valid')).toBeNull();
  });
});
