/**
 * The membership life cycle over HTTP on the real classes (Member README
 * "Membership life cycle"): the reminder and the expiry at the end (delayed
 * tasks), renewal by the member, the back office and the company's automatic
 * renewal, suspension and reinstatement through the approval, the member's
 * own status, the audit entries, and the refusals. Ends are seconds ahead
 * (addMembership's endDate) and the reminder's lead time a few seconds
 * (MEMBERSHIP_REMINDER_DAYS as a fraction); a real SMTP server takes the mail.
 */
import { startSmtpSink, type SmtpSink } from '../mail/smtp-sink';
import { seedRoles, waitFor, type TestRuntime } from '../support/harness';
import { createMember, IMAGES, memberLogs, memberState, seed, seedProgram, startMemberRuntime } from './support';

let t: TestRuntime;
let sink: SmtpSink;
let p: string;
let pm: Record<string, string>;
let approver: Record<string, string>;

/** about 6 s: the reminder goes out that long before the end (room for a stalled worker between the two tasks) */
const REMINDER_DAYS = 0.00007;
const LEAD_MS = REMINDER_DAYS * 86_400_000;

const isoIn = (ms: number) => new Date(Date.now() + ms).toISOString();
const enduser = (id: string) => ({ authorization: `Bearer ${t.token('enduser', id)}` });

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await startMemberRuntime({
    SMTP_URL: sink.url,
    MAIL_BACKOFF_MS: '50',
    MEMBERSHIP_REMINDER_DAYS: String(REMINDER_DAYS),
  });
  p = `/${t.projectId}/CALL/Member`;
  await seedProgram(t);
  await seedRoles(t, [
    { id: 'super', name: 'super', level: 1, permissions: {} },
    { id: 'r-approver', name: 'approver', level: 10, permissions: { ApprovalManager: ['getApproval'] } },
  ]);
  pm = { authorization: `Bearer ${t.token('program_management_user', 'pm1', ['super'])}` };
  approver = { authorization: `Bearer ${t.token('program_management_user', 'ann', ['approver'])}` };
  const rule = {
    name: 'Everyone',
    paymentTypes: ['credit_card', 'salary_deduction'],
    paymentPeriod: 'monthly',
    conditions: [],
    status: 'active',
  };
  await seed(t, {
    companies: [
      {
        id: 'c-auto',
        name: 'Auto renewing',
        bgId: 'BG-AUTO',
        companyGroupId: 'cg-int',
        hrContact: { name: 'HR', email: 'hr@example.com' },
        eligibleMemberTypes: [],
        memberSubTypes: [],
        maxFreeDependants: 0,
        membershipAutoRenewal: ['company_paid'],
      },
    ],
    tierTypes: [
      { id: 'tt-life', name: 'Life', tierGroup: 'base' },
      { id: 'tt-life2', name: 'Life 2', tierGroup: 'base' },
    ],
    tiers: ['life', 'life2'].map((id) => ({
      id,
      name: `Tier ${id}`,
      tierType: { id: `tt-${id}` },
      fee: 10,
      startDate: '2020-01-01T00:00:00.000Z',
      endDate: '2099-01-01T00:00:00.000Z',
      eligibilityRules: [rule],
    })),
  });
});
afterAll(async () => {
  await t?.stop();
  await sink?.close();
});

const call = (method: string, id: string, body: unknown = {}, headers = pm) =>
  t.post(`${p}/${method}/${id}`, body, headers);

/** an sso member with a photo and its first membership: `active` (spec 3.1's onboarding) */
async function activeMember(company = 'c-1') {
  const m = await createMember(t, { loginMethod: 'sso', company: { id: company } });
  await t.rt.call('Member', 'uploadMemberIdPhoto', m.id, { photo: IMAGES.png, fileExtension: 'png' });
  return m as { id: string; email: string; staffId: string };
}

async function addMembership(memberId: string, body: Record<string, unknown>) {
  const r = await call('addMembership', memberId, body);
  expect(r.status).toBe(200);
  return r.body.membership as { id: string; endDate: string };
}

async function membershipOf(memberId: string, membershipId: string) {
  const r = await t.get(`${p}/listMemberships/${memberId}`, pm);
  expect(r.status).toBe(200);
  return (r.body.memberships as any[]).find((m) => m.id === membershipId);
}

const memberStatus = async (id: string) => (await memberState(t, id)).state.private.profile.status as string;

const auditEvents = async (memberId: string) =>
  (await memberLogs(t, memberId)).map((e) => e.additionalData?.event).filter(Boolean);

