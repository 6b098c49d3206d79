/**
 * An employee registering themselves (use-cases/self-registration.ts) over
 * real HTTP, against a local HR server (fake-hr.ts), a local ID card server
 * (fake-id-card.ts) and a real SMTP server receiving the codes:
 * discoverAuthMethod → a code by mail (only to an employee HR lists as
 * active) → completeRegistration → a member in onboarding, signed in. Also
 * the refusals (told only to the code's holder), the same answer for every
 * email, a registration interrupted and resumed, and two devices racing.
 */
import type { Job } from 'bullmq';
import { seedRoles, waitFor } from '../support/harness';
import { FakeHr, hrEmployee } from './fake-hr';
import { FakeIdCards, PNG_1PX } from './fake-id-card';
import {
  bearer,
  codeIn,
  freshIp,
  from,
  mailsTo,
  nthMail,
  PASSWORD,
  startSignInRuntime,
  type SignInEnv,
} from './sign-in-support';
import { memberState, seed, uniq } from './support';

let hr: FakeHr;
let cards: FakeIdCards;
let env: SignInEnv;

beforeAll(async () => {
  hr = await new FakeHr().start();
  cards = await new FakeIdCards().start();
  env = await startSignInRuntime({
    HR_BASE_URL: hr.url,
    // the HR server runs in this busy test process: a short time-out fails the background lookup, whose task then
    // retries with backoff past the wait for the mailed code
    HR_TIMEOUT_MS: '10000',
    HR_RETRIES: '1',
    HR_RETRY_BASE_MS: '10',
    ID_CARD_BASE_URL: cards.url,
    ID_CARD_TIMEOUT_MS: '2000',
    ID_CARD_RETRIES: '1',
    ID_CARD_RETRY_BASE_MS: '10',
  });
  await seedRoles(env.t, [{ id: 'r-approver', name: 'approver', level: 10, permissions: {} }]);
  // retired employees: their own member type (by HR's employmentType) and company (by BG_ID)
  await seed(env.t, {
    memberTypes: [{ id: 'mt-retiree', name: 'Retiree', systemIdentifier: 'Retired', status: 'active' }],
    companies: [
      {
        id: 'c-ret',
        name: 'Retirees',
        bgId: 'BG-RET',
        companyGroupId: 'cg-int',
        hrContact: { name: 'HR', email: 'hr@example.com' },
        status: 'active',
        eligibleMemberTypes: ['mt-retiree'],
        memberSubTypes: [],
        maxFreeDependants: 0,
      },
    ],
  });
}, 60_000);
afterAll(async () => {
  await env?.t.stop();
  await env?.sink.close();
  await hr?.stop();
  await cards?.stop();
});

/** an employee HR knows under `email` (active unless `over` says otherwise) */
function employee(over: Record<string, unknown> = {}): { staffId: string; email: string } {
  const staffId = uniq('SR');
  const email = `${staffId.toLowerCase()}@example.com`;
  hr.employees.set(email, hrEmployee(staffId, { email, ...over }));
  return { staffId, email };
}

const discover = (email: string, ip = freshIp()) => from(env.t, ip).post(`${env.p}/discoverAuthMethod`, { email });
const complete = (body: Record<string, unknown>, ip = freshIp()) =>
  from(env.t, ip).post(`${env.p}/completeRegistration`, body);

/** the results of the completed jobs `pick` chooses, oldest first, once there are `n` */
async function jobResults(n: number, what: string, pick: (j: Job) => boolean): Promise<Record<string, unknown>[]> {
  return waitFor<Record<string, unknown>[] | undefined>(
    async () => {
      const done: Job[] = [];
      for (const q of env.t.rt.jobs.queues) done.push(...(await q.getJobs(['completed'], 0, -1)));
      const mine = done
        .filter(pick)
        .sort((a, b) => a.timestamp - b.timestamp)
        .map((j) => (j.returnvalue as { body: Record<string, unknown> }).body);
      return mine.length >= n ? mine : undefined;
    },
    { timeoutMs: 20_000, what },
  ) as Promise<Record<string, unknown>[]>;
}

