/**
 * Setting through real HTTP: the singleton, every operation with the right
 * and a wrong identity, the workflow (approval of creations, automatic
 * updates and status changes), the audit log, streaming and listing.
 */
import { ActorError, type Identity } from '../../runtime';
import { waitFor } from '../support/harness';
import { bearer, startServiceRuntime, type ServiceTestRuntime } from './support';
import { findLogs } from '../support/logs';

let t: ServiceTestRuntime;
const MEMBER_CLASS: Identity = { type: 'class', classId: 'Member', instanceId: 'm-1' };

beforeAll(async () => {
  t = await startServiceRuntime();
});
afterAll(() => t.stop());

const call = (method: string, body: unknown = {}, headers = t.superUser) => t.call('Setting', method, body, headers);
const query = (method: string, q: Record<string, string | number> = {}, headers = t.superUser) =>
  t.query('Setting', method, q, headers);
const asClass = async (method: string, body: unknown, identity: Identity = MEMBER_CLASS) =>
  (await t.rt.call('Setting', method, 'default', body, { identity, origin: 'class' })) as { status: number; body: any };
const settingDoc = (group: string, id: string) => t.rt.documents.get('settings', `${group}:${id}`);
const logsOf = async (entityId: string) => (await findLogs(t, { classId: 'Setting', entityId })).items;

const GET_METHOD: Record<string, string> = {
  companyGroups: 'getCompanyGroup',
  memberTypes: 'getMemberType',
  memberSubTypes: 'getMemberSubType',
  tierTypes: 'getTierType',
};

/** creates a record as the super user; approves a pending creation and waits until it is active */
async function created(method: string, body: Record<string, unknown>, group: string): Promise<Record<string, any>> {
  const r = await call(method, body);
  expect(r.status).toBe(201);
  if (r.body.item.status === 'active') return r.body.item;
  return t.review(r.body.approval.id, 'approve', async () => {
    const got = await query(GET_METHOD[group], { id: r.body.item.id });
    return got.body.status === 'active' ? got.body : undefined;
  });
}

describe('the singleton', () => {
  test('reads before the singleton exists answer the unknown-instance 500; init makes it with the default groups', async () => {
    const before = await query('getPaymentPeriods');
    expect(before.status).toBe(500);
    expect(Object.keys(before.body)).toEqual(['message']);

    expect((await call('init', {}, t.member)).status).toBe(403);
    expect((await call('init', {}, t.clerk)).status).toBe(403); // level 10 without Setting.init
    const r = await call('init', {});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: 'default',
      groups: {
        companyGroups: { title: 'Company groups', value: [] },
        memberTypes: { value: [] },
        memberSubTypes: { value: [] },
        tierTypes: { value: [] },
        tierConfig: {
          value: {
            paymentPeriods: [
              { key: 'monthly', label: 'Monthly' },
              { key: 'quarterly', label: 'Quarterly' },
              { key: 'yearly', label: 'Yearly' },
            ],
          },
        },
      },
    });
    const again = await call('init', {});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe(1009);
  });

  test('another instance id is refused (400, 10033) and creates nothing', async () => {
    const r = await t.post(
      `/${t.projectId}/CALL/Setting/createTierType/other`,
      { name: 'X', tierGroup: 'base' },
      t.superUser,
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 10033, classId: 'Setting' });
    expect(await t.rt.store.read('Setting', 'other')).toBeFalsy();
    expect(await t.rt.store.read('Setting', 'default')).toBeTruthy();
  });
});