const mailsTo = (email: string, subject: RegExp) =>
  sink.accepted.filter((m) => m.envelopeTo.includes(email) && subject.test(m.parsed.subject ?? ''));

async function review(approvalId: string, action: 'approve' | 'reject') {
  const r = await t.post(`/${t.projectId}/CALL/ApprovalManager/reviewApproval/${approvalId}`, { action }, approver);
  expect(r.status).toBe(200);
}

test('the member is reminded before the end, and the membership expires at it: listed, audited, mailed; the member goes back to pending_tier', async () => {
  const m = await activeMember();
  expect(await memberStatus(m.id)).toBe('pending_tier');
  // the reminder is due about 3 s after the membership is added: room for a slow commit before it
  const ms = await addMembership(m.id, { tierId: 'life', paymentType: 'cpg', endDate: isoIn(LEAD_MS + 3000) });
  expect(await memberStatus(m.id)).toBe('active');

  const reminder = await waitFor(() => mailsTo(m.email, /ends on/)[0], {
    timeoutMs: 10_000,
    what: 'the reminder mail',
  });
  expect(String(reminder.parsed.html)).toContain('Tier life');
  expect(String(reminder.parsed.html)).toContain('Renew it');
  // sent ahead of the end (the mail's Date is when it was written, after the reminder task committed)
  expect(reminder.parsed.date!.getTime()).toBeLessThan(Date.parse(ms.endDate));
  expect((await memberState(t, m.id)).state.private.membershipTasks[ms.id].remindedFor).toBe(ms.endDate);

  const expired = await waitFor(
    async () => {
      const x = await membershipOf(m.id, ms.id);
      return x.status === 'expired' ? x : undefined;
    },
    { timeoutMs: 20_000, what: 'the membership expired' },
  );
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(ms.endDate));
  expect(expired.transitions).toEqual([
    expect.objectContaining({ from: 'active', to: 'expired', event: 'expired', endDate: ms.endDate }),
  ]);
  expect((await t.get(`${p}/listMemberships/${m.id}?status=expired`, pm)).body.totalCount).toBe(1);
  expect(await memberStatus(m.id)).toBe('pending_tier');
  // the members listing filters on it too
  await waitFor(
    async () => {
      const r = await t.get(`${p}/listMembers?membershipStatus=expired&search=${m.staffId}`, pm);
      return (r.body.members as { id: string }[] | undefined)?.some((x) => x.id === m.id);
    },
    { what: 'the member listed by its expired membership' },
  );
  await waitFor(() => mailsTo(m.email, /has expired/).length === 1, { what: 'the expiry mail' });
  await waitFor(async () => (await auditEvents(m.id)).includes('membership_expire'), {
    what: 'the expiry audit entry',
  });
  // reminded once
  expect(mailsTo(m.email, /ends on/)).toHaveLength(1);
  // the expiry task again changes nothing
  expect(
    (await t.rt.call('Member', 'expireMembership', m.id, { membershipId: ms.id, endDate: ms.endDate })).body,
  ).toEqual({ outcome: 'none' });
  // a member waiting for its tier still signs in, and renews its lapsed card-paid membership itself
  const renewed = await call('renewMyMembership', m.id, { membershipId: ms.id }, enduser(m.id));
  expect(renewed.status).toBe(200);
  expect(renewed.body).toMatchObject({ membership: { status: 'active' }, memberStatus: 'active' });
  expect(renewed.body.membership.transitions.map((x: { event: string }) => x.event)).toEqual(['expired', 'renewed']);
});

test('the member renews its own card-paid membership; the old expiry task finds the end moved and does nothing', async () => {
  const m = await activeMember();
  // the renewal must come before the end: 6 s is room for a slow call on a loaded machine
  const ms = await addMembership(m.id, { tierId: 'life', paymentType: 'cpg', endDate: isoIn(6000) });
  const r = await call('renewMyMembership', m.id, { membershipId: ms.id }, enduser(m.id));
  expect(r.status).toBe(200);
  const newEnd = new Date(ms.endDate);
  newEnd.setUTCMonth(newEnd.getUTCMonth() + 1);
  expect(r.body.membership).toMatchObject({
    status: 'active',
    endDate: expect.any(String),
    lastRenewal: expect.any(String),
  });
  // one payment period (monthly) from the old end, the day clamped to the month
  expect(Date.parse(r.body.membership.endDate)).toBeGreaterThan(Date.parse(ms.endDate) + 27 * 86_400_000);
  expect(r.body.membership.transitions).toEqual([
    expect.objectContaining({
      event: 'renewed',
      by: 'member',
      previousEndDate: ms.endDate,
      actor: expect.objectContaining({ id: m.id }),
    }),
  ]);
  const check = await waitFor(
    async () => (await memberState(t, m.id)).state.private.membershipTasks?.[ms.id]?.expiryCheck,
    { timeoutMs: 20_000, what: 'the old expiry task ran' },
  );
  expect(check).toMatchObject({ endDate: ms.endDate, outcome: 'moved' });
  expect((await membershipOf(m.id, ms.id)).status).toBe('active');
  expect(await memberStatus(m.id)).toBe('active');
  await waitFor(() => mailsTo(m.email, /is renewed/).length === 1, { what: 'the renewal mail' });
  await waitFor(async () => (await auditEvents(m.id)).includes('membership_renew'), {
    what: 'the renewal audit entry',
  });
});

