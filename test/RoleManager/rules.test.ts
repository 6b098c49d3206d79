/** Pure rules of RoleManager (classes/RoleManager/rules.ts). */
import {
  activeRolesMatching,
  applyChanges,
  buildListFilter,
  changeRefusal,
  ensureState,
  entityOf,
  nameConflict,
  normalizePermissions,
  listQuery,
  permissionCatalogue,
  permissionErrors,
  roleDocument,
  rolesForReading,
  sameContent,
  stateFromInput,
  statusAfterReview,
  superRole,
} from '../../classes/RoleManager/rules';
import { schemaCheck } from './support';
import type { StoredRole } from '../../classes/RoleManager/types';

const NOW = '2025-01-01T00:00:00.000Z';

function role(over: Partial<StoredRole> = {}): StoredRole {
  return {
    id: 'r1',
    name: 'Clerk',
    level: 10,
    createdBy: { id: 'u1', type: 'program_management_user' },
    permissions: {},
    status: 'active',
    createdAt: NOW,
    updatedAt: NOW,
    pendingApprovalId: null,
    ...over,
  };
}

describe('Role status machine (spec 3.3): which changes may start', () => {
  test.each([
    // [role, change, refusal]
    [{ status: 'active' }, { kind: 'status', status: 'inactive' }, null],
    [{ status: 'inactive' }, { kind: 'status', status: 'active' }, null],
    [{ status: 'active' }, { kind: 'status', status: 'active' }, 'ROLE_STATUS_UNCHANGED'],
    [{ status: 'inactive' }, { kind: 'status', status: 'inactive' }, 'ROLE_STATUS_UNCHANGED'],
    [{ status: 'active' }, { kind: 'status', status: 'pending' }, 'ROLE_INVALID_INPUT'],
    [{ status: 'inactive', pendingApprovalId: 'a1' }, { kind: 'status', status: 'active' }, 'ROLE_PENDING_APPROVAL'],
    [{ status: 'inactive', pendingApprovalId: 'a1' }, { kind: 'update' }, 'ROLE_PENDING_APPROVAL'],
    [{ status: 'active' }, { kind: 'update' }, null],
    [{ status: 'inactive' }, { kind: 'update' }, null],
    [{ id: 'super', status: 'active' }, { kind: 'status', status: 'inactive' }, 'ROLE_BUILT_IN'],
    [{ id: 'super', status: 'active' }, { kind: 'update' }, 'ROLE_BUILT_IN'],
  ] as const)('%j %j → %s', (over, change, refusal) => {
    expect(changeRefusal(role(over as Partial<StoredRole>), change)).toBe(refusal);
  });

  test.each([
    ['inactive', 'active', 'approve', 'active'],
    ['inactive', 'active', 'reject', 'inactive'],
    ['active', 'inactive', 'approve', 'inactive'],
    ['active', 'inactive', 'reject', 'active'],
    ['active', null, 'approve', 'active'],
  ] as const)('review: %s with approved status %s, %s → %s', (current, approved, action, expected) => {
    expect(statusAfterReview(current, approved, action)).toBe(expected);
  });
});