describe('company groups', () => {
  test('create (pending) → approval by an approver → active; each step streamed and audit-logged', async () => {
    const r = await call('createCompanyGroup', {
      name: 'Internal staff',
      description: 'own companies',
      type: 'internal',
    });
    expect(r.status).toBe(201);
    const { item, approval } = r.body;
    expect(item).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Internal staff',
      description: 'own companies',
      type: 'internal',
      status: 'pending',
      createdBy: { id: 'root', type: 'program_management_user', roles: ['super'] },
      createdAt: expect.any(String),
      updatedAt: item.createdAt,
      pendingApprovalId: approval.id,
    });
    expect(approval).toMatchObject({
      event: 'setting_create',
      approvalStatus: 'pending',
      approvalType: 'manual',
      entityNewStatus: 'active',
    });
    const record = (await t.get(`/${t.projectId}/CALL/ApprovalManager/getApproval/${approval.id}`, t.approver)).body;
    expect(record).toMatchObject({
      classId: 'Setting',
      instanceId: 'default',
      entityId: item.id,
      approvers: ['approver'],
      additionalData: { group: 'companyGroups' },
    });
    await waitFor(async () => (await settingDoc('companyGroups', item.id))?.pendingApprovalId === approval.id, {
      what: 'pending group streamed',
    });

    // the super user may do everything but review: only approvers review
    const bySuper = await t.post(
      `/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approval.id}`,
      { action: 'approve' },
      t.superUser,
    );
    expect(bySuper.status).toBe(403);
    const busy = await call('updateCompanyGroup', { id: item.id, name: 'Renamed' });
    expect(busy.status).toBe(409);
    expect(busy.body.code).toBe(10025);

    await t.review(approval.id, 'approve', async () => {
      const d = await settingDoc('companyGroups', item.id);
      return d?.status === 'active' && d.pendingApprovalId === null;
    });
    const got = await query('getCompanyGroup', { id: item.id });
    expect(got.body).toMatchObject({ status: 'active', pendingApprovalId: null, name: 'Internal staff' });
    // the approval bumped updatedAt
    expect(Date.parse(got.body.updatedAt)).toBeGreaterThan(Date.parse(item.updatedAt));
    const logs = await waitFor(
      async () => {
        const l = await logsOf(item.id);
        return l.length === 2 ? l : undefined;
      },
      { what: 'two log entries' },
    );
    expect(logs![0]).toMatchObject({
      entityType: 'companyGroups',
      actor: { id: 'root' },
      additionalData: { group: 'companyGroups', approvalId: approval.id },
    });
    expect(logs![1].fieldUpdates).toEqual([
      { key: 'status', operation: 'replace', oldValue: '"pending"', newValue: '"active"' },
      {
        key: 'updatedAt',
        operation: 'replace',
        oldValue: JSON.stringify(item.updatedAt),
        newValue: JSON.stringify(got.body.updatedAt),
      },
    ]);
    // the approved change's entry names the reviewer, not class:ApprovalManager
    expect(logs![1]).toMatchObject({
      actor: { id: 'ann', type: 'program_management_user' },
      additionalData: { action: 'approve' },
    });
  });

  test('a rejected creation leaves the value inactive', async () => {
    const r = await call('createCompanyGroup', { name: 'Partners', type: 'external' });
    const id = r.body.item.id;
    await t.review(
      r.body.approval.id,
      'reject',
      async () => (await settingDoc('companyGroups', id))?.status === 'inactive',
    );
    expect((await query('getCompanyGroup', { id })).body).toMatchObject({
      status: 'inactive',
      pendingApprovalId: null,
    });
  });

  test('update and status update apply at once (auto approval) and are logged; the level-10 clerk and a member are refused', async () => {
    const g = await created('createCompanyGroup', { name: 'Affiliates', type: 'external' }, 'companyGroups');
    for (const headers of [t.clerk, t.member]) {
      expect((await call('createCompanyGroup', { name: 'Nope', type: 'internal' }, headers)).status).toBe(403);
      expect((await call('updateCompanyGroup', { id: g.id, name: 'Nope' }, headers)).status).toBe(403);
      expect((await call('updateCompanyGroupStatus', { id: g.id, status: 'inactive' }, headers)).status).toBe(403);
    }
    const u = await call('updateCompanyGroup', {
      id: g.id,
      name: 'Affiliated companies',
      type: 'internal',
      description: 'sister firms',
    });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({
      item: {
        name: 'Affiliated companies',
        type: 'internal',
        description: 'sister firms',
        status: 'active',
        pendingApprovalId: null,
      },
      approval: { event: 'setting_update', approvalType: 'auto' },
    });
    const s = await call('updateCompanyGroupStatus', { id: g.id, status: 'inactive' });
    expect(s.body).toMatchObject({
      item: { status: 'inactive' },
      approval: { event: 'setting_status_update', approvalType: 'auto', entityNewStatus: 'inactive' },
      newStatus: 'inactive',
    });
    await waitFor(async () => (await settingDoc('companyGroups', g.id))?.status === 'inactive', {
      what: 'status streamed',
    });
    const logs = await waitFor(
      async () => {
        const l = await logsOf(g.id);
        return l.length === 4 ? l : undefined;
      },
      { what: 'create, approve, update and status logs' },
    );
    expect(logs![2].fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual([
      'description',
      'name',
      'type',
      'updatedAt',
    ]);
    expect(logs![3].fieldUpdates.map((f: { key: string }) => f.key).sort()).toEqual(['status', 'updatedAt']);
  });

  test('names and ids are unique within the group (409); unknown ids are 404; empty updates 400', async () => {
    const g = await created(
      'createCompanyGroup',
      { id: 'cg-fixed', name: 'Retirees', type: 'internal' },
      'companyGroups',
    );
    expect(g.id).toBe('cg-fixed');
    const sameName = await call('createCompanyGroup', { name: '  RETIREES ', type: 'external' });
    expect([sameName.status, sameName.body.code]).toEqual([409, 10021]);
    const sameId = await call('createCompanyGroup', { id: 'cg-fixed', name: 'Other', type: 'external' });
    expect([sameId.status, sameId.body.code]).toEqual([409, 10022]);
    const other = await created('createCompanyGroup', { name: 'Contractors', type: 'external' }, 'companyGroups');
    const rename = await call('updateCompanyGroup', { id: other.id, name: 'retirees' });
    expect([rename.status, rename.body.code]).toEqual([409, 10021]);
    // another group may use the name
    expect((await call('createTierType', { name: 'Retirees', tierGroup: 'base' })).status).toBe(201);
    const missing = await call('updateCompanyGroup', { id: 'nope', name: 'x' });
    expect([missing.status, missing.body.code]).toEqual([404, 10020]);
    expect((await query('getCompanyGroup', { id: 'nope' })).body.code).toBe(10020);
    const empty = await call('updateCompanyGroup', { id: other.id });
    expect([empty.status, empty.body.code]).toEqual([400, 10036]);
    const bad = await call('createCompanyGroup', { name: 'x', type: 'partner' });
    expect([bad.status, bad.body.code]).toEqual([400, 1002]);
    expect(bad.body.details.errors).toEqual([{ field: 'type', reason: 'must be one of: internal, external' }]);
  });
});

