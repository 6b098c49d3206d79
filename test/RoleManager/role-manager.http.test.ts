/**
 * RoleManager through real HTTP: every operation with the right identity and
 * a wrong one, the workflow/approval, audit log and streaming of each change,
 * and the seeded super user (level 1) against a level-10 user.
 * Cool-down 0 here: every change is published at once (the cool-down has its
 * own test file).
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  developer,
  endUser,
  integration,
  jobOutcome,
  pmUser,
  review,
  rm,
  roleWhere,
  seedRole,
  snapshotWhere,
  startRoleRuntime,
  storedRole,
  type Headers,
  until,
} from './support';
import { findLogs } from '../support/logs';

let t: TestRuntime;
let superUser: Headers;
let viewer: Headers;
let nobody: Headers;
let member: Headers;

const post = (method: string, body: unknown, headers: Headers) => t.post(rm(t, method), body, headers);
const get = (method: string, query: string, headers: Headers) =>
  t.get(`${rm(t, method)}${query ? `?${query}` : ''}`, headers);
const doc = (id: string) => t.rt.documents.get('roles', id);
const logsOf = (id: string) => findLogs(t, { classId: 'RoleManager', entityId: id });

beforeAll(async () => {
  t = await startRoleRuntime({ ROLE_DEPLOYMENT_COOLDOWN_SECONDS: '0' });
  const init = await t.rt.call('RoleManager', 'init', 'default', {});
  expect(init.status).toBe(200);
  await snapshotWhere(t, (s) => s.roles.some((r: any) => r.id === 'super' && r.level === 1));
  await seedRole(t, 'viewer', { RoleManager: ['getRole', 'listRoles'] });
  await seedRole(t, 'nothing', {});
  superUser = pmUser(t, 'root', ['super']);
  viewer = pmUser(t, 'vic', ['viewer']);
  nobody = pmUser(t, 'ned', ['nothing']);
  member = endUser(t);
});
afterAll(() => t.stop());

function expectForbidden(r: { status: number; body: any }) {
  expect(r.status).toBe(403);
  expect(r.body).toMatchObject({ code: 1008 });
}

/** creates a role as the super user and approves it; returns the active role */
async function activeRole(name: string, permissions: Record<string, string[]> = {}) {
  const created = await post('createRole', { name, permissions }, superUser);
  expect(created.status).toBe(201);
  await review(t, created.body.approval.id, 'approve');
  return roleWhere(
    t,
    created.body.role.id,
    (r) => r.status === 'active' && r.pendingApprovalId === null,
    `${name} active`,
  );
}