/** the results of the startSelfRegistration tasks run for `email` */
const taskResults = (email: string, n: number) =>
  jobResults(
    n,
    `${n} startSelfRegistration task(s) for ${email}`,
    (j) => j.name === 'task' && j.data?.task?.method === 'startSelfRegistration' && j.data.task.body?.email === email,
  );

/** the results of the restartInvitation jobs discoverAuthMethod queued for member `id` */
const restartResults = (id: string, n: number) =>
  jobResults(
    n,
    `${n} restartInvitation job(s) for ${id}`,
    (j) => j.data?.kind === 'call' && j.data.method === 'restartInvitation' && j.data.instanceId === id,
  );

const memberIdOfEmail = async (email: string) => (await env.t.rt.store.resolveLookup('Member', 'email', email)) ?? null;

test('an employee registers from the app: a code by mail, a member in onboarding and signed in, its card photo approved, its tier chosen', async () => {
  const { staffId, email } = employee({
    dependants: [
      { id: `D${uniq('')}`, type: 'Spouse', name: 'Ann', surname: 'Hopper', email: '', birthdate: '1991-02-03' },
    ],
  });
  cards.cards.set(staffId, {
    staffId,
    cardNumber: `N-${staffId}`,
    validFrom: '2026-01-01',
    validUntil: '2029-12-31',
    photo: { contentBase64: PNG_1PX, mimeType: 'image/png' },
  });

  const d = await discover(email);
  expect([d.status, d.body]).toEqual([200, { email, method: 'email_password' }]);
  const mail = await nthMail(env.sink, email, 1);
  expect(mail.parsed.subject).toMatch(/registration code/);
  expect(String(mail.parsed.html)).toContain('Grace');
  const code = codeIn(mail);
  expect(await taskResults(email, 1)).toEqual([{ mailed: true }]);

  // a weak password is refused before the code is spent; a wrong code is refused as any wrong code
  const weak = await complete({ email, code, password: 'short' });
  expect([weak.status, weak.body.code]).toEqual([400, 5038]);
  const wrong = await complete({ email, code: code === '000000' ? '111111' : '000000', password: PASSWORD });
  expect([wrong.status, wrong.body.code]).toEqual([401, 5037]);

  const done = await complete({ email: email.toUpperCase(), code, password: PASSWORD });
  expect(done.status).toBe(201);
  expect(done.body).toMatchObject({
    accessToken: expect.any(String),
    refreshToken: expect.any(String),
    member: { email, name: 'Grace', surname: 'Hopper', status: 'pending_id_photo' },
    registration: {
      memberIdRecorded: true,
      warnings: [],
      dependants: [{ created: true }],
      idCard: { lookup: 'found', photo: 'pending_approval' },
    },
  });
  const id = done.body.memberId as string;
  expect(done.body.member.id).toBe(id);
  // the member id reached HR, and the member is what HR says
  expect(hr.memberIds.get(staffId)).toBe(id);
  const s = (await memberState(env.t, id)).state.private;
  expect(s.profile).toMatchObject({
    staffId,
    email,
    company: { id: 'c-1' },
    memberType: 'mt-perm',
    loginMethod: 'email_password',
    status: 'pending_id_photo',
  });
  expect(s.creationSource).toBe('self_registration');
  expect(s.credentials.passwordHash).toEqual(expect.any(String));
  await waitFor(async () => (await memberState(env.t, id)).state.private.hrRegistrationFinishedAt, {
    what: 'the registration marked finished',
  });

  // the session works
  const profile = await env.t.get(`${env.p}/getMemberProfile/${id}`, bearer(done.body.accessToken));
  expect([profile.status, profile.body.status]).toEqual([200, 'pending_id_photo']);

  // the card's photo, once approved, moves the member on to choosing a tier
  const approver = bearer(env.t.token('program_management_user', 'ann', ['approver']));
  const reviewed = await env.t.post(
    `/${env.t.projectId}/CALL/ApprovalManager/reviewApproval/${done.body.registration.idCard.approvalId}`,
    { action: 'approve' },
    approver,
  );
  expect(reviewed.status).toBe(200);
  await waitFor(async () => (await memberState(env.t, id)).state.private.profile.status === 'pending_tier', {
    what: 'pending_tier after the photo',
  });

  // and it chooses its tier itself: the one its rules admit, paid by card
  const session = bearer(done.body.accessToken);
  const offered = await env.t.get(`${env.p}/listMyTierChoices/${id}`, session);
  expect(offered.status).toBe(200);
  expect(
    offered.body.tiers.map((x: { id: string; options: { paymentType: string }[] }) => [
      x.id,
      x.options.map((o) => o.paymentType),
    ]),
  ).toEqual([['si-gold', ['cpg']]]);
  const chosen = await env.t.post(`${env.p}/chooseTier/${id}`, { tierId: 'si-gold', paymentType: 'cpg' }, session);
  expect([chosen.status, chosen.body.membership?.tierId]).toEqual([200, 'si-gold']);
  expect((await memberState(env.t, id)).state.private.profile.status).toBe('active');

  // it signs in with its password from now on; asking again mails no new code
  const login = await from(env.t, freshIp()).post(`${env.p}/login`, { email, password: PASSWORD });
  expect([login.status, login.body.memberId]).toEqual([200, id]);
  expect((await discover(email)).body).toEqual({ email, method: 'email_password' });
  await waitFor(() => mailsTo(env.sink, email).length === 2, { what: 'the login code' });
  expect(mailsTo(env.sink, email)[1]!.parsed.subject).toMatch(/sign-in code/);
});

