/**
 * Tier expiry: a scheduled `expire` task at endDate sets `expired` (audit-logged,
 * streamed), follows endDate when it moves, and expired tiers are final.
 */
import { waitFor, type TestRuntime } from '../support/harness';
import {
  auditEntries,
  bearer,
  DAY,
  freshTypeId,
  isoIn,
  seedProgram,
  seedTierTypes,
  startTierRuntime,
  tierBody,
  tierDocWhen,
  writeTierRoles,
} from './support';

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

/**
 * An active tier created by the system identity (auto-approved), ending `endInMs`
 * from when its type is seeded: the endDate is computed after that write, so the
 * margin is the test's own, not eaten by the seeding.
 */
async function systemTier(endInMs: number): Promise<{ id: string; endDate: string }> {
  const typeId = await newType();
  const endDate = isoIn(endInMs);
  const r = await t.rt.call('Tier', 'createTier', undefined, tierBody(typeId, { startDate: isoIn(-DAY), endDate }));
  const body = r.body as { tier: { id: string; status: string } };
  expect(body.tier.status).toBe('active');
  return { id: body.tier.id, endDate };
}

async function privateState(id: string) {
  return JSON.parse((await t.rt.store.read('Tier', id))!.stateJson).private;
}

const getTier = (id: string) => t.get(`${p}/Tier/getTier/${id}`, superUser);

test('an active tier expires at its endDate: status expired, audit-logged, streamed; expired is final', async () => {
  const { id, endDate } = await systemTier(5000);
  const created = (await t.rt.store.read('Tier', id))!;
  const state = JSON.parse(created.stateJson).private;
  expect(state.tier.status).toBe('active');
  expect(state.expiryCheckAt).toBe(endDate);
  // The projection of the created (active) tier. The projector projects the
  // instance's latest version, so once the expiry has committed the active
  // version may never be a document: wait for the creation's version or a later
  // one, and check the status that version must have.
  const projected = (await tierDocWhen(t, id, (d) => d._v >= created.version, 'created tier projected'))!;
  expect(projected.status).toBe(projected._v === created.version ? 'active' : 'expired');
  const doc = await waitFor(
    async () => {
      const d = await t.rt.documents.get('tiers', id);
      return d?.status === 'expired' ? d : undefined;
    },
    { timeoutMs: 15_000, what: 'tier expired' },
  );
  expect(doc).toMatchObject({ id, status: 'expired' });
  expect((await getTier(id)).body.tier.status).toBe('expired');
  expect((await privateState(id)).expiryCheckAt).toBeNull();

  const entry = await waitFor(
    async () => (await auditEntries(t, id)).find((e) => e.additionalData?.event === 'tier_expire'),
    { what: 'expiry audit entry' },
  );
  expect(entry).toMatchObject({
    actor: { type: 'system', name: 'class:Tier' },
    fieldUpdates: expect.arrayContaining([
      { key: 'status', operation: 'replace', oldValue: '"active"', newValue: '"expired"' },
    ]),
  });

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
  // first at ~5 s: the update below must reach the tier before its task runs;
  // later at ~9 s: after first, so that task has to reschedule itself
  const { id, endDate: first } = await systemTier(5000);
  expect((await privateState(id)).expiryCheckAt).toBe(first);
  const later = isoIn(9000);
  const r = await t.post(`${p}/Tier/updateTier/${id}`, { endDate: later }, superUser);
  expect(r.status).toBe(200);
  expect((await privateState(id)).expiryCheckAt).toBe(first); // the earlier task stays; it reschedules when it runs
  const rescheduled = await waitFor(
    async () => {
      const s = await privateState(id);
      return s.expiryCheckAt === later ? s : undefined;
    },
    { what: 'expiry rescheduled' },
  );
  expect(rescheduled.tier.status).toBe('active');
  await tierDocWhen(t, id, (d) => d.status === 'expired', 'tier expired at the moved endDate');
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(later));
});

test('endDate moved earlier: a new task expires the tier at the new endDate', async () => {
  const { id } = await systemTier(30 * DAY);
  const sooner = isoIn(5000);
  expect((await t.post(`${p}/Tier/updateTier/${id}`, { endDate: sooner }, superUser)).status).toBe(200);
  expect((await privateState(id)).expiryCheckAt).toBe(sooner);
  await tierDocWhen(t, id, (d) => d.status === 'expired', 'tier expired at the earlier endDate');
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(sooner));
});

test('a tier expiring while its creation waits for approval stays expired; the late approval is recorded and ignored', async () => {
  const r = await t.post(
    `${p}/Tier/createTier`,
    tierBody(await newType(), { startDate: isoIn(-DAY), endDate: isoIn(1200) }),
    superUser,
  );
  expect(r.status).toBe(201);
  const id = r.body.tier.id as string;
  await tierDocWhen(t, id, (d) => d.status === 'expired', 'pending tier expired');
  expect(
    (await t.post(`${p}/ApprovalManager/reviewApproval/${r.body.approval.id}`, { action: 'approve' }, approver)).status,
  ).toBe(200);
  const state = await waitFor(
    async () => {
      const s = await privateState(id);
      return s.lastReview ? s : undefined;
    },
    { what: 'late approval recorded' },
  );
  expect(state).toMatchObject({
    tier: { status: 'expired' },
    pendingApproval: null,
    lastReview: { approvalId: r.body.approval.id, outcome: 'ignored_expired' },
  });
});
