/**
 * Tier against the real Setting class (the other Tier tests use a stand-in so
 * that they can also feed it malformed settings): the tier type and payment
 * periods come from Setting, and an inactive tier type is refused.
 */
import { startTestRuntime, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let superUser: Record<string, string>;
let approver: Record<string, string>;

beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: 'classes', SCHEMA_DIRS: 'schemas' } });
  await t.rt.redis.set(
    t.rt.store.keys.roles,
    JSON.stringify({ version: 1, roles: [{ id: 'super', name: 'super', level: 1, permissions: {} }, { id: 'approver', name: 'approver', level: 1, permissions: {} }] }),
  );
  t.rt.roleSource.invalidate();
  superUser = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
  approver = { authorization: `Bearer ${t.token('program_management_user', 'ann', ['approver'])}` };
  await t.rt.call('Setting', 'init', 'default', { paymentPeriods: [{ key: 'monthly', label: 'Monthly' }] });
  await t.rt.call('Setting', 'createTierType', 'default', { id: 'gold', name: 'Gold', tierGroup: 'upgrade' });
  await t.rt.call('Setting', 'createTierType', 'default', { id: 'old', name: 'Old', tierGroup: 'base' });
  await t.rt.call('Setting', 'updateTierTypeStatus', 'default', { id: 'old', status: 'inactive' });
});
afterAll(() => t.stop());

const p = () => `/${t.projectId}/CALL`;
const tierBody = (tierTypeId: string) => ({
  name: `Tier ${tierTypeId}`,
  tierType: { id: tierTypeId },
  fee: 10,
  startDate: new Date(Date.now() + 86_400_000).toISOString(),
  endDate: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  eligibilityRules: [
    { name: 'all', paymentTypes: ['credit_card'], paymentPeriod: 'monthly', conditions: [], status: 'active' },
  ],
});

test('a tier of an active tier type from Setting is created, approved and listed with the type group', async () => {
  const created = await t.post(`${p()}/Tier/createTier`, tierBody('gold'), superUser);
  expect(created.status).toBe(201);
  const id = created.body.tier?.id ?? created.body.id;
  const approvalId = created.body.approval?.id ?? created.body.tier?.pendingApprovalId;
  expect(approvalId).toEqual(expect.any(String));
  expect((await t.post(`${p()}/ApprovalManager/reviewApproval/${approvalId}`, { action: 'approve' }, approver)).status).toBe(200);
  const tier = await waitFor(async () => {
    const r = await t.get(`${p()}/Tier/getTier/${id}`, superUser);
    return r.body.tier?.status === 'active' ? r.body.tier : undefined;
  }, { what: 'tier approved' });
  expect(tier.tierType).toEqual({ id: 'gold', group: 'upgrade' });
});

test('an inactive tier type from Setting is refused', async () => {
  const r = await t.post(`${p()}/Tier/createTier`, tierBody('old'), superUser);
  expect(r.status).toBe(400);
  expect(r.body.code).toBe(7002);
});

test('an unknown payment period is refused against the Setting periods', async () => {
  const body = tierBody('gold');
  body.startDate = new Date(Date.now() + 60 * 86_400_000).toISOString();
  body.endDate = new Date(Date.now() + 90 * 86_400_000).toISOString();
  body.eligibilityRules[0].paymentPeriod = 'weekly';
  const r = await t.post(`${p()}/Tier/createTier`, body, superUser);
  expect(r.status).toBe(400);
});