test('an email HR does not know, or knows as inactive, is answered as any other, gets no code, and no code registers it', async () => {
  const unknown = `${uniq('nobody').toLowerCase()}@example.com`;
  const { email: inactive } = employee({ status: 'Terminated' });
  const { email: known } = employee();
  const answers = await Promise.all([discover(unknown), discover(inactive), discover(known)]);
  expect(answers.map((a) => [a.status, a.body.method])).toEqual([
    [200, 'email_password'],
    [200, 'email_password'],
    [200, 'email_password'],
  ]);
  expect(await taskResults(unknown, 1)).toEqual([{ mailed: false, reason: 'not_an_active_employee' }]);
  expect(await taskResults(inactive, 1)).toEqual([{ mailed: false, reason: 'not_an_active_employee' }]);
  expect(await taskResults(known, 1)).toEqual([{ mailed: true }]);
  expect(mailsTo(env.sink, unknown)).toEqual([]);
  expect(mailsTo(env.sink, inactive)).toEqual([]);

  // a guessed code: the same refusal for all three, and nothing created
  const tries = await Promise.all(
    [unknown, inactive, known].map((email) => complete({ email, code: '999999', password: PASSWORD })),
  );
  expect(tries.map((r) => [r.status, r.body.code])).toEqual([
    [401, 5037],
    [401, 5037],
    [401, 5037],
  ]);
  // word for word: no detail tells whether a code was mailed (tries left, no live code)
  expect(tries[0]!.body).toEqual(tries[2]!.body);
  expect(tries[1]!.body).toEqual(tries[2]!.body);
  // nor does Otp's retry limit: past it, the same answer
  for (let i = 0; i < 6; i += 1) {
    const again = await complete({ email: known, code: '999999', password: PASSWORD });
    if (again.status === 429 && again.body.code === 5035) break;
    expect([again.status, again.body]).toEqual([401, tries[0]!.body]);
  }
  expect(await memberIdOfEmail(unknown)).toBeNull();
  expect(await memberIdOfEmail(inactive)).toBeNull();
});

test("what keeps an active employee out is told to the code's holder, and creates nothing", async () => {
  const cases = [
    { over: { employmentType: 'Contractor' }, field: 'employmentType' },
    { over: { companyId: 'BG-NONE' }, field: 'companyId' },
  ];
  for (const { over, field } of cases) {
    const { email } = employee(over);
    await discover(email);
    const code = codeIn(await nthMail(env.sink, email, 1));
    const r = await complete({ email, code, password: PASSWORD });
    expect([r.status, r.body.code, r.body.details?.field]).toEqual([422, 5031, field]);
    expect(await memberIdOfEmail(email)).toBeNull();
  }
});