describe('permissions', () => {
  const raw = {
    Zeta: [{ name: 'run', kind: 'STATIC', access: ['class'] }],
    Tier: [
      { name: 'updateTier', kind: 'WRITE', access: ['program_management_user'] },
      { name: 'approve', kind: 'QUEUED_WRITE', access: ['class:ApprovalManager'] },
      { name: 'getTier', kind: 'READ', access: ['enduser', 'program_management_user'] },
    ],
    Alpha: [{ name: 'b', kind: 'READ', access: ['public', 'program_management_user'] }],
  };

  test('the catalogue holds the methods whose access includes program_management_user, sorted', () => {
    const c = permissionCatalogue(raw);
    expect(c).toEqual({ Alpha: ['b'], Tier: ['getTier', 'updateTier'] });
    expect(Object.keys(c)).toEqual(['Alpha', 'Tier']);
  });

  test('normalized: sorted, de-duplicated, empty lists dropped', () => {
    expect(normalizePermissions({ Tier: ['b', 'a', 'b'], Empty: [] })).toEqual({ Tier: ['a', 'b'] });
    expect(normalizePermissions(undefined)).toEqual({});
  });

  test('unknown classes and methods are listed', () => {
    const c = permissionCatalogue(raw);
    expect(permissionErrors({ Tier: ['getTier', 'approve'], Zeta: ['run'], Nope: ['x'] }, c)).toEqual([
      { field: 'permissions.Tier', reason: "unknown method 'approve'" },
      { field: 'permissions.Zeta', reason: "unknown class 'Zeta'" },
      { field: 'permissions.Nope', reason: "unknown class 'Nope'" },
    ]);
    expect(permissionErrors({ Tier: ['getTier'] }, c)).toEqual([]);
    expect(permissionErrors({ constructor: ['x'], Tier: ['toString'] }, c).map((e) => e.reason)).toEqual([
      "unknown class 'constructor'",
      "unknown method 'toString'",
    ]);
  });
});

describe('names and state', () => {
  test('names clash case-insensitively and ignoring surrounding spaces, except with the role itself', () => {
    const roles = [role({ id: 'a', name: 'Clerk' }), role({ id: 'b', name: 'Boss' })];
    expect(nameConflict(roles, ' clerk ')?.id).toBe('a');
    expect(nameConflict(roles, 'CLERK', 'a')).toBeUndefined();
    expect(nameConflict(roles, 'Clerks')).toBeUndefined();
  });

  test('ensureState adds the super role and the deployment record, and repairs a tampered super role', () => {
    const partition: Record<string, any> = {};
    const s = ensureState(partition, NOW);
    expect(s.roles.super).toEqual(superRole(NOW));
    expect(s.deployment).toEqual({ version: 0, hash: null, lastDeployedAt: null, scheduledFor: null });
    s.roles.super.status = 'inactive';
    s.roles.super.level = 10 as 1;
    ensureState(partition, '2026-01-01T00:00:00.000Z');
    expect(partition.roles.super).toEqual(superRole(NOW));
  });

  test('rolesForReading always has super, also for an empty state', () => {
    expect(rolesForReading({}).map((r) => r.id)).toEqual(['super']);
    expect(
      rolesForReading({ roles: { r1: role() } })
        .map((r) => r.id)
        .sort(),
    ).toEqual(['r1', 'super']);
  });

  test('activeRolesMatching: by id or name; all active without names', () => {
    const roles = [
      role({ id: 'a', name: 'A' }),
      role({ id: 'b', name: 'B', status: 'inactive' }),
      role({ id: 'c', name: 'C' }),
    ];
    expect(activeRolesMatching(roles, ['A', 'b', 'c']).map((r) => r.id)).toEqual(['a', 'c']);
    expect(activeRolesMatching(roles).map((r) => r.id)).toEqual(['a', 'c']);
    expect(activeRolesMatching(roles, [])).toEqual([]);
  });

  test('applyChanges: name trimmed, description removed with null, permissions normalized; sameContent ignores updatedAt', () => {
    const base = entityOf(role({ description: 'd', permissions: { X: ['a'] } }));
    const next = applyChanges(
      base,
      { name: ' New ', description: null, permissions: { X: ['b', 'a', 'a'] } },
      '2025-02-02T00:00:00.000Z',
    );
    expect(next).toMatchObject({ name: 'New', permissions: { X: ['a', 'b'] }, updatedAt: '2025-02-02T00:00:00.000Z' });
    expect('description' in next).toBe(false);
    expect(sameContent(base, applyChanges(base, { permissions: { X: ['a', 'a'] } }, 'later'))).toBe(true);
    expect(sameContent(base, next)).toBe(false);
    expect('pendingApprovalId' in entityOf(role())).toBe(false);
  });

  test('roleDocument adds the sort key and the built-in flag', () => {
    expect(roleDocument(role({ name: 'MiXed' }))).toMatchObject({ nameLower: 'mixed', builtIn: false });
    expect(roleDocument(superRole(NOW))).toMatchObject({ builtIn: true, level: 1 });
  });
});