describe('createRole', () => {
  test('super user: a level-10 role, inactive until approved; audit-logged, streamed, published once active', async () => {
    const r = await post(
      'createRole',
      { name: 'Clerk', description: 'Front desk', permissions: { RoleManager: ['listRoles', 'getRole', 'getRole'] } },
      superUser,
    );
    expect(r.status).toBe(201);
    const { role, approval } = r.body;
    expect(role).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Clerk',
      description: 'Front desk',
      level: 10,
      status: 'inactive',
      permissions: { RoleManager: ['getRole', 'listRoles'] },
      createdBy: { id: 'root', type: 'program_management_user' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      pendingApprovalId: approval.id,
    });
    expect(approval).toMatchObject({
      event: 'role_create',
      approvalStatus: 'pending',
      approvalType: 'manual',
      approvers: ['approver'],
      entityOldStatus: null,
      entityNewStatus: 'active',
    });
    expect(r.body.deploymentJobId).toBeNull();
    expect(await waitFor(() => doc(role.id), { what: 'streamed role' })).toMatchObject({
      status: 'inactive',
      pendingApprovalId: approval.id,
    });
    expect((await t.rt.ports.roles.current())!.roles.map((x) => x.id)).not.toContain(role.id);
    const created = await waitFor(
      async () => ((await logsOf(role.id)).total === 1 ? (await logsOf(role.id)).items[0] : undefined),
      { what: 'creation log' },
    );
    expect(created).toMatchObject({
      entityType: 'role',
      actor: { id: 'root' },
      additionalData: { event: 'role_create', approvalId: approval.id },
    });

    await review(t, approval.id, 'approve');
    await waitFor(async () => (await doc(role.id))?.status === 'active', { what: 'approved role streamed' });
    const snap = await snapshotWhere(t, (s) => s.roles.some((x: any) => x.id === role.id));
    expect(snap.roles.find((x: any) => x.id === role.id)).toEqual({
      id: role.id,
      name: 'Clerk',
      level: 10,
      permissions: { RoleManager: ['getRole', 'listRoles'] },
      status: 'active',
    });
    const logs = await until(
      async () => ((await logsOf(role.id)).total === 2 ? (await logsOf(role.id)).items : undefined),
      { what: 'approval log' },
    );
    expect(logs[1].fieldUpdates).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'status', oldValue: '"inactive"', newValue: '"active"' }),
      ]),
    );
    expect(logs[1].additionalData).toMatchObject({
      event: 'role_create',
      action: 'approve',
      reviewedBy: { id: 'ann' },
    });
  });

  test('wrong identities: member, integration key, a level-10 user without the permission', async () => {
    expectForbidden(await post('createRole', { name: 'm1' }, member));
    expectForbidden(await post('createRole', { name: 'm2' }, integration));
    expectForbidden(await post('createRole', { name: 'm3' }, nobody));
    expectForbidden(await post('createRole', { name: 'm4' }, viewer));
    expect(await t.rt.documents.count('roles', { name: { $in: ['m1', 'm2', 'm3', 'm4'] } })).toBe(0);
  });

  test('unknown classes and methods are refused with a list of them', async () => {
    const r = await post(
      'createRole',
      { name: 'bad perms', permissions: { Nope: ['x'], RoleManager: ['listRoles', 'approve', 'frobnicate'] } },
      superUser,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 9002, classId: 'RoleManager' });
    expect(r.body.details.errors).toEqual([
      { field: 'permissions.Nope', reason: "unknown class 'Nope'" },
      { field: 'permissions.RoleManager', reason: "unknown method 'approve'" },
      { field: 'permissions.RoleManager', reason: "unknown method 'frobnicate'" },
    ]);
    const inherited = await post(
      'createRole',
      { name: 'proto perms', permissions: { constructor: ['call'], hasOwnProperty: ['x'], RoleManager: ['toString'] } },
      superUser,
    );
    expect(inherited.status).toBe(400);
    expect(inherited.body.details.errors.map((e: any) => e.reason).sort()).toEqual([
      "unknown class 'constructor'",
      "unknown class 'hasOwnProperty'",
      "unknown method 'toString'",
    ]);
  });

  test('names are unique case-insensitively (the built-in super too); level is 1 or 10; bad input is 400', async () => {
    await activeRole('Auditor');
    for (const name of ['auditor', ' AUDITOR ', 'Super']) {
      const r = await post('createRole', { name }, superUser);
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 9001, classId: 'RoleManager' });
    }
    const lvl = await post('createRole', { name: 'boss', level: 5 }, superUser);
    expect(lvl.status).toBe(400);
    expect(lvl.body.details.errors).toEqual([{ field: 'level', reason: 'must be one of: 1, 10' }]);
    // a level-1 user may ask for a level-1 role: it waits for an approver (escalation.http.test.ts has the refusals)
    const boss = await post('createRole', { name: 'boss', level: 1 }, superUser);
    expect(boss.status).toBe(201);
    expect(boss.body.role).toMatchObject({ level: 1, status: 'inactive' });
    expect(boss.body.approval).toMatchObject({ approvalStatus: 'pending', approvers: ['approver'] });
    for (const body of [
      {},
      { name: '' },
      { name: '   ' },
      { name: 'x', permissions: { RoleManager: 'listRoles' } },
      { name: 'x', extra: 1 },
      'not json',
    ]) {
      const r = await post('createRole', body, superUser);
      expect(r.status).toBe(400);
    }
  });
});