test('a registration stopped after the member was created is finished with a new code, as the same member', async () => {
  const { staffId, email } = employee();
  await discover(email);
  const first = codeIn(await nthMail(env.sink, email, 1));
  // the full password policy runs on the member (its name is in this password): the member exists, without one
  const named = await complete({ email, code: first, password: 'Grace Hopper harbour 42 lantern' });
  expect([named.status, named.body.code]).toEqual([400, 5038]);
  const id = await memberIdOfEmail(email);
  expect(id).toEqual(expect.any(String));
  expect((await memberState(env.t, id!)).state.private.credentials ?? null).toBeNull();
  // it cannot sign in yet; asking how to sign in mails a new registration code
  expect((await from(env.t, freshIp()).post(`${env.p}/login`, { email, password: PASSWORD })).status).toBe(401);
  await discover(email);
  const second = codeIn(await nthMail(env.sink, email, 2));
  expect(mailsTo(env.sink, email)[1]!.parsed.subject).toMatch(/registration code/);
  const resumed = await complete({ email, code: second, password: PASSWORD });
  expect(resumed.status).toBe(200);
  expect(resumed.body).toMatchObject({
    memberId: id,
    registration: { resumed: true },
    member: { id, status: 'pending_id_photo' },
  });
  expect(hr.memberIds.get(staffId)).toBe(id);
  // one member holds the staff id
  expect(await env.t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBe(id);
});

test('two devices completing the same registration at once create one member', async () => {
  const { staffId, email } = employee();
  await discover(email);
  const code = codeIn(await nthMail(env.sink, email, 1));
  const answers = await Promise.all([1, 2, 3].map(() => complete({ email, code, password: PASSWORD })));
  expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
  // the others: the registration in progress (409 5043, their code untouched) or the code spent (401 5037)
  for (const a of answers.filter((x) => x.status !== 201))
    expect([
      [409, 5043],
      [401, 5037],
    ]).toContainEqual([a.status, a.body.code]);
  const id = answers.find((a) => a.status === 201)!.body.memberId;
  expect(await env.t.rt.store.resolveLookup('Member', 'staffId', staffId)).toBe(id);
  expect(await memberIdOfEmail(email)).toBe(id);
  // a late device's retry with the spent code is refused, and it signs in with the password instead
  expect((await complete({ email, code, password: PASSWORD })).status).toBe(401);
  expect((await from(env.t, freshIp()).post(`${env.p}/login`, { email, password: PASSWORD })).status).toBe(200);
});

/** discoverAuthMethod, the code mailed (the `nth` mail to `email`), completeRegistration: its answer */
async function registerByCode(email: string, nth = 1, password = PASSWORD) {
  await discover(email);
  const code = codeIn(await nthMail(env.sink, email, nth));
  return complete({ email, code, password });
}

test('a retired employee and an associated-company employee register the same way, under the member type and company configured for them', async () => {
  const retired = employee({ employmentType: 'Retired', companyId: 'BG-RET' });
  const r = await registerByCode(retired.email);
  expect(r.status).toBe(201);
  expect((await memberState(env.t, r.body.memberId)).state.private.profile).toMatchObject({
    memberType: 'mt-retiree',
    company: { id: 'c-ret' },
    status: 'pending_id_photo',
  });

  // a company of an external company group (c-3), which admits every member type
  const associated = employee({ companyId: 'BG3' });
  const a = await registerByCode(associated.email);
  expect(a.status).toBe(201);
  expect((await memberState(env.t, a.body.memberId)).state.private.profile).toMatchObject({
    memberType: 'mt-perm',
    company: { id: 'c-3' },
  });

  // a retiree whose employment type has no active member type (mt-retired, 'Retire', is inactive) is told so
  const unmapped = employee({ employmentType: 'Retire', companyId: 'BG-RET' });
  const u = await registerByCode(unmapped.email);
  expect([u.status, u.body.code, u.body.details?.field]).toEqual([422, 5031, 'employmentType']);
});

test('a dependant HR lists with an email registers by that email: its code sets its password, nothing is asked of HR', async () => {
  const depEmail = `${uniq('dep').toLowerCase()}@example.com`;
  const depId = `D${uniq('')}`;
  const primary = employee({
    dependants: [
      { id: depId, type: 'Child', name: 'Tom', surname: 'Hopper', email: depEmail, birthdate: '2015-05-05' },
    ],
  });
  expect((await registerByCode(primary.email)).status).toBe(201);
  const dep = (await memberState(env.t, depId)).state.private;
  expect(dep.profile).toMatchObject({ email: depEmail, status: 'active', loginMethod: 'email_password' });
  expect(dep.credentials ?? null).toBeNull();

  const lookups = hr.count('/employees/lookup');
  const r = await registerByCode(depEmail);
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    memberId: depId,
    member: { id: depId, status: 'active' },
    registration: { claimed: true },
  });
  // HR was not asked about the dependant's email
  expect(hr.count('/employees/lookup')).toBe(lookups);
  expect((await env.t.get(`${env.p}/getMemberProfile/${depId}`, bearer(r.body.accessToken))).status).toBe(200);
  // from now on it signs in with its password, and a new code is not mailed
  expect((await from(env.t, freshIp()).post(`${env.p}/login`, { email: depEmail, password: PASSWORD })).status).toBe(
    200,
  );
  await discover(depEmail);
  expect(await restartResults(depId, 2)).toEqual([{ sent: false, selfRegistration: true }, { sent: false }]);
  expect(await taskResults(depEmail, 1)).toEqual([{ mailed: true }]);
  await nthMail(env.sink, depEmail, 2);
  expect(mailsTo(env.sink, depEmail).map((m) => m.parsed.subject)).toEqual([
    'Your Membership Program registration code',
    'Your Membership Program sign-in code',
  ]);
});

