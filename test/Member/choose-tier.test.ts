/**
 * A member choosing its own tier (listMyTierChoices, chooseTier) over real
 * HTTP with its own session: what is offered is what the tiers' eligibility
 * rules admit for this member (conditions, payment types, the tier open), and
 * a choice goes through addMembership's rules, moving pending_tier to active.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Job } from 'bullmq';
import { projectRoot } from '../../runtime/config';
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
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['reviewApproval'] } },
  ]);
  await seed(t, {
    tierTypes: [
      { id: 'tt-ct-base', name: 'Choice base', tierGroup: 'base' },
      { id: 'tt-ct-add', name: 'Choice add-on', tierGroup: 'add_on' },
      { id: 'tt-ct-closed', name: 'Choice closed', tierGroup: 'base' },
      { id: 'tt-ct-quota', name: 'Choice quota', tierGroup: 'upgrade' },
    ],
    tiers: [
      // permanent staff: card or salary deduction
      {
        id: 'ct-silver',
        name: 'Silver',
        tierType: { id: 'tt-ct-base' },
        fee: 20,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [rule('Permanent', ['credit_card', 'salary_deduction'], 'mt-perm')],
      },
      // permanent staff, card only
      {
        id: 'ct-gym',
        name: 'Gym add-on',
        tierType: { id: 'tt-ct-add' },
        fee: 5,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [rule('Permanent gym', ['credit_card'], 'mt-perm')],
      },
      // nobody: its only rule is inactive
      // one place only
      {
        id: 'ct-launch',
        name: 'Launch offer',
        tierType: { id: 'tt-ct-quota' },
        fee: 3,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [{ ...rule('First one', ['credit_card'], 'mt-perm'), quota: 1 }],
      },
      {
        id: 'ct-closed',
        name: 'Closed',
        tierType: { id: 'tt-ct-closed' },
        fee: 1,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [rule('Off', ['credit_card'], 'mt-perm', 'inactive')],
      },
    ],
  });
  // the choices start from the tiers' listing, which the projection fills after the seed's commits
  await waitFor(
    async () => {
      const r = await t.rt.call('Tier', 'listTiers', undefined, { status: 'active', limit: 100 });
      const ids = (r.body as { items: { id: string }[] }).items.map((x) => x.id);
      return ['ct-silver', 'ct-gym', 'ct-closed', 'ct-launch'].every((id) => ids.includes(id));
    },
    { what: 'the seeded tiers listed' },
  );
}, 60_000);
afterAll(() => t?.stop());

/** a member in `status` with its own session */
async function member(
  status: string,
  memberType = 'mt-perm',
): Promise<{ id: string; session: Record<string, string> }> {
  const id = uniq('ct');
  await seed(t, {
    members: [
      {
        id,
        name: 'Lena',
        surname: 'Berg',
        staffId: uniq('CT'),
        email: `${id.toLowerCase()}@example.com`,
        phone: '+1',
        company: { id: 'c-1' },
        grade: 'G1',
        memberType,
        loginMethod: 'email_password',
        status,
      },
    ],
  });
  return { id, session: { authorization: `Bearer ${t.token('enduser', id)}` } };
}

const choices = (m: { id: string; session: Record<string, string> }) =>
  t.get(`${P()}/listMyTierChoices/${m.id}`, m.session);
const choose = (m: { id: string; session: Record<string, string> }, body: Record<string, unknown>) =>
  t.post(`${P()}/chooseTier/${m.id}`, body, m.session);