describe('updateRole', () => {
  test('super user: waits for an approver (role_update requires one), then applied, logged, streamed and published', async () => {
    const role = await activeRole('Editor', { RoleManager: ['getRole'] });
    const r = await post(
      'updateRole',
      { id: role.id, description: 'edits', permissions: { RoleManager: ['getRole', 'listRoles'] } },
      superUser,
    );
    expect(r.status).toBe(200);
    expect(r.body.approval).toMatchObject({
      event: 'role_update',
      approvalType: 'manual',
      approvalStatus: 'pending',
      approvers: ['approver'],
    });
    // unchanged until approved
    expect(r.body.role).toMatchObject({
      permissions: { RoleManager: ['getRole'] },
      status: 'active',
      pendingApprovalId: r.body.approval.id,
    });
    expect(r.body.role.description).toBeUndefined();
    expect(r.body.deploymentJobId).toBeNull();
    await review(t, r.body.approval.id, 'approve');
    const updated = await roleWhere(
      t,
      role.id,
      (x) => x.description === 'edits' && x.pendingApprovalId === null,
      'update applied',
    );
    expect(updated.permissions).toEqual({ RoleManager: ['getRole', 'listRoles'] });
    await waitFor(async () => (await doc(role.id))?.description === 'edits', { what: 'update streamed' });
    await snapshotWhere(t, (s) =>
      s.roles.some((x: any) => x.id === role.id && x.permissions.RoleManager.includes('listRoles')),
    );
    const logs = await until(
      async () => ((await logsOf(role.id)).total === 3 ? (await logsOf(role.id)).items : undefined),
      { what: 'update log' },
    );
    expect(logs[2].fieldUpdates.map((f: any) => f.key).sort()).toEqual(['description', 'permissions', 'updatedAt']);
    expect(logs[2].additionalData).toMatchObject({
      event: 'role_update',
      action: 'approve',
      approvalId: r.body.approval.id,
    });

    const renamed = await post('updateRole', { id: role.id, name: 'EDITOR', description: null }, superUser);
    expect(renamed.body.approval).toMatchObject({ approvalStatus: 'pending' });
    await review(t, renamed.body.approval.id, 'approve');
    const afterRename = await roleWhere(
      t,
      role.id,
      (x) => x.name === 'EDITOR' && x.pendingApprovalId === null,
      'rename applied',
    );
    expect(afterRename.description).toBeUndefined();
    const same = await post('updateRole', { id: role.id, name: 'EDITOR' }, superUser);
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ approval: null, deploymentJobId: null });
  });

  test('refusals: unknown role 404, the super role 409, another role name 409, unknown permission 400', async () => {
    const role = await activeRole('Refusable');
    const unknown = await post('updateRole', { id: 'no-such-role', name: 'x' }, superUser);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 9000 });
    const sup = await post('updateRole', { id: 'super', permissions: {} }, superUser);
    expect(sup.status).toBe(409);
    expect(sup.body).toMatchObject({ code: 9004 });
    const clash = await post('updateRole', { id: role.id, name: 'viewer' }, superUser);
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: 9001 });
    const perms = await post('updateRole', { id: role.id, permissions: { RoleManager: ['nope'] } }, superUser);
    expect(perms.status).toBe(400);
    expect(perms.body).toMatchObject({ code: 9002 });
    const onlyId = await post('updateRole', { id: role.id }, superUser);
    expect(onlyId.status).toBe(400);
  });

  test('a role waiting for approval takes no other change', async () => {
    const created = await post('createRole', { name: 'Waiting' }, superUser);
    const r = await post('updateRole', { id: created.body.role.id, description: 'x' }, superUser);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 9003, details: { pendingApprovalId: created.body.approval.id } });
  });

  test('wrong identities', async () => {
    const id = (await storedRole(t, (await activeRole('Untouched')).id)).id;
    for (const who of [member, integration, nobody, viewer])
      expectForbidden(await post('updateRole', { id, description: 'hacked' }, who));
    expect((await storedRole(t, id)).description).toBeUndefined();
  });
});