describe('member types and member sub types', () => {
  let regular: Record<string, any>;
  beforeAll(async () => {
    regular = await created('createMemberType', { name: 'Regular', systemIdentifier: 'Permanent' }, 'memberTypes');
  });

  test('systemIdentifier is unique (case-insensitive) and found for the HR employmentType, active only', async () => {
    const clash = await call('createMemberType', { name: 'Club', systemIdentifier: 'PERMANENT' });
    expect([clash.status, clash.body.code]).toEqual([409, 10029]);
    const found = await asClass('findMemberTypeBySystemIdentifier', { systemIdentifier: 'permanent' });
    expect(found.body).toMatchObject({ id: regular.id, name: 'Regular', status: 'active' });
    expect((await query('findMemberTypeBySystemIdentifier', { systemIdentifier: 'Permanent' }, t.clerk)).body.id).toBe(
      regular.id,
    );

    const pending = (await call('createMemberType', { name: 'Temporary staff', systemIdentifier: 'Temporary' })).body
      .item;
    await expect(asClass('findMemberTypeBySystemIdentifier', { systemIdentifier: 'temporary' })).rejects.toMatchObject({
      status: 404,
      code: 10020,
    });
    expect(
      (await asClass('findMemberTypeBySystemIdentifier', { systemIdentifier: 'temporary', includeInactive: true }))
        .body,
    ).toMatchObject({ id: pending.id, status: 'pending' });
    expect((await query('findMemberTypeBySystemIdentifier', { systemIdentifier: 'Temporary' }, t.member)).status).toBe(
      403,
    );
  });

  test('member sub types map HR relationships (case-insensitive, unique across sub types) and may name a member type', async () => {
    const spouse = await created(
      'createMemberSubType',
      { name: 'Spouse', hrmsMapping: ['Spouse', 'Wife', 'wife', 'Husband'], memberTypeId: regular.id },
      'memberSubTypes',
    );
    expect(spouse).toMatchObject({ hrmsMapping: ['Spouse', 'Wife', 'Husband'], memberTypeId: regular.id });
    const clash = await call('createMemberSubType', { name: 'Partner', hrmsMapping: ['HUSBAND'] });
    expect([clash.status, clash.body.code]).toEqual([409, 10030]);
    const badRef = await call('createMemberSubType', {
      name: 'Child',
      hrmsMapping: ['Child'],
      memberTypeId: 'no-such-type',
    });
    expect([badRef.status, badRef.body.code]).toEqual([400, 10031]);

    const found = await asClass('findMemberSubTypeByHrmsMapping', { relation: 'WIFE' });
    expect(found.body).toMatchObject({ id: spouse.id, name: 'Spouse' });
    await expect(asClass('findMemberSubTypeByHrmsMapping', { relation: 'cousin' })).rejects.toMatchObject({
      status: 404,
      code: 10020,
    });
    expect((await query('findMemberSubTypeByHrmsMapping', { relation: 'husband' }, t.clerk)).body.id).toBe(spouse.id);
    expect((await query('findMemberSubTypeByHrmsMapping', { relation: 'husband' }, t.member)).status).toBe(403);

    const upd = await call('updateMemberSubType', { id: spouse.id, hrmsMapping: ['Spouse'], memberTypeId: null });
    expect(upd.body.item).toMatchObject({ hrmsMapping: ['Spouse'] });
    expect(upd.body.item.memberTypeId).toBeUndefined();
    await expect(asClass('findMemberSubTypeByHrmsMapping', { relation: 'wife' })).rejects.toMatchObject({
      status: 404,
    });
    const off = await call('updateMemberSubTypeStatus', { id: spouse.id, status: 'inactive' });
    expect(off.body.item.status).toBe('inactive');
    await expect(asClass('findMemberSubTypeByHrmsMapping', { relation: 'spouse' })).rejects.toMatchObject({
      status: 404,
    });
    expect(
      (await asClass('findMemberSubTypeByHrmsMapping', { relation: 'spouse', includeInactive: true })).body.id,
    ).toBe(spouse.id);
  });

  test('gets answer the record to program management users and classes; 404 when absent; members are refused', async () => {
    expect((await query('getMemberType', { id: regular.id }, t.clerk)).body).toMatchObject({
      id: regular.id,
      systemIdentifier: 'Permanent',
    });
    expect((await asClass('getMemberType', { id: regular.id })).body).toMatchObject({ id: regular.id });
    expect((await call('getMemberType', { id: regular.id })).status).toBe(200); // POST works as well
    await expect(asClass('getMemberSubType', { id: 'nope' })).rejects.toMatchObject({ status: 404, code: 10020 });
    for (const method of ['getMemberType', 'getMemberSubType', 'getCompanyGroup', 'getTierType']) {
      expect((await query(method, { id: regular.id }, t.member)).status).toBe(403);
    }
    const noId = await query('getMemberType', {});
    expect([noId.status, noId.body.code]).toEqual([400, 10028]);
  });

  test('updates and status updates of member types and sub types: the clerk is refused', async () => {
    const sub = await created('createMemberSubType', { name: 'Parent', hrmsMapping: ['Parent'] }, 'memberSubTypes');
    for (const [method, body] of [
      ['createMemberType', { name: 'x', systemIdentifier: 'x' }],
      ['updateMemberType', { id: regular.id, name: 'x' }],
      ['updateMemberTypeStatus', { id: regular.id, status: 'inactive' }],
      ['createMemberSubType', { name: 'x' }],
      ['updateMemberSubType', { id: sub.id, name: 'x' }],
      ['updateMemberSubTypeStatus', { id: sub.id, status: 'inactive' }],
    ] as const) {
      const r = await call(method, body, t.clerk);
      expect([method, r.status, r.body.code]).toEqual([method, 403, 1008]);
    }
    const u = await call('updateMemberType', { id: regular.id, description: 'full-time staff' });
    expect(u.body.item).toMatchObject({ description: 'full-time staff', status: 'active' });
    const s = await call('updateMemberTypeStatus', { id: regular.id, status: 'pending' });
    expect([s.status, s.body.code]).toEqual([400, 10023]);
    const same = await call('updateMemberTypeStatus', { id: regular.id, status: 'active' });
    expect([same.status, same.body.code]).toEqual([409, 10024]);
  });
});