test('a member waiting for its tier sees the tiers its rules admit, with the ways it may pay, and choosing one makes it active', async () => {
  const m = await member('pending_tier');
  const r = await choices(m);
  expect(r.status).toBe(200);
  expect(r.body.memberStatus).toBe('pending_tier');
  const offered = Object.fromEntries(
    r.body.tiers
      .filter((x: { id: string }) => x.id.startsWith('ct-'))
      .map((x: { id: string; options: { paymentType: string }[] }) => [
        x.id,
        x.options.map((o) => o.paymentType).sort(),
      ]),
  );
  // the closed tier's only rule is inactive
  expect(offered).toMatchObject({ 'ct-silver': ['cpg', 'dds'], 'ct-gym': ['cpg'] });
  expect(Object.keys(offered)).not.toContain('ct-closed');
  const silver = r.body.tiers.find((x: { id: string }) => x.id === 'ct-silver');
  expect(silver).toMatchObject({ name: 'Silver', fee: 20, tierType: { id: 'tt-ct-base', group: 'base' } });
  expect(silver.options[0]).toMatchObject({
    eligibilityRuleId: expect.any(String),
    paymentPeriod: 'monthly',
    startDate: expect.any(String),
    endDate: expect.any(String),
  });

  const chosen = await choose(m, { tierId: 'ct-silver', paymentType: 'dds' });
  expect(chosen.status).toBe(200);
  expect(chosen.body.membership).toMatchObject({
    tierId: 'ct-silver',
    paymentType: 'dds',
    status: 'active',
    paymentPeriod: 'monthly',
  });
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
  expect(
    (await t.post(`${P()}/chooseTier/${other.id}`, { tierId: 'ct-silver', paymentType: 'cpg' }, m.session)).status,
  ).toBe(403);
  expect((await t.get(`${P()}/listMyTierChoices/${other.id}`, m.session)).status).toBe(403);
});

test('a member no tier admits is offered none, and cannot choose one', async () => {
  const m = await member('pending_tier', 'mt-temp');
  const r = await choices(m);
  expect([r.status, r.body.tiers.filter((x: { id: string }) => x.id.startsWith('ct-'))]).toEqual([200, []]);
  const refused = await choose(m, { tierId: 'ct-silver', paymentType: 'cpg' });
  expect([refused.status, refused.body.code]).toEqual([400, 5014]);
});

test("a rule's quota: two members racing for the last place, one gets it; the tier counts it, and offers it no more", async () => {
  const [a, b, c] = [await member('pending_tier'), await member('pending_tier'), await member('pending_tier')];
  const launchOffered = async (m: { id: string; session: Record<string, string> }) =>
    (await choices(m)).body.tiers.some((x: { id: string }) => x.id === 'ct-launch');
  expect(await launchOffered(a)).toBe(true);
  const answers = await Promise.all([
    choose(a, { tierId: 'ct-launch', paymentType: 'cpg' }),
    choose(b, { tierId: 'ct-launch', paymentType: 'cpg' }),
  ]);
  expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
  expect(answers.find((r) => r.status === 409)!.body.code).toBe(5047);
  const winner = answers[0]!.status === 200 ? a : b;
  const membershipId = answers.find((r) => r.status === 200)!.body.membership.id;
  const tier = await t.rt.call('Tier', 'getTier', 'ct-launch', {});
  expect((tier.body as { quota: unknown }).quota).toEqual([{ ruleId: expect.any(String), quota: 1, taken: 1 }]);
  expect(await launchOffered(c)).toBe(false);
  const late = await choose(c, { tierId: 'ct-launch', paymentType: 'cpg' });
  expect([late.status, late.body.code]).toEqual([409, 5047]);

  // the tier's confirmation keeps a place whose membership the member holds
  const ruleId = (tier.body as { quota: { ruleId: string }[] }).quota[0]!.ruleId;
  const kept = await t.rt.call('Tier', 'confirmQuotaPlace', 'ct-launch', { ruleId, membershipId, memberId: winner.id });
  expect(kept.body).toEqual({ kept: true, released: false });
});