describe('updateStatus', () => {
  test('super user: waits for approval; once approved the role is inactive, logged, streamed and unpublished', async () => {
    const role = await activeRole('Seasonal');
    await snapshotWhere(t, (s) => s.roles.some((x: any) => x.id === role.id));
    const r = await post('updateStatus', { id: role.id, status: 'inactive' }, superUser);
    expect(r.status).toBe(200);
    expect(r.body.role).toMatchObject({ status: 'active', pendingApprovalId: r.body.approval.id });
    expect(r.body.approval).toMatchObject({
      event: 'role_status_update',
      approvalStatus: 'pending',
      entityOldStatus: 'active',
      entityNewStatus: 'inactive',
    });
    await review(t, r.body.approval.id, 'approve');
    await waitFor(async () => (await doc(role.id))?.status === 'inactive', { what: 'inactive streamed' });
    await snapshotWhere(t, (s) => !s.roles.some((x: any) => x.id === role.id), 'snapshot without the inactive role');
    const logs = await until(
      async () => ((await logsOf(role.id)).total === 3 ? (await logsOf(role.id)).items : undefined),
      { what: 'status log' },
    );
    expect(logs[2].additionalData).toMatchObject({ event: 'role_status_update', action: 'approve' });
  });

  test('refusals and wrong identities', async () => {
    const role = await activeRole('Steady');
    const same = await post('updateStatus', { id: role.id, status: 'active' }, superUser);
    expect(same.status).toBe(409);
    expect(same.body.code).toBe(9008);
    const sup = await post('updateStatus', { id: 'super', status: 'inactive' }, superUser);
    expect(sup.status).toBe(409);
    expect(sup.body.code).toBe(9004);
    const bad = await post('updateStatus', { id: role.id, status: 'pending' }, superUser);
    expect(bad.status).toBe(400);
    expect(bad.body.details.errors).toEqual([{ field: 'status', reason: 'must be one of: active, inactive' }]);
    for (const who of [member, integration, nobody, viewer])
      expectForbidden(await post('updateStatus', { id: role.id, status: 'inactive' }, who));
    expect((await storedRole(t, role.id)).pendingApprovalId).toBeNull();
  });
});

describe('getRole', () => {
  test('by body or query for the super user and a level-10 role that grants it; others refused', async () => {
    const role = await activeRole('Readable');
    for (const who of [superUser, viewer]) {
      const byQuery = await get('getRole', `id=${role.id}`, who);
      expect(byQuery.status).toBe(200);
      expect(byQuery.body.role).toMatchObject({ id: role.id, name: 'Readable', status: 'active' });
      expect((await post('getRole', { id: role.id }, who)).body.role.id).toBe(role.id);
    }
    expect((await get('getRole', 'id=super', viewer)).body.role).toMatchObject({
      id: 'super',
      level: 1,
      status: 'active',
    });
    const missing = await get('getRole', 'id=none', viewer);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe(9000);
    const noId = await get('getRole', '', viewer);
    expect(noId.status).toBe(400);
    expect(noId.body.code).toBe(9010);
    for (const who of [member, integration, nobody]) expectForbidden(await get('getRole', `id=${role.id}`, who));
  });
});