describe('tier types and payment periods', () => {
  test('tier types start active (no approval); listTierTypes filters by group and status', async () => {
    const base = (await call('createTierType', { name: 'Gold', tierGroup: 'base' })).body;
    expect(base).toMatchObject({
      item: { status: 'active', tierGroup: 'base' },
      approval: { approvalType: 'auto', approvalStatus: 'approved' },
    });
    const addOn = (await call('createTierType', { name: 'Gym', tierGroup: 'add_on' })).body.item;
    await call('updateTierTypeStatus', { id: addOn.id, status: 'inactive' });
    await waitFor(async () => (await settingDoc('tierTypes', addOn.id))?.status === 'inactive');
    await waitFor(async () => (await settingDoc('tierTypes', base.item.id)) !== null);

    const byGroup = await query('listTierTypes', { group: 'add_on' });
    expect(byGroup.body.items.map((i: { id: string }) => i.id)).toEqual([addOn.id]);
    const active = await query('listTierTypes', { tierGroup: 'base', status: 'active' }, t.clerk);
    expect(active.body.items.map((i: { name: string }) => i.name)).toContain('Gold');
    expect(
      active.body.items.every(
        (i: { tierGroup: string; status: string }) => i.tierGroup === 'base' && i.status === 'active',
      ),
    ).toBe(true);
    expect((await query('listTierTypes', {}, t.member)).status).toBe(403);

    expect(
      (await asClass('getTierType', { id: base.item.id }, { type: 'class', classId: 'Tier', instanceId: 't1' })).body,
    ).toMatchObject({ name: 'Gold', tierGroup: 'base' });
    const fixedGroup = await call('updateTierType', { id: base.item.id, tierGroup: 'upgrade' });
    expect([fixedGroup.status, fixedGroup.body.code]).toEqual([400, 1002]);
    expect((await call('updateTierType', { id: base.item.id, name: 'Gold plus' })).body.item).toMatchObject({
      name: 'Gold plus',
      tierGroup: 'base',
    });
    expect((await call('updateTierType', { id: base.item.id, name: 'x' }, t.clerk)).status).toBe(403);
    expect((await call('createTierType', { name: 'x', tierGroup: 'base' }, t.clerk)).status).toBe(403);
    expect((await call('updateTierTypeStatus', { id: base.item.id, status: 'inactive' }, t.clerk)).status).toBe(403);
  });

  test('payment periods: read by users and classes, replaced by setPaymentPeriods (keys unique), logged', async () => {
    expect((await query('getPaymentPeriods', {}, t.clerk)).body.paymentPeriods).toHaveLength(3);
    expect(
      (await asClass('getPaymentPeriods', {}, { type: 'class', classId: 'Tier', instanceId: 't1' })).body
        .paymentPeriods[0],
    ).toEqual({ key: 'monthly', label: 'Monthly' });
    expect((await query('getPaymentPeriods', {}, t.member)).status).toBe(403);

    const dup = await call('setPaymentPeriods', {
      paymentPeriods: [
        { key: 'monthly', label: 'a' },
        { key: 'Monthly', label: 'b' },
      ],
    });
    expect([dup.status, dup.body.code]).toEqual([400, 10032]);
    expect(
      (await call('setPaymentPeriods', { paymentPeriods: [{ key: 'weekly', label: 'Weekly' }] }, t.clerk)).status,
    ).toBe(403);
    const set = await call('setPaymentPeriods', {
      paymentPeriods: [
        { key: 'monthly', label: 'Monthly' },
        { key: 'semi_annual', label: 'Every six months' },
      ],
    });
    expect(set.body).toMatchObject({
      paymentPeriods: [{ key: 'monthly' }, { key: 'semi_annual' }],
      approval: { event: 'setting_update', approvalType: 'auto' },
    });
    expect((await query('getPaymentPeriods')).body.paymentPeriods.map((p: { key: string }) => p.key)).toEqual([
      'monthly',
      'semi_annual',
    ]);
    const logs = await waitFor(async () => {
      const l = await logsOf('tierConfig');
      return l.length ? l : undefined;
    });
    expect(logs![0]).toMatchObject({
      entityType: 'tierConfig',
      fieldUpdates: [{ key: 'paymentPeriods', operation: 'replace' }],
    });
  });
});

