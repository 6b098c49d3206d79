/**
 * A member choosing its own tier (listMyTierChoices, chooseTier) over real
 * HTTP with its own session: what is offered is what the tiers' eligibility
 * rules admit for this member (conditions, payment types, the tier open), and
 * a choice goes through addMembership's rules, moving pending_tier to active.
 */
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import { memberState, seed, seedProgram, startMemberRuntime, uniq } from './support';

let t: TestRuntime;
const P = () => `/${t.projectId}/CALL/Member`;

const rule = (name: string, paymentTypes: string[], memberType: string, status = 'active') => ({
  name,
  paymentTypes,
  paymentPeriod: 'monthly',
  conditions: [{ key: 'member.memberType', logicalOperator: 'equal', value: memberType }],
  status,
});

beforeAll(async () => {
  t = await startMemberRuntime();
  await seedProgram(t);
  await seedRoles(t, [{ id: 'super', name: 'super', level: 1, permissions: {} }]);
  await seed(t, {
    tierTypes: [
      { id: 'tt-ct-base', name: 'Choice base', tierGroup: 'base' },
      { id: 'tt-ct-add', name: 'Choice add-on', tierGroup: 'add_on' },
      { id: 'tt-ct-closed', name: 'Choice closed', tierGroup: 'base' },
    ],
    tiers: [
      // permanent staff: card or salary deduction
      { id: 'ct-silver', name: 'Silver', tierType: { id: 'tt-ct-base' }, fee: 20, startDate: '2020-01-01T00:00:00.000Z', endDate: '2099-01-01T00:00:00.000Z', eligibilityRules: [rule('Permanent', ['credit_card', 'salary_deduction'], 'mt-perm')] },
      // permanent staff, card only
      { id: 'ct-gym', name: 'Gym add-on', tierType: { id: 'tt-ct-add' }, fee: 5, startDate: '2020-01-01T00:00:00.000Z', endDate: '2099-01-01T00:00:00.000Z', eligibilityRules: [rule('Permanent gym', ['credit_card'], 'mt-perm')] },
      // nobody: its only rule is inactive
      { id: 'ct-closed', name: 'Closed', tierType: { id: 'tt-ct-closed' }, fee: 1, startDate: '2020-01-01T00:00:00.000Z', endDate: '2099-01-01T00:00:00.000Z', eligibilityRules: [rule('Off', ['credit_card'], 'mt-perm', 'inactive')] },
    ],
  });
  // the choices start from the tiers' listing, which the projection fills after the seed's commits
  await waitFor(async () => {
    const r = await t.rt.call('Tier', 'listTiers', undefined, { status: 'active', limit: 100 });
    const ids = (r.body as { items: { id: string }[] }).items.map((x) => x.id);
    return ['ct-silver', 'ct-gym', 'ct-closed'].every((id) => ids.includes(id));
  }, { what: 'the seeded tiers listed' });
}, 60_000);
afterAll(() => t?.stop());

/** a member in `status` with its own session */
async function member(status: string, memberType = 'mt-perm'): Promise<{ id: string; session: Record<string, string> }> {
  const id = uniq('ct');
  await seed(t, { members: [{ id, name: 'Lena', surname: 'Berg', staffId: uniq('CT'), email: `${id.toLowerCase()}@example.com`, phone: '+1', company: { id: 'c-1' }, grade: 'G1', memberType, loginMethod: 'email_password', status }] });
  return { id, session: { authorization: `Bearer ${t.token('enduser', id)}` } };
}

const choices = (m: { id: string; session: Record<string, string> }) => t.get(`${P()}/listMyTierChoices/${m.id}`, m.session);
const choose = (m: { id: string; session: Record<string, string> }, body: Record<string, unknown>) => t.post(`${P()}/chooseTier/${m.id}`, body, m.session);

test('a member waiting for its tier sees the tiers its rules admit, with the ways it may pay, and choosing one makes it active', async () => {
  const m = await member('pending_tier');
  const r = await choices(m);
  expect(r.status).toBe(200);
  expect(r.body.memberStatus).toBe('pending_tier');
  const offered = Object.fromEntries(r.body.tiers.filter((x: { id: string }) => x.id.startsWith('ct-')).map((x: { id: string; options: { paymentType: string }[] }) => [x.id, x.options.map((o) => o.paymentType).sort()]));
  // the closed tier's only rule is inactive
  expect(offered).toEqual({ 'ct-silver': ['cpg', 'dds'], 'ct-gym': ['cpg'] });
  const silver = r.body.tiers.find((x: { id: string }) => x.id === 'ct-silver');
  expect(silver).toMatchObject({ name: 'Silver', fee: 20, tierType: { id: 'tt-ct-base', group: 'base' } });
  expect(silver.options[0]).toMatchObject({ eligibilityRuleId: expect.any(String), paymentPeriod: 'monthly', startDate: expect.any(String), endDate: expect.any(String) });

  const chosen = await choose(m, { tierId: 'ct-silver', paymentType: 'dds' });
  expect(chosen.status).toBe(200);
  expect(chosen.body.membership).toMatchObject({ tierId: 'ct-silver', paymentType: 'dds', status: 'active', paymentPeriod: 'monthly' });
  const s = (await memberState(t, m.id)).state.private.profile;
  expect(s.status).toBe('active');
  expect(s.memberships.map((x: { tierId: string }) => x.tierId)).toEqual(['ct-silver']);
  // a tier held is no longer offered
  const after = await choices(m);
  expect(after.body.tiers.map((x: { id: string }) => x.id)).not.toContain('ct-silver');
  // an active member adds another
  expect((await choose(m, { tierId: 'ct-gym', paymentType: 'cpg' })).status).toBe(200);
});

test("the refusals: a payment type the rule does not take, a tier not offered, a member not yet at this step, another member's id, the company paying", async () => {
  const m = await member('pending_tier');
  const dds = await choose(m, { tierId: 'ct-gym', paymentType: 'dds' });
  expect([dds.status, dds.body.code]).toEqual([400, 5015]);
  const closed = await choose(m, { tierId: 'ct-closed', paymentType: 'cpg' });
  expect([closed.status, closed.body.code]).toEqual([400, 5014]);
  const unknown = await choose(m, { tierId: 'ct-nope', paymentType: 'cpg' });
  expect(unknown.status).toBe(404);
  const companyPaid = await choose(m, { tierId: 'ct-silver', paymentType: 'company_paid' });
  expect([companyPaid.status, companyPaid.body.details?.errors?.[0]?.field]).toEqual([400, 'paymentType']);
  expect((await memberState(t, m.id)).state.private.profile).toMatchObject({ status: 'pending_tier', memberships: [] });

  const early = await member('pending_id_photo');
  const refused = await choose(early, { tierId: 'ct-silver', paymentType: 'cpg' });
  expect([refused.status, refused.body.code]).toEqual([400, 5001]);

  const other = await member('pending_tier');
  expect((await t.post(`${P()}/chooseTier/${other.id}`, { tierId: 'ct-silver', paymentType: 'cpg' }, m.session)).status).toBe(403);
  expect((await t.get(`${P()}/listMyTierChoices/${other.id}`, m.session)).status).toBe(403);
});

test('a member no tier admits is offered none, and cannot choose one', async () => {
  const m = await member('pending_tier', 'mt-temp');
  const r = await choices(m);
  expect([r.status, r.body.tiers.filter((x: { id: string }) => x.id.startsWith('ct-'))]).toEqual([200, []]);
  const refused = await choose(m, { tierId: 'ct-silver', paymentType: 'cpg' });
  expect([refused.status, refused.body.code]).toEqual([400, 5014]);
});