describe('listRoles', () => {
  test('from the document database: filters, search, pages; level-10 viewer allowed, others refused', async () => {
    const a = await activeRole('Zeta Lister', {});
    const b = await post('createRole', { name: 'zeta pending', description: 'waits' }, superUser);
    await waitFor(async () => (await doc(b.body.role.id)) !== null, { what: 'pending role streamed' });
    const all = await get('listRoles', 'search=zeta', viewer);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ totalCount: 2, page: 1, limit: 20, totalPages: 1 });
    expect(all.body.roles.map((r: any) => r.name)).toEqual(['Zeta Lister', 'zeta pending']);
    expect(Object.keys(all.body.roles[0]).sort()).toEqual([
      'builtIn',
      'createdAt',
      'createdBy',
      'id',
      'level',
      'name',
      'pendingApprovalId',
      'permissions',
      'status',
      'updatedAt',
    ]);
    const inactive = await post('listRoles', { search: 'ZETA', status: 'inactive' }, viewer);
    expect(inactive.body.roles.map((r: any) => r.id)).toEqual([b.body.role.id]);
    const byDescription = await get('listRoles', 'search=waits', superUser);
    expect(byDescription.body.roles.map((r: any) => r.id)).toEqual([b.body.role.id]);
    const page2 = await get('listRoles', 'search=zeta&limit=1&page=2', superUser);
    expect(page2.body).toMatchObject({ totalCount: 2, page: 2, limit: 1, totalPages: 2 });
    expect(page2.body.roles.map((r: any) => r.id)).toEqual([b.body.role.id]);
    const regexy = await get('listRoles', `search=${encodeURIComponent('.*')}`, superUser);
    expect(regexy.body.totalCount).toBe(0);
    expect((await get('listRoles', 'status=active&limit=100', superUser)).body.roles.map((r: any) => r.id)).toEqual(
      expect.arrayContaining(['super', a.id]),
    );
    for (const q of ['limit=0', 'limit=101', 'page=0', 'status=pending', 'sort=name']) {
      const r = await get('listRoles', q, viewer);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe(9007);
    }
    expect((await post('listRoles', { limit: '5' }, viewer)).status).toBe(400);
    for (const who of [member, integration, nobody]) expectForbidden(await get('listRoles', '', who));
  });
});

describe('getPermissions', () => {
  test('the catalogue of class keys and method names a program management user may call', async () => {
    const r = await get('getPermissions', '', superUser);
    expect(r.status).toBe(200);
    const p = r.body.permissions as Record<string, string[]>;
    expect(p.RoleManager).toEqual([
      'createRole',
      'getPermissions',
      'getRole',
      'getRolesForAuthentication',
      'init',
      'listRoles',
      'saveRolesToLayerAndTriggerDeployment',
      'setState',
      'updateRole',
      'updateStatus',
    ]);
    expect(p.ApprovalManager).toEqual(expect.arrayContaining(['reviewApproval', 'listApprovals', 'getApproval']));
    expect(p.ApprovalManager).not.toContain('createApproval');
    expect(p.Workflow).toBeDefined();
    expect(Object.keys(p)).toEqual([...Object.keys(p)].sort());
    for (const who of [member, integration, nobody, viewer]) expectForbidden(await get('getPermissions', '', who));
  });
});

describe('getRolesForAuthentication', () => {
  test('active roles by id or name, or all active; refused to others', async () => {
    const inactive = (await post('createRole', { name: 'Never active' }, superUser)).body.role;
    const r = await post(
      'getRolesForAuthentication',
      { names: ['viewer', 'super', inactive.id, 'unknown'] },
      superUser,
    );
    expect(r.status).toBe(200);
    expect(r.body.roles.map((x: any) => x.name).sort()).toEqual(['super', 'viewer']);
    expect(r.body.roles.find((x: any) => x.name === 'viewer')).toEqual({
      id: expect.any(String),
      name: 'viewer',
      level: 10,
      permissions: { RoleManager: ['getRole', 'listRoles'] },
      status: 'active',
    });
    const all = await post('getRolesForAuthentication', {}, superUser);
    expect(all.body.roles.every((x: any) => x.status === 'active')).toBe(true);
    expect(all.body.roles.map((x: any) => x.id)).not.toContain(inactive.id);
    expect(all.body.roles.length).toBeGreaterThanOrEqual(3);
    for (const who of [member, integration, nobody, viewer])
      expectForbidden(await post('getRolesForAuthentication', { names: ['super'] }, who));
  });
});