test('renewals the rules refuse, with 400s naming the field; the back office renews any payment type, an expired one too', async () => {
  const m = await activeMember();
  const other = await activeMember();
  const dds = await addMembership(m.id, { tierId: 'life', paymentType: 'dds' });
  const own = enduser(m.id);

  const byMember = await call('renewMyMembership', m.id, { membershipId: dds.id }, own);
  expect(byMember.status).toBe(400);
  expect(byMember.body).toMatchObject({
    code: 5046,
    classId: 'Member',
    details: { paymentType: 'dds', errors: [{ field: 'membershipId' }] },
  });
  expect(byMember.body.message).toMatch(/salary deduction/);

  const missing = await call('renewMyMembership', m.id, {}, own);
  expect(missing.status).toBe(400);
  expect(JSON.stringify(missing.body)).toContain('membershipId');

  // an end of one's own must lie after the start and within the default period
  const ended = await call('addMembership', m.id, {
    tierId: 'life2',
    paymentType: 'cpg',
    endDate: '2000-01-01T00:00:00.000Z',
  });
  expect(ended.status).toBe(400);
  expect(ended.body).toMatchObject({ code: 5033, details: { errors: [{ field: 'endDate' }] } });
  const tooLate = await call('addMembership', m.id, {
    tierId: 'life2',
    paymentType: 'cpg',
    endDate: '2098-01-01T00:00:00.000Z',
  });
  expect(tooLate.body).toMatchObject({ code: 5033, details: { errors: [{ field: 'endDate' }] } });

  const unknown = await call('renewMembership', m.id, { membershipId: 'no-such' });
  expect(unknown.status).toBe(404);
  expect(unknown.body).toMatchObject({ code: 5044, details: { errors: [{ field: 'membershipId' }] } });

  // a member renews only its own memberships
  const foreign = await call('renewMyMembership', m.id, { membershipId: dds.id }, enduser(other.id));
  expect(foreign.status).toBe(403);
  expect(foreign.body.code).toBe(5021);
  // and the back-office method is not the member's
  expect((await call('renewMembership', m.id, { membershipId: dds.id }, own)).status).toBe(403);

  const byOffice = await call('renewMembership', m.id, { membershipId: dds.id });
  expect(byOffice.status).toBe(200);
  expect(byOffice.body.membership.transitions).toEqual([
    expect.objectContaining({ by: 'back_office', actor: expect.objectContaining({ id: 'pm1' }) }),
  ]);

  // an expired membership renews from now and is active again; the member with it
  const short = await addMembership(other.id, { tierId: 'life', paymentType: 'company_paid', endDate: isoIn(1500) });
  await waitFor(async () => (await membershipOf(other.id, short.id)).status === 'expired', {
    timeoutMs: 10_000,
    what: 'the short membership expired',
  });
  expect(await memberStatus(other.id)).toBe('pending_tier');
  const again = await call('renewMembership', other.id, { membershipId: short.id });
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ membership: { status: 'active' }, memberStatus: 'active' });
  expect(Date.parse(again.body.membership.endDate)).toBeGreaterThan(Date.now() + 27 * 86_400_000);
});