describe('configuration, groups and lists', () => {
  test('getProgramManagementConfig has the active values of every group', async () => {
    const r = await query('getProgramManagementConfig', {}, t.clerk);
    expect(r.status).toBe(200);
    const all = (await query('listSettings', { limit: 100 })).body.items as {
      group: string;
      status: string;
      id: string;
    }[];
    for (const group of ['companyGroups', 'memberTypes', 'memberSubTypes', 'tierTypes']) {
      const active = all
        .filter((i) => i.group === group && i.status === 'active')
        .map((i) => i.id)
        .sort();
      expect([group, (r.body[group] as { id: string }[]).map((v) => v.id).sort()]).toEqual([group, active]);
      expect(active.length).toBeGreaterThan(0);
    }
    expect(r.body.tierGroups).toEqual(['base', 'upgrade', 'add_on']);
    expect(
      (await asClass('getProgramManagementConfig', {}, { type: 'class', classId: 'Company', instanceId: 'default' }))
        .status,
    ).toBe(200);
    expect((await query('getProgramManagementConfig', {}, t.member)).status).toBe(403);
  });

  test('getSetting answers one group {group, title, description, value}; an unknown group is 400', async () => {
    const r = await query('getSetting', { group: 'tierConfig' }, t.clerk);
    expect(r.body).toMatchObject({
      group: 'tierConfig',
      title: 'Tier configuration',
      value: { paymentPeriods: expect.any(Array) },
    });
    expect((await call('getSetting', { group: 'memberTypes' })).body.value.length).toBeGreaterThan(0);
    const bad = await query('getSetting', { group: 'colours' });
    expect([bad.status, bad.body.code]).toEqual([400, 10034]);
    expect((await query('getSetting', { group: 'tierConfig' }, t.member)).status).toBe(403);
  });

  test('lists read the document store: group, status, search, pagination; bad parameters are 400', async () => {
    for (const name of ['Alpha club', 'Beta club', 'Gamma club'])
      await created('createCompanyGroup', { name, type: 'external' }, 'companyGroups');
    await waitFor(async () => (await query('listCompanyGroups', { search: 'CLUB' })).body.totalCount === 3, {
      what: 'three clubs listed',
    });
    const page2 = await query('listCompanyGroups', { search: 'club', limit: 2, page: 2 }, t.clerk);
    expect(page2.body).toMatchObject({ totalCount: 3, page: 2, limit: 2, totalPages: 2 });
    expect(page2.body.items.map((i: { name: string }) => i.name)).toEqual(['Gamma club']);
    expect(page2.body.items[0]._id).toBeUndefined();
    expect(page2.body.items[0].nameKey).toBeUndefined();
    const posted = await call('listCompanyGroups', { search: 'club', type: 'external', status: 'active', limit: 1 });
    expect(posted.body.items.map((i: { name: string }) => i.name)).toEqual(['Alpha club']);
    expect(
      (await query('listCompanyGroups', { status: 'inactive' })).body.items.every(
        (i: { status: string }) => i.status === 'inactive',
      ),
    ).toBe(true);
    expect(
      (await query('listMemberTypes', { search: 'regular' }, t.clerk)).body.items.map((i: { name: string }) => i.name),
    ).toEqual(['Regular']);
    expect(
      (await query('listMemberSubTypes', { status: 'active' }, t.clerk)).body.items.map(
        (i: { name: string }) => i.name,
      ),
    ).toEqual(['Parent']);
    const settings = await query('listSettings', { search: 'club', group: 'companyGroups' }, t.clerk);
    expect(settings.body.totalCount).toBe(3);
    expect(
      (await query('listSettings', { group: 'tierTypes' })).body.items.every(
        (i: { group: string }) => i.group === 'tierTypes',
      ),
    ).toBe(true);

    for (const [q, field] of [
      [{ page: 0 }, 'page'],
      [{ limit: 101 }, 'limit'],
      [{ status: 'gone' }, 'status'],
      [{ colour: 'red' }, 'colour'],
    ] as const) {
      const r = await query('listCompanyGroups', q);
      expect([r.status, r.body.code, r.body.details.errors[0].field]).toEqual([400, 10028, field]);
    }
    expect((await call('listCompanyGroups', { limit: 0 })).status).toBe(400);
    for (const method of ['listCompanyGroups', 'listMemberTypes', 'listMemberSubTypes', 'listSettings']) {
      expect((await query(method, {}, t.member)).status).toBe(403);
    }
  });

  test('stream* re-project the values into the document store; the clerk is refused', async () => {
    const g = (await query('listCompanyGroups', { search: 'alpha' })).body.items[0];
    const mt = (await query('listMemberTypes', {})).body.items[0];
    const st = (await query('listMemberSubTypes', {})).body.items[0];
    const tt = (await query('listTierTypes', {})).body.items[0];
    await t.rt.documents.drop('settings');
    expect(await settingDoc('companyGroups', g.id)).toBeNull();
    for (const [method, group, id] of [
      ['streamCompanyGroup', 'companyGroups', g.id],
      ['streamMemberType', 'memberTypes', mt.id],
      ['streamMemberSubType', 'memberSubTypes', st.id],
      ['streamTierType', 'tierTypes', tt.id],
    ]) {
      expect((await call(method, { id }, t.clerk)).status).toBe(403);
      expect((await call(method, { id }, t.member)).status).toBe(403);
      const r = await call(method, { id });
      expect(r.body).toEqual({ streamed: true, group, id, collection: 'settings', documentId: `${group}:${id}` });
      await waitFor(async () => (await settingDoc(group, id))?.id === id, { what: `${group} re-streamed` });
    }
    const missing = await call('streamTierType', { id: 'nope' });
    expect([missing.status, missing.body.code]).toEqual([404, 10020]);
  });

  test('approveSetting is for ApprovalManager only; an approval not awaited is refused; a change that no longer fits is not applied', async () => {
    const AM: Identity = { type: 'class', classId: 'ApprovalManager', instanceId: 'x' };
    const callback = (body: Record<string, unknown>) =>
      t.rt.call('Setting', 'approveSetting', 'default', body, { identity: AM, origin: 'class' });
    const outcome = (jobId: string) =>
      waitFor(
        async () => {
          const { status } = await t.rt.jobs.status(jobId);
          return status.status === 'completed' || status.status === 'failed' ? status : undefined;
        },
        { what: `job ${jobId}` },
      );
    const body = {
      approvalId: 'x',
      action: 'approve',
      event: 'setting_create',
      entityId: 'x',
      jsonPatch: [],
      additionalData: { group: 'tierTypes' },
    };
    expect((await call('approveSetting', body)).status).toBe(403);
    expect((await call('approveSetting', body, t.clerk)).status).toBe(403);

    const notAwaited = await callback(body);
    expect(notAwaited.status).toBe(202);
    const failed = await outcome((notAwaited.body as { jobId: string }).jobId);
    expect(failed).toMatchObject({ status: 'failed', error: { status: 409, body: { code: 10026 } } });
    // the tier configuration, the whole state and a group Setting does not have wait for nothing either
    for (const additionalData of [{ group: 'tierConfig' }, { group: 'all' }, { group: 'nonsense' }]) {
      const refused = await callback({ ...body, entityId: 'tierConfig', additionalData });
      expect(await outcome((refused.body as { jobId: string }).jobId)).toMatchObject({
        status: 'failed',
        error: { status: 409, body: { code: 10026, details: { waiting: null } } },
      });
    }

    const pending = (await call('createMemberType', { name: 'Conflicted', systemIdentifier: 'Conflicted' })).body;
    const conflictingBody = {
      ...body,
      approvalId: pending.approval.id,
      event: 'setting_create',
      entityId: pending.item.id,
      jsonPatch: [{ op: 'replace', path: '/nothing/here', value: 1 }],
      additionalData: { group: 'memberTypes' },
    };
    const conflicting = await callback(conflictingBody);
    const done = await outcome((conflicting.body as { jobId: string }).jobId);
    expect(done).toMatchObject({ status: 'completed', result: { body: { applied: false, code: 10027 } } });
    // settled once: the same callback again is not awaited any more
    const again = await callback(conflictingBody);
    expect(await outcome((again.body as { jobId: string }).jobId)).toMatchObject({
      status: 'failed',
      error: { status: 409, body: { code: 10026 } },
    });
    const after = (await query('getMemberType', { id: pending.item.id })).body;
    expect(after).toMatchObject({ status: 'pending', pendingApprovalId: null });
    // no approval waits any more: the pending value may now be moved by a status update
    expect((await call('updateMemberTypeStatus', { id: pending.item.id, status: 'active' })).body.item.status).toBe(
      'active',
    );
  });
});

