/**
 * The status machines of setting values (spec 2.4, 3.3) through HTTP and the
 * workflow, table-driven: creation (pending → active on approval, inactive
 * on rejection; tier types start active) and status updates (active/inactive
 * only; pending refused as a target).
 */
import { waitFor } from '../support/harness';
import { startServiceRuntime, type ServiceTestRuntime } from './support';

let t: ServiceTestRuntime;
beforeAll(async () => {
  t = await startServiceRuntime();
});
afterAll(() => t.stop());

type Group = 'companyGroups' | 'memberTypes' | 'memberSubTypes' | 'tierTypes';
const METHODS: Record<Group, { create: string; status: string; get: string }> = {
  companyGroups: { create: 'createCompanyGroup', status: 'updateCompanyGroupStatus', get: 'getCompanyGroup' },
  memberTypes: { create: 'createMemberType', status: 'updateMemberTypeStatus', get: 'getMemberType' },
  memberSubTypes: { create: 'createMemberSubType', status: 'updateMemberSubTypeStatus', get: 'getMemberSubType' },
  tierTypes: { create: 'createTierType', status: 'updateTierTypeStatus', get: 'getTierType' },
};
/** the group's own fields, unique per name */
const fields = (group: Group, name: string): Record<string, unknown> =>
  ({
    companyGroups: { type: 'internal' },
    memberTypes: { systemIdentifier: `sid-${name}` },
    memberSubTypes: { hrmsMapping: [`rel-${name}`] },
    tierTypes: { tierGroup: 'base' },
  })[group];
const doc = (group: Group, id: string) => t.rt.documents.get('settings', `${group}:${id}`);
const get = async (group: Group, id: string) => (await t.query('Setting', METHODS[group].get, { id })).body;

describe('creation', () => {
  const cases: [Group, 'approve' | 'reject' | 'none', string, string][] = [
    ['companyGroups', 'approve', 'pending', 'active'],
    ['companyGroups', 'reject', 'pending', 'inactive'],
    ['memberTypes', 'approve', 'pending', 'active'],
    ['memberTypes', 'reject', 'pending', 'inactive'],
    ['memberSubTypes', 'approve', 'pending', 'active'],
    ['memberSubTypes', 'reject', 'pending', 'inactive'],
    ['tierTypes', 'none', 'active', 'active'],
  ];
  test.each(cases)('%s: review %s → starts %s, ends %s', async (group, action, initial, final) => {
    const name = `c-${group}-${action}`;
    const r = await t.call('Setting', METHODS[group].create, { name, ...fields(group, name) });
    expect(r.status).toBe(201);
    expect(r.body.item.status).toBe(initial);
    expect(r.body.approval).toMatchObject({
      event: 'setting_create',
      approvalType: action === 'none' ? 'auto' : 'manual',
    });
    if (action !== 'none')
      await t.review(
        r.body.approval.id,
        action,
        async () => (await doc(group, r.body.item.id))?.pendingApprovalId === null,
      );
    expect(await get(group, r.body.item.id)).toMatchObject({ status: final, pendingApprovalId: null });
    await waitFor(async () => (await doc(group, r.body.item.id))?.status === final, { what: 'final status streamed' });
  });
});

describe('status updates', () => {
  const FROM: Record<Group, string[]> = {
    companyGroups: ['pending', 'active', 'inactive'],
    memberTypes: ['pending', 'active', 'inactive'],
    memberSubTypes: ['pending', 'active', 'inactive'],
    tierTypes: ['active', 'inactive'], // tier types have no pending state (spec 2.4)
  };
  const TO = ['active', 'inactive', 'pending', 'suspended'];
  const expected = (from: string, to: string): [number, number | null] =>
    !['active', 'inactive'].includes(to) ? [400, 10023] : to === from ? [409, 10024] : [200, null];
  const cases = (Object.keys(FROM) as Group[]).flatMap((group) =>
    FROM[group].flatMap((from) =>
      TO.map((to) => [group, from, to, ...expected(from, to)] as [Group, string, string, number, number | null]),
    ),
  );
  const idOf = (group: Group, from: string, to: string) => `${group}-${from}-${to}`;

  beforeAll(async () => {
    // one value per case, in its starting status and waiting for no approval (setState as the system)
    const groups: Record<string, { value: Record<string, unknown>[] }> = {};
    for (const [group, from, to] of cases) {
      const id = idOf(group, from, to);
      (groups[group] ??= { value: [] }).value.push({ id, name: id, status: from, ...fields(group, id) });
    }
    const r = await t.rt.call('Setting', 'setState', 'default', { groups });
    expect(r.status).toBe(200);
  });

  test.each(cases)('%s %s → %s: HTTP %i, code %p', async (group, from, to, status, code) => {
    const id = idOf(group, from, to);
    const r = await t.call('Setting', METHODS[group].status, { id, status: to });
    expect(r.status).toBe(status);
    if (code) {
      expect(r.body.code).toBe(code);
      expect((await get(group, id)).status).toBe(from);
      return;
    }
    expect(r.body).toMatchObject({
      item: { id, status: to },
      approval: { event: 'setting_status_update', approvalType: 'auto', entityNewStatus: to },
    });
    expect((await get(group, id)).status).toBe(to);
    await waitFor(async () => (await doc(group, id))?.status === to, { what: `${id} streamed` });
  });
});
