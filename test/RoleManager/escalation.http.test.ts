/**
 * No privilege beyond your own, through real HTTP and
 * Redis: the escalation chain of the issue, each step refused with 403, and
 * the legitimate paths that must still work.
 *
 * The chain as found: a level-10 user whose only permission was
 * RoleManager.updateRole updated its own role (auto-approved by role_update),
 * granted itself RoleManager.setState, wrote an active level-1 role with
 * setState and used it; Setting.setState wrote settings already active; a
 * holder of Workflow.updateWorkflowConfiguration (or any class) could set
 * every rule's approvers to [].
 *
 * Cool-down 0: every applied change is published at once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { waitFor, type TestRuntime } from '../support/harness';
import { findLogs } from '../support/logs';
import {
  developer,
  pmUser,
  rm,
  ROLE_CLASS_DIRS,
  roleWhere,
  seedRole,
  snapshotWhere,
  startRoleRuntime,
  storedRole,
  type Headers,
} from './support';

let t: TestRuntime;
let ids: Record<string, string>;
let mallory: Headers; // level 10, only RoleManager.updateRole
let dan: Headers; // level 10 role admin: createRole, updateRole, updateStatus, getRole
let otto: Headers; // level 10 holding the operator methods' permissions, no developer
let root: Headers; // level 1, no developer
let alice: Headers; // holds the `approver` role
let dev: Headers; // level 1 and developer

const post = (method: string, body: unknown, headers: Headers) => t.post(rm(t, method), body, headers);
const call = (classId: string, method: string, instanceId: string, body: unknown, headers: Headers) =>
  t.post(`/${t.projectId}/CALL/${classId}/${method}/${instanceId}`, body, headers);
const reviewAs = async (who: Headers, approvalId: string, action: 'approve' | 'reject') =>
  t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, who);
const roleFile = JSON.parse(fs.readFileSync(path.join(__dirname, '../../workflow-configs/RoleManager.json'), 'utf8'));
const noApprovers = { classId: 'RoleManager', rules: roleFile.rules.map((r: any) => ({ ...r, approvers: [] })) };
const runRule = async (event: string, currentStatus: string) =>
  (
    (
      await t.rt.call('Workflow', 'run', undefined, {
        classId: 'RoleManager',
        event,
        currentStatus,
        entity: { status: currentStatus },
        actor: { id: 'x', type: 'program_management_user' },
      })
    ).body as any
  ).rule;

function expect403(r: { status: number; body: any }, code: number, classId?: string) {
  expect([r.status, r.body.code]).toEqual([403, code]);
  if (classId) expect(r.body.classId).toBe(classId);
}

beforeAll(async () => {
  t = await startRoleRuntime({
    ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '0',
    CLASS_DIRS: `${ROLE_CLASS_DIRS},classes/Setting`,
  });
  await t.rt.call('RoleManager', 'init', 'default', {});
  await snapshotWhere(t, (s) => s.roles.some((r: any) => r.id === 'super'));
  ids = {
    roleEditor: await seedRole(t, 'roleEditor', { RoleManager: ['updateRole'] }),
    target: await seedRole(t, 'target', { RoleManager: ['updateRole'] }),
    delegator: await seedRole(t, 'delegator', { RoleManager: ['createRole', 'getRole', 'updateRole', 'updateStatus'] }),
    operator: await seedRole(t, 'operator', {
      RoleManager: ['setState'],
      Setting: ['setState'],
      Workflow: ['init', 'setState', 'updateWorkflowConfiguration'],
    }),
    approver: await seedRole(t, 'approver', {}),
  };
  mallory = pmUser(t, 'mallory', ['roleEditor']);
  dan = pmUser(t, 'dan', ['delegator']);
  otto = pmUser(t, 'otto', ['operator']);
  root = pmUser(t, 'root', ['super']);
  alice = pmUser(t, 'alice', ['approver']);
  dev = developer(t, 'dora', ['super']);
});
afterAll(() => t.stop());

describe('the escalation chain of a user raising their own privileges: every step refused', () => {
  test('own role, a permission not held, setState, a level-1 role: 403 each, nothing changes', async () => {
    const before = (await t.rt.ports.roles.current())!;

    // 1. update its own role (by name in the token), granting itself setState
    const own = await post(
      'updateRole',
      { id: ids.roleEditor, permissions: { RoleManager: ['setState', 'updateRole'] } },
      mallory,
    );
    expect403(own, 9013, 'RoleManager');
    expect(own.body.details).toMatchObject({ id: ids.roleEditor, name: 'roleEditor' });
    // by id in the token too
    expect403(
      await post('updateRole', { id: ids.roleEditor, description: 'mine' }, pmUser(t, 'mallory', [ids.roleEditor])),
      9013,
    );
    // nor deactivate / reactivate its own role (updateStatus is not even granted to it: the role check answers first)
    expect403(await post('updateStatus', { id: ids.roleEditor, status: 'inactive' }, mallory), 1008);

    // 2. grant setState through another role it may edit
    const other = await post(
      'updateRole',
      { id: ids.target, permissions: { RoleManager: ['setState', 'updateRole'] } },
      mallory,
    );
    expect403(other, 9012, 'RoleManager');
    expect(other.body.details).toEqual({ id: ids.target, notHeld: ['RoleManager.setState'] });

    // 3. write an active level-1 role with setState: no permission (1008); holding the permission is not
    //    enough (9016), level 1 is not enough either (9016)
    const boss = { roles: [{ id: 'boss', name: 'boss', level: 1, permissions: {}, status: 'active' }] };
    expect403(await post('setState', boss, mallory), 1008);
    expect403(await post('setState', boss, otto), 9016, 'RoleManager');
    expect403(await post('setState', boss, root), 9016, 'RoleManager');

    // 4. a level-1 role through createRole: 403 for a level-10 role admin
    const lvl1 = await post('createRole', { name: 'boss', level: 1 }, dan);
    expect403(lvl1, 9014, 'RoleManager');

    // nothing changed: roles, approvals waiting on them, the published snapshot, and mallory's reach
    expect(await storedRole(t, ids.roleEditor)).toMatchObject({
      permissions: { RoleManager: ['updateRole'] },
      pendingApprovalId: null,
    });
    expect(await storedRole(t, ids.target)).toMatchObject({
      permissions: { RoleManager: ['updateRole'] },
      pendingApprovalId: null,
    });
    expect((await t.rt.call('RoleManager', 'listRoles', 'default', { search: 'boss' })).body).toMatchObject({
      totalCount: 0,
    });
    const after = (await t.rt.ports.roles.current())!;
    expect(after.hash).toBe(before.hash);
    expect(after.roles.filter((r) => r.level === 1).map((r) => r.id)).toEqual(['super']);
    expect403(await post('setState', boss, pmUser(t, 'mallory', ['roleEditor', 'boss'])), 1008);
  });

  test('a role admin grants only what it holds, never edits its own role, nor renames a role to a name it holds', async () => {
    const granted = await post(
      'createRole',
      { name: 'too much', permissions: { RoleManager: ['getRole'], Setting: ['setState'] } },
      dan,
    );
    expect403(granted, 9012);
    expect(granted.body.details.notHeld).toEqual(['Setting.setState']);
    expect403(
      await post(
        'updateRole',
        {
          id: ids.delegator,
          permissions: { RoleManager: ['createRole', 'getRole', 'setState', 'updateRole', 'updateStatus'] },
        },
        dan,
      ),
      9013,
    );
    expect403(await post('updateStatus', { id: ids.delegator, status: 'inactive' }, dan), 9013);
    // a rename hands the role to the holders of the new name
    const rename = await post(
      'updateRole',
      { id: ids.target, name: 'Delegator2' },
      pmUser(t, 'dan', ['delegator', 'Delegator2']),
    );
    expect403(rename, 9013);
    // a role that can do more than the admin: refused even for a description
    expect403(await post('updateRole', { id: ids.operator, description: 'ops' }, dan), 9012);
    // activating a role grants its permissions: only what the caller holds
    const inactive = (
      await t.rt.call('RoleManager', 'createRole', 'default', {
        name: 'dormant',
        permissions: { Setting: ['setState'] },
      })
    ).body as any;
    await t.rt.call('RoleManager', 'updateStatus', 'default', { id: inactive.role.id, status: 'inactive' });
    await roleWhere(t, inactive.role.id, (r) => r.status === 'inactive');
    const activate = await post('updateStatus', { id: inactive.role.id, status: 'active' }, dan);
    expect403(activate, 9012);
    expect(activate.body.details.notHeld).toEqual(['Setting.setState']);
    // deactivating grants nothing: allowed, and waits for an approver
    const deactivate = await post('updateStatus', { id: ids.operator, status: 'inactive' }, dan);
    expect(deactivate.status).toBe(200);
    expect(deactivate.body.approval).toMatchObject({ approvalStatus: 'pending', approvers: ['approver'] });
    expect((await reviewAs(alice, deactivate.body.approval.id, 'reject')).status).toBe(200);
    await roleWhere(t, ids.operator, (r) => r.pendingApprovalId === null && r.status === 'active');
  });
});

describe('level-1 roles: only level-1 users, only through an approval with approvers', () => {
  test('a level-1 user asks, another approver approves; the maker may not approve its own', async () => {
    const r = await post('createRole', { name: 'second super', level: 1 }, root);
    expect(r.status).toBe(201);
    expect(r.body.role).toMatchObject({ level: 1, status: 'inactive' });
    expect(r.body.approval).toMatchObject({
      event: 'role_create',
      approvalStatus: 'pending',
      approvalType: 'manual',
      approvers: ['approver'],
    });
    const id = r.body.role.id;
    expect((await t.rt.ports.roles.current())!.roles.some((x) => x.id === id)).toBe(false);
    const selfApproval = await reviewAs(pmUser(t, 'root', ['super', 'approver']), r.body.approval.id, 'approve');
    expect(selfApproval.status).toBe(403);
    expect((await reviewAs(alice, r.body.approval.id, 'approve')).status).toBe(200);
    await roleWhere(t, id, (x) => x.status === 'active' && x.pendingApprovalId === null, 'level-1 role active');
    await snapshotWhere(t, (s) => s.roles.some((x: any) => x.id === id && x.level === 1), 'level-1 role published');

    // level-10 users neither change nor deactivate it
    expect403(await post('updateRole', { id, description: 'mine now' }, dan), 9014);
    expect403(await post('updateStatus', { id, status: 'inactive' }, dan), 9014);
    // a level-1 user's change of it waits for an approver as well
    const change = await post('updateRole', { id, description: 'the second one' }, root);
    expect(change.status).toBe(200);
    expect(change.body.approval).toMatchObject({ approvalStatus: 'pending', approvers: ['approver'] });
    expect((await reviewAs(alice, change.body.approval.id, 'reject')).status).toBe(200);
    await roleWhere(t, id, (x) => x.pendingApprovalId === null);
  });

  test('a developer would be approved automatically: refused (setState is its tool)', async () => {
    const r = await post('createRole', { name: 'dev super', level: 1 }, dev);
    expect403(r, 9015, 'RoleManager');
    expect(r.body.details).toMatchObject({ reason: 'auto_approved' });
    expect((await t.rt.call('RoleManager', 'listRoles', 'default', { search: 'dev super' })).body).toMatchObject({
      totalCount: 0,
    });
  });

  test('a rule without approvers does not approve a level-1 role: refused, no approval left behind; level-10 roles follow the rule', async () => {
    expect((await call('Workflow', 'updateWorkflowConfiguration', 'RoleManager', noApprovers, dev)).status).toBe(200);
    try {
      const since = new Date().toISOString();
      const r = await post('createRole', { name: 'auto super', level: 1 }, root);
      expect403(r, 9015, 'RoleManager');
      expect(r.body.details).toEqual({ reason: 'rule_without_approvers', approvers: [] });
      // a level-10 role under the same rule is approved at once (the rule is honoured where it may be)
      const ten = await post('createRole', { name: 'auto ten', permissions: { RoleManager: ['getRole'] } }, root);
      expect(ten.status).toBe(201);
      expect(ten.body.role.status).toBe('active');
      await waitFor(() => t.rt.documents.get('approvals', ten.body.approval.id), {
        what: 'the level-10 approval streamed',
      });
      const made = await t.rt.documents.find<Record<string, unknown>>(
        'approvals',
        { classId: 'RoleManager', createdAt: { $gte: since } },
        {},
      );
      expect(made.items.map((a) => a.entityId)).toEqual([ten.body.role.id]); // the refused level-1 role left no approval
    } finally {
      expect((await call('Workflow', 'setState', 'RoleManager', roleFile, dev)).status).toBe(200);
    }
  });
});

describe('the default role rules require an approver', () => {
  test.each([
    ['role_create', 'inactive'],
    ['role_update', 'active'],
    ['role_status_update', 'active'],
  ])('%s', async (event, status) => {
    expect((await runRule(event, status)).approvers).toEqual(['approver']);
  });

  test('a role admin grants what it holds: pending until another user approves, then published', async () => {
    const r = await post('createRole', { name: 'reader', permissions: { RoleManager: ['getRole'] } }, dan);
    expect(r.status).toBe(201);
    expect(r.body.approval).toMatchObject({ approvalStatus: 'pending', approvers: ['approver'] });
    expect((await reviewAs(alice, r.body.approval.id, 'approve')).status).toBe(200);
    await roleWhere(t, r.body.role.id, (x) => x.status === 'active');
    await snapshotWhere(t, (s) => s.roles.some((x: any) => x.id === r.body.role.id));
    // and may change it within what it holds, through an approval
    const u = await post(
      'updateRole',
      { id: r.body.role.id, permissions: { RoleManager: ['getRole', 'updateStatus'] } },
      dan,
    );
    expect(u.status).toBe(200);
    expect(u.body.approval).toMatchObject({ approvalStatus: 'pending' });
    expect(u.body.role.permissions).toEqual({ RoleManager: ['getRole'] });
  });
});

describe('setState and workflow rules: developers and the system only', () => {
  test('RoleManager.setState by a developer: applied, audit-logged as the developer', async () => {
    const current = (await t.rt.call('RoleManager', 'getRolesForAuthentication', 'default', {})).body as any;
    const roles = current.roles.filter((r: any) => r.id !== 'super');
    const r = await post('setState', { roles }, dev);
    expect(r.status).toBe(200);
    const log = await waitFor(
      async () => (await findLogs(t, { classId: 'RoleManager', entityType: 'roles' })).items[0],
      { what: 'setState log' },
    );
    expect(log.actor).toMatchObject({ id: 'dora', type: 'developer' });
  });

  test('Setting.setState: refused to a non-developer holding the permission and to level 1; a developer writes, logged', async () => {
    const groups = { tierTypes: { value: [{ id: 'tt-x', name: 'Sneaky', status: 'active', tierGroup: 'base' }] } };
    expect403(await call('Setting', 'setState', 'default', { groups }, otto), 10037, 'Setting');
    expect403(await call('Setting', 'setState', 'default', { groups }, root), 10037, 'Setting');
    expect403(await call('Setting', 'setState', 'default', { groups }, mallory), 1008);
    expect(await t.rt.store.exists('Setting', 'default')).toBe(false);
    // validated before it is written
    const dup = await call(
      'Setting',
      'setState',
      'default',
      { groups: { tierTypes: { value: [groups.tierTypes.value[0], { ...groups.tierTypes.value[0], id: 'tt-y' }] } } },
      dev,
    );
    expect([dup.status, dup.body.code]).toEqual([400, 10035]);
    const ok = await call('Setting', 'setState', 'default', { groups }, dev);
    expect(ok.status).toBe(200);
    const log = await waitFor(
      async () => (await findLogs(t, { classId: 'Setting', entityType: 'settings' })).items[0],
      { what: 'Setting.setState log' },
    );
    expect(log.actor).toMatchObject({ id: 'dora', type: 'developer' });
  });

  test('Workflow: approvers cannot be emptied by a non-developer or by another class; the class itself and developers may; logged', async () => {
    for (const method of ['updateWorkflowConfiguration', 'setState']) {
      expect403(await call('Workflow', method, 'RoleManager', noApprovers, otto), 14007, 'Workflow');
      expect403(await call('Workflow', method, 'RoleManager', noApprovers, root), 14007, 'Workflow');
      expect403(await call('Workflow', method, 'RoleManager', noApprovers, mallory), 1008);
    }
    expect403(await call('Workflow', 'init', 'Setting', { classId: 'Setting', rules: [] }, otto), 14007, 'Workflow');

    // a class changes only its own configuration
    const asClass = (classId: string, method: string, instanceId: string, body: unknown) =>
      t.rt.dispatcher
        .call({
          classId: 'Workflow',
          method,
          instanceId,
          body,
          identity: { type: 'class', classId, instanceId: 'default' },
          origin: 'class',
        })
        .catch((e) => e);
    for (const method of ['updateWorkflowConfiguration', 'setState']) {
      const foreign = await asClass('Setting', method, 'RoleManager', noApprovers);
      expect([method, foreign.status, foreign.code]).toEqual([method, 403, 14008]);
    }
    const foreignInit = await asClass('Setting', 'init', 'Company', { classId: 'Company', rules: [] });
    expect([foreignInit.status, foreignInit.code]).toEqual([403, 14008]);
    expect(await t.rt.store.exists('Workflow', 'Company')).toBe(false);
    expect((await runRule('role_update', 'active')).approvers).toEqual(['approver']);

    // (a write that changes nothing leaves no audit entry: this one reworded a description)
    const reworded = {
      ...roleFile,
      rules: roleFile.rules.map((r: any, i: number) => (i === 0 ? { ...r, description: 'reworded by the class' } : r)),
    };
    const own = await asClass('RoleManager', 'updateWorkflowConfiguration', 'RoleManager', reworded);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ classId: 'RoleManager', updatedBy: { type: 'system', id: 'default' } });
    const byDev = await call('Workflow', 'updateWorkflowConfiguration', 'RoleManager', roleFile, dev);
    expect(byDev.status).toBe(200);

    const logs = await waitFor(
      async () => {
        const l = await findLogs(t, { classId: 'Workflow', entityId: 'RoleManager' });
        const byDev = l.items.some(
          (e) => e.actor?.type === 'developer' && e.additionalData?.method === 'updateWorkflowConfiguration',
        );
        const byClass = l.items.some((e) => e.actor?.type === 'system' && e.actor?.name === 'class:RoleManager');
        return byDev && byClass ? l.items : undefined;
      },
      { what: 'workflow configuration logs' },
    );
    expect(logs![0]).toMatchObject({ entityType: 'workflowConfiguration', entityId: 'RoleManager' });
  });
});