describe('approve (the approval callback)', () => {
  test('only ApprovalManager may call it; a callback for an approval the role does not wait for fails with 9005', async () => {
    const role = await activeRole('Callbacked');
    const body = {
      approvalId: 'forged',
      action: 'approve',
      event: 'role_status_update',
      entityId: role.id,
      jsonPatch: [{ op: 'replace', path: '/status', value: 'inactive' }],
    };
    for (const who of [superUser, member, integration]) expectForbidden(await post('approve', body, who));
    const other = await t.rt.dispatcher
      .call({
        classId: 'RoleManager',
        method: 'approve',
        instanceId: 'default',
        body,
        identity: { type: 'class', classId: 'Workflow' },
        origin: 'class',
      })
      .catch((e) => e);
    expect(other.status).toBe(403);
    const queued = await t.rt.dispatcher.call({
      classId: 'RoleManager',
      method: 'approve',
      instanceId: 'default',
      body,
      identity: { type: 'class', classId: 'ApprovalManager' },
      origin: 'class',
    });
    expect(queued.status).toBe(202);
    const jobId = (queued.body as { jobId: string }).jobId;
    const failed = await until(
      async () => {
        const s = (await t.rt.jobs.status(jobId)).status;
        return s.status === 'failed' ? s : undefined;
      },
      { what: 'refused callback' },
    );
    expect(failed.error).toMatchObject({ status: 409, body: { code: 9005, classId: 'RoleManager' } });
    expect((await storedRole(t, role.id)).status).toBe('active');
  });

  test('reject: the role keeps its status and takes changes again', async () => {
    const created = await post('createRole', { name: 'Rejected one' }, superUser);
    await review(t, created.body.approval.id, 'reject');
    const role = await roleWhere(t, created.body.role.id, (r) => r.pendingApprovalId === null, 'rejected role settled');
    expect(role.status).toBe('inactive');
    expect((await post('updateRole', { id: role.id, description: 'again' }, superUser)).status).toBe(200);
  });
});

describe('saveRolesToLayerAndTriggerDeployment', () => {
  test('super user: 202 + job; the answer says nothing changed when the snapshot already holds the roles', async () => {
    const snap = await t.rt.ports.roles.current();
    const r = await post('saveRolesToLayerAndTriggerDeployment', {}, superUser);
    expect(r.status).toBe(202);
    const job = await jobOutcome(t, r.body.jobId, superUser);
    expect(job).toMatchObject({
      status: 'completed',
      result: { status: 200, body: { isUpdated: false, hash: snap!.hash } },
    });
    expect(Object.keys(job.result.body).sort()).toEqual(['hash', 'isUpdated']);
    expect((await t.rt.ports.roles.current())!.version).toBe(snap!.version);
  });

  test('a changed role set is published with the next version and its hash', async () => {
    const before = await t.rt.ports.roles.current();
    await t.rt.redis.set(t.rt.store.keys.roles, JSON.stringify({ ...before, hash: 'stale' }));
    const r = await post('saveRolesToLayerAndTriggerDeployment', { trigger: 'manual' }, superUser);
    const job = await jobOutcome(t, r.body.jobId, superUser);
    expect(job.result.body).toEqual({ isUpdated: true, hash: before!.hash });
    const after = await t.rt.ports.roles.current();
    expect(after).toMatchObject({
      version: before!.version + 1,
      hash: before!.hash,
      roles: before!.roles,
      publishedAt: expect.any(String),
    });
  });

  test('wrong identities', async () => {
    for (const who of [member, integration, nobody, viewer])
      expectForbidden(await post('saveRolesToLayerAndTriggerDeployment', {}, who));
  });
});

describe('init', () => {
  test('the singleton exists already: the super user passes the checks and gets 409; others are refused', async () => {
    const r = await post('init', {}, superUser);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe(1009);
    for (const who of [member, integration, nobody, viewer]) expectForbidden(await post('init', {}, who));
  });
});