describe('setState', () => {
  test('replaces groups after the same checks, refused while an approval is pending, for developers (and the system) only', async () => {
    const dev = bearer(t, 'dev1', ['super'], { developer: true });
    const pending = await call('createMemberType', { name: 'Associated', systemIdentifier: 'Associated Company' });
    const busy = await call('setState', { groups: { tierTypes: { value: [] } } }, dev);
    expect([busy.status, busy.body.code]).toEqual([409, 10025]);
    await t.review(
      pending.body.approval.id,
      'reject',
      async () => (await settingDoc('memberTypes', pending.body.item.id))?.status === 'inactive',
    );
    // any other approval still waiting (the pending member type of an earlier test) is settled first
    const waiting = (await query('listSettings', { limit: 100 })).body.items.filter(
      (i: { pendingApprovalId: string | null }) => i.pendingApprovalId,
    );
    for (const w of waiting)
      await t.review(
        w.pendingApprovalId,
        'reject',
        async () => (await settingDoc(w.group, w.id))?.pendingApprovalId === null,
      );

    expect((await call('setState', { groups: { tierTypes: { value: [] } } }, t.clerk)).status).toBe(403);
    // level 1 is not enough: setState writes past every workflow
    const bySuper = await call('setState', {
      groups: { tierTypes: { value: [{ id: 't9', name: 'Sneaky', status: 'active', tierGroup: 'base' }] } },
    });
    expect([bySuper.status, bySuper.body.code, bySuper.body.classId]).toEqual([403, 10037, 'Setting']);
    const dup = await call(
      'setState',
      {
        groups: {
          tierTypes: {
            value: [
              { id: 't1', name: 'Base', status: 'active', tierGroup: 'base' },
              { id: 't2', name: 'BASE', status: 'active', tierGroup: 'upgrade' },
            ],
          },
        },
      },
      dev,
    );
    expect([dup.status, dup.body.code]).toEqual([400, 10035]);
    expect(dup.body.details.errors[0].field).toBe('groups.tierTypes.value.1');
    const badStatus = await call(
      'setState',
      { groups: { tierTypes: { value: [{ id: 't1', name: 'Base', status: 'pending', tierGroup: 'base' }] } } },
      dev,
    );
    expect(badStatus.status).toBe(400);

    const r = await call(
      'setState',
      {
        groups: {
          tierTypes: {
            title: 'Kinds of tier',
            value: [
              { id: 't1', name: 'Base', status: 'active', tierGroup: 'base' },
              { id: 't2', name: 'Upgrade', status: 'inactive', tierGroup: 'upgrade' },
            ],
          },
        },
      },
      dev,
    );
    expect(r.status).toBe(200);
    expect(r.body.approval).toMatchObject({ event: 'setting_update', approvalType: 'auto' });
    expect(r.body.groups.tierTypes).toMatchObject({
      title: 'Kinds of tier',
      value: [{ id: 't1', createdBy: { id: 'dev1', type: 'developer' } }, { id: 't2' }],
    });
    expect(r.body.groups.memberTypes.value.length).toBeGreaterThan(0); // other groups kept
    await waitFor(async () => (await query('listTierTypes', {})).body.totalCount === 2, {
      what: 'replaced tier types listed',
    });
    expect((await query('getTierType', { id: 't2' })).body.status).toBe('inactive');
    const logs = await waitFor(async () => {
      const l = await logsOf('default');
      return l.length ? l : undefined;
    });
    expect(logs![0]).toMatchObject({
      entityType: 'settings',
      actor: { id: 'dev1', type: 'developer' },
      fieldUpdates: [{ key: 'tierTypes', operation: 'replace' }],
    });
  });
});