describe('listing queries', () => {
  test('defaults, and the search trimmed (blank: none)', () => {
    expect(listQuery({})).toEqual({ page: 1, limit: 20 });
    expect(listQuery({ status: 'inactive', search: '  desk ', page: 3, limit: 100 })).toEqual({
      status: 'inactive',
      search: 'desk',
      page: 3,
      limit: 100,
    });
    expect(listQuery({ search: '   ' })).toEqual({ page: 1, limit: 20 });
  });

  test('a GET query is read as its schema types', () => {
    expect(schemaCheck('listRoles', { status: 'inactive', page: '3', limit: '100' })).toEqual({
      input: { status: 'inactive', page: 3, limit: 100 },
      fields: [],
    });
  });

  test.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: 1.5 }, 'limit'],
    [{ page: 0 }, 'page'],
    [{ page: '-1' }, 'page'],
    [{ status: 'pending' }, 'status'],
    [{ search: 'x'.repeat(201) }, 'search'],
    [{ search: ['a', 'b'] }, 'search'],
    [{ sort: 'name' }, 'sort'],
  ])('the schema refuses %j on %s', (raw, field) => {
    expect(schemaCheck('listRoles', raw).fields).toEqual([field]);
  });

  test('getRole needs an id', () => {
    expect(schemaCheck('getRole', {}).fields).toEqual(['id']);
    expect(schemaCheck('getRole', { id: 'super' }).fields).toEqual([]);
  });

  test('filters: status, and a literal case-insensitive search in name and description', () => {
    expect(buildListFilter({ page: 1, limit: 10 })).toEqual({});
    expect(buildListFilter({ status: 'active', search: 'a.b', page: 1, limit: 10 })).toEqual({
      status: 'active',
      $or: [{ name: { $regex: 'a\\.b', $options: 'i' } }, { description: { $regex: 'a\\.b', $options: 'i' } }],
    });
  });
});

describe('setState input', () => {
  const catalogue = { RoleManager: ['getRole', 'listRoles'] };
  const sup = superRole(NOW);
  const input = (over: Record<string, unknown> = {}) => ({
    id: 'ops',
    name: 'Ops',
    level: 10 as const,
    permissions: { RoleManager: ['getRole'] },
    status: 'active' as const,
    ...over,
  });

  test('a valid list installs the roles and keeps the built-in super role (a given super entry is ignored)', () => {
    const r = stateFromInput([input(), input({ id: 'super', level: 10, status: 'inactive' })], catalogue, sup, NOW);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.roles.super).toBe(sup);
    expect(r.roles.ops).toEqual({
      ...input(),
      createdBy: { id: 'system', type: 'system', name: 'system' },
      createdAt: NOW,
      updatedAt: NOW,
      pendingApprovalId: null,
    });
  });

  test('duplicate names are a conflict; duplicate ids and unknown permissions are invalid', () => {
    expect(stateFromInput([input(), input({ id: 'o2', name: ' OPS' })], catalogue, sup, NOW)).toMatchObject({
      ok: false,
      status: 'conflict',
    });
    expect(stateFromInput([input({ name: 'SUPER' })], catalogue, sup, NOW)).toMatchObject({
      ok: false,
      status: 'conflict',
    });
    expect(stateFromInput([input(), input({ name: 'Other' })], catalogue, sup, NOW)).toMatchObject({
      ok: false,
      status: 'invalid',
      errors: [{ field: 'roles.1.id', reason: "duplicate role id 'ops'" }],
    });
    expect(stateFromInput([input({ permissions: { RoleManager: ['approve'] } })], catalogue, sup, NOW)).toMatchObject({
      ok: false,
      status: 'invalid',
      errors: [{ field: 'roles.0.permissions.RoleManager', reason: "unknown method 'approve'" }],
    });
  });
});
