/**
 * No privilege beyond your own, as pure rules:
 * classes/RoleManager/rules.ts (what a caller holds, what a role change
 * grants, self-edits, level 1 only through an approval with approvers),
 * classes/_platform/privileged.ts (developer-or-system) and
 * classes/Workflow/access.ts (a class writes only its own configuration).
 */
import {
  escalationRefusal,
  holdingOf,
  holdsRole,
  levelOneApprovalRefusal,
  permissionsNotHeld,
  touchesLevelOne,
  type Holding,
  type RoleChange,
} from '../../classes/RoleManager/rules';
import type { RoleEntity } from '../../classes/RoleManager/types';
import { assertDeveloperOrSystem, isDeveloperOrSystem } from '../../classes/_platform/privileged';
import { isForeignConfiguration } from '../../classes/Workflow/access';
import type { Identity } from '../../runtime';

const NOW = '2025-01-01T00:00:00.000Z';

function role(over: Partial<RoleEntity> = {}): RoleEntity {
  return {
    id: 'r1',
    name: 'Clerk',
    level: 10,
    createdBy: { id: 'u1', type: 'program_management_user' },
    permissions: { RoleManager: ['getRole'] },
    status: 'active',
    createdAt: NOW,
    updatedAt: NOW,
    ...over,
  };
}

const ALL: Holding = { all: true };
const held = (permissions: Record<string, string[]>): Holding => ({ all: false, permissions });

describe('holdingOf', () => {
  test('the union of the active roles permissions, sorted, duplicates dropped', () => {
    expect(
      holdingOf([
        { level: 10, permissions: { RoleManager: ['updateRole', 'getRole'] }, status: 'active' },
        { level: 10, permissions: { RoleManager: ['getRole'], Setting: ['getSetting'] } },
        { level: 10, permissions: { Workflow: ['setState'] }, status: 'inactive' },
      ]),
    ).toEqual({ all: false, permissions: { RoleManager: ['getRole', 'updateRole'], Setting: ['getSetting'] } });
  });

  test('an active level-1 role, or holding everything (system, developer), holds everything; an inactive level-1 role does not', () => {
    expect(holdingOf([{ level: 1, permissions: {} }])).toEqual(ALL);
    expect(holdingOf([], true)).toEqual(ALL);
    expect(holdingOf([{ level: 1, permissions: {}, status: 'inactive' }])).toEqual({ all: false, permissions: {} });
    expect(holdingOf([])).toEqual({ all: false, permissions: {} });
  });

  test('inherited keys are no permissions', () => {
    const h = holdingOf([{ level: 10, permissions: { RoleManager: ['getRole'] } }]);
    expect(permissionsNotHeld({ constructor: ['call'], toString: ['x'] }, h)).toEqual([
      'constructor.call',
      'toString.x',
    ]);
  });
});

describe('permissionsNotHeld', () => {
  test('names every Class.method the holding lacks', () => {
    const h = held({ RoleManager: ['getRole', 'updateRole'] });
    expect(
      permissionsNotHeld({ RoleManager: ['getRole', 'setState', 'updateRole'], Setting: ['setState'] }, h),
    ).toEqual(['RoleManager.setState', 'Setting.setState']);
    expect(permissionsNotHeld({ RoleManager: ['getRole'] }, h)).toEqual([]);
    expect(permissionsNotHeld({ RoleManager: ['setState'] }, ALL)).toEqual([]);
  });
});

describe('holdsRole', () => {
  test('by id, or by name case-insensitively', () => {
    expect(holdsRole(['r1'], role())).toBe(true);
    expect(holdsRole([' clerk '], role())).toBe(true);
    expect(holdsRole(['CLERK'], role())).toBe(true);
    expect(holdsRole(['other', 'r2'], role())).toBe(false);
    expect(holdsRole([], role())).toBe(false);
  });
});