test("the company's setting renews its company-paid memberships at their end; its salary-deduction ones expire", async () => {
  const m = await activeMember('c-auto');
  const paid = await addMembership(m.id, { tierId: 'life', paymentType: 'company_paid', endDate: isoIn(2000) });
  const dds = await addMembership(m.id, { tierId: 'life2', paymentType: 'dds', endDate: isoIn(2000) });
  const renewed = await waitFor(
    async () => {
      const x = await membershipOf(m.id, paid.id);
      return x.endDate !== paid.endDate ? x : undefined;
    },
    { timeoutMs: 10_000, what: 'the automatic renewal' },
  );
  expect(renewed).toMatchObject({ status: 'active', lastRenewal: expect.any(String) });
  expect(renewed.transitions).toEqual([
    expect.objectContaining({ event: 'renewed', by: 'automatic', previousEndDate: paid.endDate }),
  ]);
  await waitFor(async () => (await membershipOf(m.id, dds.id)).status === 'expired', {
    timeoutMs: 10_000,
    what: 'the dds membership expired',
  });
  // one membership still runs: the member stays active
  expect(await memberStatus(m.id)).toBe('active');
  expect((await memberState(t, m.id)).state.private.membershipTasks[paid.id].expiryCheck).toMatchObject({
    endDate: paid.endDate,
    outcome: 'renew',
  });
});

test('suspension and reinstatement with a reason, through the approval', async () => {
  const m = await activeMember();
  const ms = await addMembership(m.id, { tierId: 'life', paymentType: 'cpg' });

  const noReason = await call('suspendMembership', m.id, { membershipId: ms.id });
  expect(noReason.status).toBe(400);
  expect(JSON.stringify(noReason.body)).toContain('reason');
  const notSuspended = await call('reinstateMembership', m.id, { membershipId: ms.id, reason: 'x' });
  expect(notSuspended.status).toBe(400);
  expect(notSuspended.body).toMatchObject({ code: 5045, details: { errors: [{ field: 'membershipId' }] } });

  // a rejected suspension leaves the membership as it was
  const first = await call('suspendMembership', m.id, { membershipId: ms.id, reason: 'typo' });
  expect(first.status).toBe(200);
  await review(first.body.pendingApprovalId, 'reject');
  await waitFor(async () => (await membershipOf(m.id, ms.id)).pendingChange === null, {
    what: 'the rejection settled',
  });
  expect((await membershipOf(m.id, ms.id)).status).toBe('active');

  const asked = await call('suspendMembership', m.id, { membershipId: ms.id, reason: 'Payments overdue' });
  expect(asked.status).toBe(200);
  expect(asked.body).toMatchObject({
    membership: { status: 'active' },
    approval: {
      approvalStatus: 'pending',
      event: 'membership_suspend',
      entityOldStatus: 'active',
      entityNewStatus: 'suspended',
    },
  });
  expect((await membershipOf(m.id, ms.id)).pendingChange).toMatchObject({
    approvalId: asked.body.pendingApprovalId,
    move: 'suspend',
    reason: 'Payments overdue',
  });
  const twice = await call('suspendMembership', m.id, { membershipId: ms.id, reason: 'again' });
  expect(twice.status).toBe(409);
  expect(twice.body.code).toBe(5003);

  await review(asked.body.pendingApprovalId, 'approve');
  const suspended = await waitFor(
    async () => {
      const x = await membershipOf(m.id, ms.id);
      return x.status === 'suspended' ? x : undefined;
    },
    { what: 'the suspension applied' },
  );
  expect(suspended.transitions).toEqual([
    expect.objectContaining({
      event: 'suspended',
      reason: 'Payments overdue',
      approvalId: asked.body.pendingApprovalId,
    }),
  ]);
  expect(await memberStatus(m.id)).toBe('pending_tier');
  // a suspended membership is reinstated, not renewed
  const renewSuspended = await call('renewMembership', m.id, { membershipId: ms.id });
  expect(renewSuspended.status).toBe(400);
  expect(renewSuspended.body.code).toBe(5045);

  const back = await call('reinstateMembership', m.id, { membershipId: ms.id, reason: 'Paid in full' });
  expect(back.status).toBe(200);
  expect(back.body.approval).toMatchObject({
    event: 'membership_reinstate',
    entityOldStatus: 'suspended',
    entityNewStatus: 'active',
  });
  await review(back.body.pendingApprovalId, 'approve');
  const reinstated = await waitFor(
    async () => {
      const x = await membershipOf(m.id, ms.id);
      return x.status === 'active' ? x : undefined;
    },
    { what: 'the reinstatement applied' },
  );
  expect(reinstated.transitions.map((x: { event: string }) => x.event)).toEqual(['suspended', 'reinstated']);
  expect(reinstated.transitions[1]).toMatchObject({
    reason: 'Paid in full',
    actor: expect.objectContaining({ id: 'pm1' }),
  });
  expect(await memberStatus(m.id)).toBe('active');
  await waitFor(
    async () => {
      const events = await auditEvents(m.id);
      return events.includes('membership_suspend') && events.includes('membership_reinstate');
    },
    { what: 'the audit entries' },
  );
});
