/**
 * Tier expiry: a scheduled `expire` task at endDate sets `expired` (audit-logged,
 * streamed), follows endDate when it moves, and expired tiers are final.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import { auditEntries, bearer, DAY, freshTypeId, isoIn, seedProgram, seedTierTypes, startTierRuntime, tierBody, tierDocWhen, writeTierRoles } from './support';

let t: TestRuntime;
let p: string;
let superUser: Record<string, string>;
let approver: Record<string, string>;

beforeAll(async () => {
  t = await startTierRuntime();
  await writeTierRoles(t);
  p = `/${t.projectId}/CALL`;
  superUser = bearer(t, 'pm1', ['super']);
  approver = bearer(t, 'ann', ['approver']);
  await seedProgram(t);
});
afterAll(() => t.stop());

async function newType(): Promise<string> {
  const id = freshTypeId('exp');
  await seedTierTypes(t, [{ id }]);
  return id;
}

/** an active tier created by the system identity (auto-approved) */
async function systemTier(endDate: string): Promise<string> {
  const r = await t.rt.call('Tier', 'createTier', undefined, tierBody(await newType(), { startDate: isoIn(-DAY), endDate }));
  const body = r.body as { tier: { id: string; status: string } };
  expect(body.tier.status).toBe('active');
  return body.tier.id;
}

async function privateState(id: string) {
  return JSON.parse((await t.rt.store.read('Tier', id))!.stateJson).private;
}

const getTier = (id: string) => t.get(`${p}/Tier/getTier/${id}`, superUser);

test('an active tier expires at its endDate: status expired, audit-logged, streamed; expired is final', async () => {
  const id = await systemTier(isoIn(1500));
  expect((await privateState(id)).expiryCheckAt).toEqual(expect.any(String));
  await tierDocWhen(t, id, (d) => d.status === 'active');
  const doc = await waitFor(async () => {
    const d = await t.rt.documents.get('tiers', id);
    return d?.status === 'expired' ? d : undefined;
  }, { timeoutMs: 15_000, what: 'tier expired' });
  expect(doc).toMatchObject({ id, status: 'expired' });
  expect((await getTier(id)).body.tier.status).toBe('expired');
  expect((await privateState(id)).expiryCheckAt).toBeNull();

  const entry = await waitFor(async () => (await auditEntries(t, id)).find((e) => e.additionalData?.event === 'tier_expire'), { what: 'expiry audit entry' });
  expect(entry).toMatchObject({ actor: { type: 'system', name: 'class:Tier' }, fieldUpdates: expect.arrayContaining([{ key: 'status', operation: 'replace', oldValue: '"active"', newValue: '"expired"' }]) });

  for (const [method, body] of [
    ['updateTier', { name: 'Later' }],
    ['updateStatus', { status: 'active' }],
    ['addEligibilityRule', { name: 'R', paymentTypes: ['credit_card'], paymentPeriod: 'monthly', conditions: [] }],
  ] as const) {
    const r = await t.post(`${p}/Tier/${method}/${id}`, body, superUser);
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 7008, classId: 'Tier' });
  }
  // running the task again changes nothing
  const again = await t.rt.call('Tier', 'expire', id, {});
  expect(again.body).toEqual({ status: 'expired', expired: false });
});

test('endDate moved later: the first task reschedules itself and the tier expires at the new endDate', async () => {
  const id = await systemTier(isoIn(1200));
  const first = (await privateState(id)).expiryCheckAt as string;
  const later = isoIn(3500);
  const r = await t.post(`${p}/Tier/updateTier/${id}`, { endDate: later }, superUser);
  expect(r.status).toBe(200);
  expect((await privateState(id)).expiryCheckAt).toBe(first); // the earlier task stays; it reschedules when it runs
  const rescheduled = await waitFor(async () => {
    const s = await privateState(id);
    return s.expiryCheckAt === later ? s : undefined;
  }, { what: 'expiry rescheduled' });
  expect(rescheduled.tier.status).toBe('active');
  await tierDocWhen(t, id, (d) => d.status === 'expired', 'tier expired at the moved endDate');
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(later));
});

test('endDate moved earlier: a new task expires the tier at the new endDate', async () => {
  const id = await systemTier(isoIn(30 * DAY));
  const sooner = isoIn(1500);
  expect((await t.post(`${p}/Tier/updateTier/${id}`, { endDate: sooner }, superUser)).status).toBe(200);
  expect((await privateState(id)).expiryCheckAt).toBe(sooner);
  await tierDocWhen(t, id, (d) => d.status === 'expired', 'tier expired at the earlier endDate');
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(sooner));
});

test('a tier expiring while its creation waits for approval stays expired; the late approval is recorded and ignored', async () => {
  const r = await t.post(`${p}/Tier/createTier`, tierBody(await newType(), { startDate: isoIn(-DAY), endDate: isoIn(1200) }), superUser);
  expect(r.status).toBe(201);
  const id = r.body.tier.id as string;
  await tierDocWhen(t, id, (d) => d.status === 'expired', 'pending tier expired');
  expect((await t.post(`${p}/ApprovalManager/reviewApproval/${r.body.approval.id}`, { action: 'approve' }, approver)).status).toBe(200);
  const state = await waitFor(async () => {
    const s = await privateState(id);
    return s.lastReview ? s : undefined;
  }, { what: 'late approval recorded' });
  expect(state).toMatchObject({ tier: { status: 'expired' }, pendingApproval: null, lastReview: { approvalId: r.body.approval.id, outcome: 'ignored_expired' } });
});