describe('escalationRefusal', () => {
  const editor = held({ RoleManager: ['createRole', 'getRole', 'updateRole', 'updateStatus'] });

  // every row has all six cells: test.each passes a row's cells as arguments, and a callback
  // declaring more parameters than a row has cells would be taken to wait for `done`
  const table: [string, RoleChange, Holding, string[], string | null, Record<string, unknown> | null][] = [
    // creation
    [
      'create with held permissions',
      { kind: 'create', role: role({ permissions: { RoleManager: ['getRole'] } }) },
      editor,
      ['editor'],
      null,
      null,
    ],
    [
      'create granting a permission not held',
      { kind: 'create', role: role({ permissions: { RoleManager: ['getRole', 'setState'] } }) },
      editor,
      ['editor'],
      'ROLE_PERMISSION_NOT_HELD',
      { notHeld: ['RoleManager.setState'] },
    ],
    [
      'create level 1 without holding everything',
      { kind: 'create', role: role({ level: 1, permissions: {} }) },
      editor,
      ['editor'],
      'ROLE_LEVEL_NOT_HELD',
      null,
    ],
    [
      'create level 1 holding everything',
      { kind: 'create', role: role({ level: 1, permissions: {} }) },
      ALL,
      ['super'],
      null,
      null,
    ],
    [
      'create anything holding everything',
      { kind: 'create', role: role({ permissions: { Workflow: ['setState'] } }) },
      ALL,
      [],
      null,
      null,
    ],
    // update
    [
      'update another role within held permissions',
      { kind: 'update', old: role(), next: role({ description: 'x' }) },
      editor,
      ['editor'],
      null,
      null,
    ],
    [
      'update own role by name',
      { kind: 'update', old: role({ name: 'editor' }), next: role({ name: 'editor', description: 'x' }) },
      editor,
      ['editor'],
      'ROLE_SELF_EDIT',
      null,
    ],
    [
      'update own role by id',
      { kind: 'update', old: role({ id: 'e1' }), next: role({ id: 'e1', description: 'x' }) },
      ALL,
      ['e1'],
      'ROLE_SELF_EDIT',
      null,
    ],
    [
      'rename another role to a name the caller holds',
      { kind: 'update', old: role(), next: role({ name: 'Editor' }) },
      editor,
      ['editor'],
      'ROLE_SELF_EDIT',
      { newName: 'Editor' },
    ],
    [
      'add a permission not held',
      { kind: 'update', old: role(), next: role({ permissions: { RoleManager: ['getRole', 'setState'] } }) },
      editor,
      ['editor'],
      'ROLE_PERMISSION_NOT_HELD',
      { notHeld: ['RoleManager.setState'] },
    ],
    [
      'edit a role that can do more than the caller',
      {
        kind: 'update',
        old: role({ permissions: { Setting: ['setState'] } }),
        next: role({ permissions: { Setting: ['setState'] }, description: 'x' }),
      },
      editor,
      ['editor'],
      'ROLE_PERMISSION_NOT_HELD',
      { notHeld: ['Setting.setState'] },
    ],
    [
      'update a level-1 role without holding everything',
      {
        kind: 'update',
        old: role({ level: 1, permissions: {} }),
        next: role({ level: 1, permissions: {}, description: 'x' }),
      },
      editor,
      ['editor'],
      'ROLE_LEVEL_NOT_HELD',
      null,
    ],
    [
      'update a level-1 role holding everything',
      {
        kind: 'update',
        old: role({ level: 1, permissions: {} }),
        next: role({ level: 1, permissions: {}, description: 'x' }),
      },
      ALL,
      ['super'],
      null,
      null,
    ],
    // status
    [
      'activate a role within held permissions',
      { kind: 'status', old: role({ status: 'inactive' }), status: 'active' },
      editor,
      ['editor'],
      null,
      null,
    ],
    [
      'activate a role with permissions not held',
      {
        kind: 'status',
        old: role({ status: 'inactive', permissions: { RoleManager: ['setState'] } }),
        status: 'active',
      },
      editor,
      ['editor'],
      'ROLE_PERMISSION_NOT_HELD',
      { notHeld: ['RoleManager.setState'] },
    ],
    [
      'deactivate a role with permissions not held (grants nothing)',
      { kind: 'status', old: role({ permissions: { RoleManager: ['setState'] } }), status: 'inactive' },
      editor,
      ['editor'],
      null,
      null,
    ],
    [
      'deactivate own role',
      { kind: 'status', old: role({ name: 'editor' }), status: 'inactive' },
      editor,
      ['editor'],
      'ROLE_SELF_EDIT',
      null,
    ],
    [
      'activate a level-1 role without holding everything',
      { kind: 'status', old: role({ level: 1, status: 'inactive', permissions: {} }), status: 'active' },
      editor,
      ['editor'],
      'ROLE_LEVEL_NOT_HELD',
      null,
    ],
    [
      'deactivate a level-1 role without holding everything',
      { kind: 'status', old: role({ level: 1, permissions: {} }), status: 'inactive' },
      editor,
      ['editor'],
      'ROLE_LEVEL_NOT_HELD',
      null,
    ],
  ];

  test.each(table)('%s', (_name, change, holding, identityRoles, error, details) => {
    const refusal = escalationRefusal(change, holding, identityRoles);
    if (error === null) {
      expect(refusal).toBeNull();
      return;
    }
    expect(refusal).toMatchObject({ error, message: expect.any(String) });
    if (details) expect(refusal!.details).toMatchObject(details);
  });

  test('self-edit is judged before level and permissions', () => {
    const change: RoleChange = {
      kind: 'update',
      old: role({ name: 'boss', level: 1, permissions: {} }),
      next: role({ name: 'boss', level: 1, permissions: {}, description: 'x' }),
    };
    expect(escalationRefusal(change, held({}), ['boss'])?.error).toBe('ROLE_SELF_EDIT');
  });
});