test('a place whose membership never reached the member is given back by the tier', async () => {
  await seed(t, {
    tierTypes: [{ id: 'tt-ct-q2', name: 'Choice quota 2', tierGroup: 'upgrade' }],
    tiers: [
      {
        id: 'ct-q2',
        name: 'Two',
        tierType: { id: 'tt-ct-q2' },
        fee: 1,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [{ ...rule('Only one', ['credit_card'], 'mt-perm'), quota: 1 }],
      },
    ],
  });
  const ruleId = ((await t.rt.call('Tier', 'getTier', 'ct-q2', {})).body as { quota: { ruleId: string }[] }).quota[0]!
    .ruleId;
  const m = await member('pending_tier');
  // a place taken for a membership the member's change never committed (as a failed chooseTier leaves it)
  const claimed = await t.rt.call('Tier', 'claimQuotaPlace', 'ct-q2', {
    ruleId,
    membershipId: 'never-committed',
    memberId: m.id,
  });
  expect(claimed.body).toMatchObject({ remaining: 0 });
  const refused = await choose(m, { tierId: 'ct-q2', paymentType: 'cpg' });
  expect([refused.status, refused.body.code]).toEqual([409, 5047]);
  // claimQuotaPlace scheduled the confirmation (run here at once rather than in QUOTA_CONFIRM_SECONDS)
  const delayed: Job[] = [];
  for (const q of t.rt.jobs.queues) delayed.push(...(await q.getJobs(['delayed'], 0, -1)));
  expect(
    delayed.filter(
      (j) =>
        j.name === 'task' &&
        j.data?.task?.method === 'confirmQuotaPlace' &&
        j.data.task.body?.membershipId === 'never-committed',
    ),
  ).toHaveLength(1);
  const released = await t.rt.call('Tier', 'confirmQuotaPlace', 'ct-q2', {
    ruleId,
    membershipId: 'never-committed',
    memberId: m.id,
  });
  expect(released.body).toEqual({ kept: false, released: true });
  expect((await choose(m, { tierId: 'ct-q2', paymentType: 'cpg' })).status).toBe(200);
});

// last: it makes member_update wait for an approver for the rest of this file
test('a membership waiting for its approval keeps its quota place; rejected, the place is given back', async () => {
  const file = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'workflow-configs/Member.json'), 'utf8')) as {
    classId: string;
    rules: Record<string, unknown>[];
  };
  const rules = file.rules.map((r) => (r.event === 'member_update' ? { ...r, approvers: ['approver'] } : r));
  await t.rt.call('Workflow', 'updateWorkflowConfiguration', 'Member', { classId: 'Member', rules });
  await seed(t, {
    tierTypes: [{ id: 'tt-ct-q3', name: 'Choice quota 3', tierGroup: 'upgrade' }],
    tiers: [
      {
        id: 'ct-q3',
        name: 'Three',
        tierType: { id: 'tt-ct-q3' },
        fee: 1,
        startDate: '2020-01-01T00:00:00.000Z',
        endDate: '2099-01-01T00:00:00.000Z',
        eligibilityRules: [{ ...rule('Only one', ['credit_card'], 'mt-perm'), quota: 1 }],
      },
    ],
  });
  const m = await member('pending_tier');
  const chosen = await choose(m, { tierId: 'ct-q3', paymentType: 'cpg' });
  expect([chosen.status, chosen.body.pendingApprovalId]).toEqual([200, expect.any(String)]);
  const membershipId = chosen.body.membership.id as string;
  const quota = async () =>
    ((await t.rt.call('Tier', 'getTier', 'ct-q3', {})).body as { quota: { ruleId: string; taken: number }[] })
      .quota[0]!;
  const { ruleId } = await quota();
  const confirm = () => t.rt.call('Tier', 'confirmQuotaPlace', 'ct-q3', { ruleId, membershipId, memberId: m.id });
  // waiting: the place is kept, and asked about again later
  expect((await confirm()).body).toEqual({ kept: true, released: false, waiting: true });
  expect((await quota()).taken).toBe(1);
  const approver = { authorization: `Bearer ${t.token('program_management_user', 'ann', ['approver'])}` };
  expect(
    (
      await t.post(
        `/${t.projectId}/CALL/ApprovalManager/reviewApproval/${chosen.body.pendingApprovalId}`,
        { action: 'reject' },
        approver,
      )
    ).status,
  ).toBe(200);
  await waitFor(async () => ((await memberState(t, m.id)).state.private.pendingChange ?? null) === null, {
    what: 'the rejection settled',
    timeoutMs: 30_000,
  });
  expect((await confirm()).body).toEqual({ kept: false, released: true });
  expect((await quota()).taken).toBe(0);
});