describe('super user and level-10 user', () => {
  test('the super user passes the role check of every RoleManager operation; the viewer only of what its role grants', async () => {
    const catalogue = (await get('getPermissions', '', superUser)).body.permissions.RoleManager as string[];
    const viewerGrants = ['getRole', 'listRoles'];
    for (const method of catalogue) {
      const asSuper = await post(method, {}, superUser);
      expect([method, asSuper.status]).not.toEqual([method, 403]);
      const asViewer = await post(method, {}, viewer);
      if (viewerGrants.includes(method)) expect([method, asViewer.status]).not.toEqual([method, 403]);
      else expect([method, asViewer.status, asViewer.body.code]).toEqual([method, 403, 1008]);
    }
  });
});

describe('setState (last: it replaces the roles)', () => {
  test('only developers and the system; invalid states are refused; a valid state replaces the roles, keeps super, is logged and published', async () => {
    const dev = developer(t, 'dora', ['super']);
    const viewerRole = (await post('getRolesForAuthentication', { names: ['viewer'] }, superUser)).body.roles[0];
    const roles = [
      { ...viewerRole },
      { id: 'ops', name: 'Ops', level: 10, permissions: { RoleManager: ['getRole'] }, status: 'active' },
      { id: 'super', name: 'super', level: 10, permissions: {}, status: 'inactive' },
    ];
    for (const who of [member, integration, nobody, viewer]) expectForbidden(await post('setState', { roles }, who));
    // level 1 is not enough: setState is past every workflow, for developers and the system identity only
    const bySuper = await post('setState', { roles }, superUser);
    expect(bySuper.status).toBe(403);
    expect(bySuper.body).toMatchObject({ code: 9016, classId: 'RoleManager' });

    const badPerm = await post('setState', { roles: [{ ...roles[1], permissions: { Ghost: ['boo'] } }] }, dev);
    expect(badPerm.status).toBe(400);
    expect(badPerm.body).toMatchObject({
      code: 9009,
      details: { errors: [{ field: 'roles.0.permissions.Ghost', reason: "unknown class 'Ghost'" }] },
    });
    const dupName = await post('setState', { roles: [roles[1], { ...roles[1], id: 'ops2', name: 'OPS' }] }, dev);
    expect(dupName.status).toBe(409);
    expect(dupName.body.code).toBe(9001);
    const dupId = await post('setState', { roles: [roles[1], { ...roles[1], name: 'Other' }] }, dev);
    expect(dupId.status).toBe(400);
    expect(dupId.body.code).toBe(9009);
    expect((await post('setState', { roles: [{ id: 'x', name: 'x' }] }, dev)).status).toBe(400);
    for (const id of ['__proto__', 'constructor']) {
      const r = await post('setState', { roles: [{ ...roles[1], id }] }, dev);
      expect([id, r.status, r.body.code]).toEqual([id, 400, 1002]);
    }

    const ok = await post('setState', { roles }, dev);
    expect(ok.status).toBe(200);
    expect(ok.body.roles).toEqual(['ops', 'super', viewerRole.id].sort());
    expect(await storedRole(t, 'super')).toMatchObject({ level: 1, status: 'active' });
    const snap = await snapshotWhere(t, (s) => s.roles.length === 3 && s.roles.some((r: any) => r.id === 'ops'));
    expect(snap.roles.map((r: any) => r.id).sort()).toEqual(['ops', 'super', viewerRole.id].sort());
    await waitFor(async () => (await t.rt.documents.count('roles', {})) === 3, { what: 'streamed roles replaced' });
    const log = await waitFor(
      async () => (await findLogs(t, { classId: 'RoleManager', entityType: 'roles' })).items[0],
      { what: 'setState log' },
    );
    expect(log.additionalData).toEqual({ event: 'setState' });
    expect(log.actor).toMatchObject({ id: 'dora', type: 'developer' });
    // the viewer keeps its grants, the super user still does everything
    expect((await get('listRoles', '', viewer)).status).toBe(200);
    expect((await get('getRole', 'id=ops', superUser)).body.role).toMatchObject({
      name: 'Ops',
      createdBy: { id: 'system' },
    });
  });
});