describe('level 1 only through an approval with approvers', () => {
  test('touchesLevelOne', () => {
    expect(touchesLevelOne({ kind: 'create', role: role({ level: 1 }) })).toBe(true);
    expect(touchesLevelOne({ kind: 'create', role: role() })).toBe(false);
    expect(touchesLevelOne({ kind: 'update', old: role({ level: 1 }), next: role({ level: 1 }) })).toBe(true);
    expect(touchesLevelOne({ kind: 'status', old: role({ level: 1 }), status: 'inactive' })).toBe(true);
    expect(touchesLevelOne({ kind: 'status', old: role(), status: 'active' })).toBe(false);
  });

  test.each([
    [{ levelOne: false, system: false, ruleApprovers: [], autoApproved: true }, null],
    [{ levelOne: true, system: true, ruleApprovers: [], autoApproved: true }, null],
    [{ levelOne: true, system: false, ruleApprovers: ['approver'], autoApproved: false }, null],
    [{ levelOne: true, system: false, ruleApprovers: [], autoApproved: true }, 'rule_without_approvers'],
    [{ levelOne: true, system: false, ruleApprovers: [], autoApproved: false }, 'rule_without_approvers'],
    [{ levelOne: true, system: false, ruleApprovers: ['approver'], autoApproved: true }, 'auto_approved'],
  ])('%j → %s', (input, reason) => {
    const refusal = levelOneApprovalRefusal(input);
    if (reason === null) expect(refusal).toBeNull();
    else expect(refusal).toMatchObject({ error: 'ROLE_LEVEL1_NEEDS_APPROVAL', reason });
  });
});

describe('developer or system (classes/_platform/privileged.ts)', () => {
  const pm = (claims: Record<string, unknown> = {}): Identity => ({
    type: 'program_management_user',
    userId: 'u',
    roles: ['super'],
    claims,
  });

  test('only the system identity and developers', () => {
    expect(isDeveloperOrSystem({ type: 'system' })).toBe(true);
    expect(isDeveloperOrSystem(pm({ developer: true }))).toBe(true);
    expect(isDeveloperOrSystem(pm())).toBe(false);
    expect(isDeveloperOrSystem(pm({ developer: 'true' }))).toBe(false);
    expect(isDeveloperOrSystem({ type: 'class', classId: 'Member' })).toBe(false);
    expect(isDeveloperOrSystem({ type: 'integration_user', userId: 'k' })).toBe(false);
    expect(isDeveloperOrSystem({ type: 'enduser', userId: 'm', claims: { developer: true } })).toBe(false);
  });

  test('assertDeveloperOrSystem throws the caller-built refusal, naming the operation', () => {
    const refuse = (message: string, details: Record<string, unknown>) =>
      Object.assign(new Error(message), { details });
    expect(() => assertDeveloperOrSystem({ identity: pm({ developer: true }) }, 'X.setState', refuse)).not.toThrow();
    expect(() => assertDeveloperOrSystem({ identity: pm() }, 'X.setState', refuse)).toThrow(
      'X.setState is for the system identity and developers only',
    );
    let thrown: any;
    try {
      assertDeveloperOrSystem({ identity: { type: 'class', classId: 'Member' } }, 'X.setState', refuse);
    } catch (err) {
      thrown = err;
    }
    expect(thrown.details).toEqual({ identityType: 'class', callerClassId: 'Member' });
  });
});

describe('a class writes only its own workflow configuration (classes/Workflow/access.ts)', () => {
  test('isForeignConfiguration', () => {
    expect(isForeignConfiguration({ type: 'class', classId: 'Setting' }, 'Setting')).toBe(false);
    expect(isForeignConfiguration({ type: 'class', classId: 'Setting' }, 'RoleManager')).toBe(true);
    expect(isForeignConfiguration({ type: 'class' }, 'RoleManager')).toBe(true);
    expect(isForeignConfiguration({ type: 'system' }, 'RoleManager')).toBe(false);
  });
});