describe('a seeded super user and level-10 roles', () => {
  test('a level-10 role granting a write lets that write through and nothing else', async () => {
    await t.rt.redis.set(
      t.rt.store.keys.roles,
      JSON.stringify({
        version: 2,
        roles: [
          { id: 'super', name: 'super', level: 1, permissions: {} },
          { id: 'r-approver', name: 'approver', level: 10, permissions: {} },
          {
            id: 'r-tiers',
            name: 'tierEditor',
            level: 10,
            permissions: { Setting: ['createTierType', 'listTierTypes'] },
          },
        ],
      }),
    );
    t.rt.roleSource.invalidate();
    const editor = bearer(t, 'ed', ['tierEditor']);
    expect((await call('createTierType', { name: 'Platinum', tierGroup: 'upgrade' }, editor)).status).toBe(201);
    expect((await query('listTierTypes', {}, editor)).status).toBe(200);
    const refused = await call('updateTierTypeStatus', { id: 't1', status: 'inactive' }, editor);
    expect([refused.status, refused.body.code]).toEqual([403, 1008]);
    expect((await query('getTierType', { id: 't1' }, editor)).status).toBe(403);
    expect((await call('updateTierTypeStatus', { id: 't1', status: 'inactive' })).status).toBe(200); // super
  });
});

test('errors of class callers are typed', async () => {
  const err = await asClass('getCompanyGroup', { id: 'none' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ActorError);
  expect((err as ActorError).classId).toBe('Setting');
});