test('a primary member invites a dependant the back office added, giving its email; the dependant registers with the code', async () => {
  const primary = employee();
  const reg = await registerByCode(primary.email);
  expect(reg.status).toBe(201);
  const session = bearer(reg.body.accessToken);
  const added = await env.t.post(
    `${env.p}/addMemberFamilyMember/${reg.body.memberId}`,
    { name: 'Lina', surname: 'Hopper', memberSubType: 'mst-child', relation: 'daughter' },
    env.pm,
  );
  expect(added.status).toBe(200);
  const depId = added.body.familyMember.id as string;
  await waitFor(async () => (await env.t.rt.store.read('Member', depId)) !== null, { what: 'the dependant created' });

  const depEmail = `${uniq('lina').toLowerCase()}@example.com`;
  // no email yet, and none given
  const noEmail = await env.t.post(
    `${env.p}/inviteMyDependant/${reg.body.memberId}`,
    { familyMemberId: depId },
    session,
  );
  expect([noEmail.status, noEmail.body.code]).toEqual([400, 5028]);
  // an employee's email is theirs to register with
  const colleague = employee();
  const taken = await env.t.post(
    `${env.p}/inviteMyDependant/${reg.body.memberId}`,
    { familyMemberId: depId, email: colleague.email },
    session,
  );
  expect([taken.status, taken.body.code, taken.body.details?.errors?.[0]?.field]).toEqual([409, 5022, 'email']);
  const invited = await env.t.post(
    `${env.p}/inviteMyDependant/${reg.body.memberId}`,
    { familyMemberId: depId, email: depEmail },
    session,
  );
  expect([invited.status, invited.body]).toEqual([200, { familyMemberId: depId, email: depEmail, sent: true }]);
  const mail = await nthMail(env.sink, depEmail, 1);
  expect(mail.parsed.subject).toBe('Grace Hopper invited you to the Membership Program');
  const r = await complete({ email: depEmail, code: codeIn(mail), password: PASSWORD });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    memberId: depId,
    member: { status: 'pending_id_photo', email: depEmail },
    registration: { claimed: true },
  });

  // it signs in now: a second invitation is refused; another member's dependant, or a stranger's id, is not found
  const again = await env.t.post(`${env.p}/inviteMyDependant/${reg.body.memberId}`, { familyMemberId: depId }, session);
  expect([again.status, again.body.code]).toEqual([409, 5026]);
  const other = await registerByCode(employee().email);
  const foreign = await env.t.post(
    `${env.p}/inviteMyDependant/${other.body.memberId}`,
    { familyMemberId: depId, email: `${uniq('x')}@example.com` },
    bearer(other.body.accessToken),
  );
  expect([foreign.status, foreign.body.code]).toEqual([404, 5011]);
  // and only the member itself invites its dependants
  expect(
    (
      await env.t.post(
        `${env.p}/inviteMyDependant/${reg.body.memberId}`,
        { familyMemberId: depId },
        bearer(other.body.accessToken),
      )
    ).status,
  ).toBe(403);
});
