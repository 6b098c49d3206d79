/**
 * A back-office user's life end to end, over HTTP, against the real classes,
 * Redis and a real SMTP server whose mail the user reads its codes from:
 * created → its creation approved → invited → accepts → logs in → the code
 * from the mail → a session → calls what its role allows and is refused what
 * it does not; deactivated → its token refused; a password reset ends its
 * sessions; its own permissions.
 */
import { waitFor } from '../support/harness';
import {
  acceptInvitation,
  auth,
  call,
  codeOf,
  createApprovedUser,
  email,
  nthMail,
  PASSWORD,
  settled,
  signIn,
  startPmRuntime,
  SUBJECTS,
  type PmRuntime,
} from './support';

let p: PmRuntime;
beforeAll(async () => {
  p = await startPmRuntime();
});
afterAll(() => p.stop());

const listTiers = (headers: Record<string, string>) => call(p.t, 'listTiers', undefined, {}, headers, 'Tier');

test('invited → accepts → logs in → code from the mail → token: the role allows listTiers and refuses listUsers', async () => {
  const address = email('life');
  const created = await call(
    p.t,
    'createUser',
    undefined,
    {
      email: address.toUpperCase(),
      name: 'Ann Example',
      type: 'internal',
      loginMethod: 'email_password',
      roles: ['viewer'],
    },
    p.admin,
  );
  expect(created.status).toBe(201);
  expect(created.body.user).toMatchObject({ email: address, status: 'pending', invitedAt: null, roles: ['viewer'] });
  expect(JSON.stringify(created.body)).not.toMatch(/passwordHash|credentials/);
  // the creation waits for an approver: nothing is mailed before
  expect(created.body.approval).toMatchObject({ event: 'user_create', approvalStatus: 'pending' });
  const id = created.body.user.id as string;
  const review = await call(
    p.t,
    'reviewApproval',
    created.body.approval.id,
    { action: 'approve' },
    p.approver,
    'ApprovalManager',
  );
  expect(review.status).toBe(200);
  const after = await settled(p, id);
  expect(after.user).toMatchObject({ status: 'pending' });
  expect(after.user.invitedAt).toEqual(expect.any(String));

  const invite = await nthMail(p.sink, address, SUBJECTS.invite);
  expect(String(invite.parsed.html)).toContain('Hello Ann Example');
  const u = { id, email: address };
  // a pending user cannot sign in before accepting
  expect((await call(p.t, 'login', undefined, { email: address, password: PASSWORD })).status).toBe(401);
  await acceptInvitation(p, u);
  expect((await call(p.t, 'getUser', id, {}, p.admin)).body.user).toMatchObject({
    status: 'active',
    acceptedAt: expect.any(String),
  });
  // the code is spent: the invitation cannot be accepted twice
  const again = await call(p.t, 'acceptInvitation', undefined, {
    email: address,
    otp: codeOf(invite),
    password: 'another-long-pass-phrase',
  });
  expect([again.status, again.body.code]).toEqual([401, 4014]);

  const login = await call(p.t, 'login', undefined, { email: address, password: PASSWORD });
  expect(login.status).toBe(200);
  expect(login.body).toMatchObject({ otpRequired: true, token: expect.any(String) });
  // login's token is good for checkOtp and resendOtp only
  const early = await listTiers(auth(login.body.token));
  expect(early.status).toBe(403);
  const code = codeOf(await nthMail(p.sink, address, SUBJECTS.login));
  const wrong = await call(
    p.t,
    'checkOtp',
    undefined,
    { otp: code === '000000' ? '111111' : '000000' },
    auth(login.body.token),
  );
  expect([wrong.status, wrong.body.code]).toEqual([401, 4014]);
  const session = await call(p.t, 'checkOtp', undefined, { otp: code }, auth(login.body.token));
  expect(session.status).toBe(200);
  expect(session.body).toMatchObject({
    accessToken: expect.any(String),
    refreshToken: expect.any(String),
    expiresAt: expect.any(String),
  });
  expect(JSON.stringify(session.body)).not.toContain(code);

  const h = auth(session.body.accessToken);
  expect((await listTiers(h)).status).toBe(200);
  const refused = await call(p.t, 'listUsers', undefined, {}, h);
  expect([refused.status, refused.body.code]).toEqual([403, 1008]);
  // the sign-in is recorded (an effect of checkOtp)
  await waitFor(async () => (await call(p.t, 'getUser', id, {}, p.admin)).body.user.lastLoginAt, {
    what: 'lastLoginAt',
  });

  // its own permissions, grouped by class key; another user's are refused
  const mine = await call(p.t, 'getPermissions', id, {}, h);
  expect(mine.status).toBe(200);
  expect(mine.body).toMatchObject({
    userId: id,
    roles: ['viewer'],
    level: 10,
    developer: false,
    permissions: { Tier: ['listTiers'], ProgramManagementUser: ['getUser'] },
  });
  const other = await createApprovedUser(p);
  const theirs = await call(p.t, 'getPermissions', other.id, {}, h);
  expect([theirs.status, theirs.body.code]).toEqual([403, 4012]);
  // an id no user has answers the same: judged before the user is looked up
  const nobody = await call(p.t, 'getPermissions', 'no-such-user', {}, h);
  expect([nobody.status, nobody.body.code]).toEqual([403, 4012]);

  // the refresh token gives a new session
  const refreshed = await p.t.post(`/${p.t.projectId}/auth/refresh`, { refreshToken: session.body.refreshToken });
  expect(refreshed.status).toBe(200);
  expect((await listTiers(auth(refreshed.body.token))).status).toBe(200);
});

test('a deactivated user: its token is refused (within the identity cache), a new login too', async () => {
  const u = await createApprovedUser(p);
  await acceptInvitation(p, u);
  const session = await signIn(p, u);
  const h = auth(session.accessToken);
  expect((await listTiers(h)).status).toBe(200);
  const off = await call(p.t, 'updateUserStatus', u.id, { status: 'inactive' }, p.admin);
  expect(off.status).toBe(200);
  expect(off.body.approval).toMatchObject({ event: 'user_status_update', approvalStatus: 'pending' });
  // still active until approved
  expect((await listTiers(h)).status).toBe(200);
  expect(
    (await call(p.t, 'reviewApproval', off.body.approval.id, { action: 'approve' }, p.approver, 'ApprovalManager'))
      .status,
  ).toBe(200);
  expect((await settled(p, u.id)).user.status).toBe('inactive');
  // refused once the identity source's cached answer (IDENTITY_CACHE_SECONDS=1 here) is read again
  const r = await waitFor(
    async () => {
      const res = await listTiers(h);
      return res.status === 401 ? res : undefined;
    },
    { what: 'the token refused' },
  );
  expect(r!.body.code).toBe(1007);
  const login = await call(p.t, 'login', undefined, { email: u.email, password: PASSWORD });
  expect([login.status, login.body.code]).toEqual([401, 4013]);
  const refresh = await p.t.post(`/${p.t.projectId}/auth/refresh`, { refreshToken: session.refreshToken });
  expect(refresh.status).toBe(401);
});

test('password reset: a code by mail, the new password (policy checked), every old session ends', async () => {
  const u = await createApprovedUser(p);
  await acceptInvitation(p, u);
  const old = await signIn(p, u);
  const asked = await call(p.t, 'sendPasswordResetEmail', undefined, { email: u.email.toUpperCase() });
  expect(asked.status).toBe(202);
  const code = codeOf(await nthMail(p.sink, u.email, SUBJECTS.reset));
  const weak = await call(p.t, 'resetPassword', undefined, { email: u.email, otp: code, password: 'password2024!' });
  expect([weak.status, weak.body.code]).toEqual([400, 4016]);
  expect(weak.body.details.errors[0]).toMatchObject({ field: 'password' });
  const next = 'quiet-harbour-nineteen-tulips';
  const done = await call(p.t, 'resetPassword', undefined, { email: u.email, otp: code, password: next });
  expect(done.status).toBe(200);
  // the old session is refused (validAfter), its refresh token too
  await waitFor(async () => (await listTiers(auth(old.accessToken))).status === 401, { what: 'old session refused' });
  expect((await p.t.post(`/${p.t.projectId}/auth/refresh`, { refreshToken: old.refreshToken })).status).toBe(401);
  expect((await call(p.t, 'login', undefined, { email: u.email, password: PASSWORD })).status).toBe(401);
  const fresh = await signIn(p, u, next);
  expect((await listTiers(auth(fresh.accessToken))).status).toBe(200);
  // the code is spent
  const twice = await call(p.t, 'resetPassword', undefined, {
    email: u.email,
    otp: code,
    password: 'yet-another-river-stone',
  });
  expect([twice.status, twice.body.code]).toEqual([401, 4014]);
});

test('resendOtp mails a new code; the older one no longer works', async () => {
  const u = await createApprovedUser(p);
  await acceptInvitation(p, u);
  const login = await call(p.t, 'login', undefined, { email: u.email, password: PASSWORD });
  const first = codeOf(await nthMail(p.sink, u.email, SUBJECTS.login, 1));
  const resent = await call(p.t, 'resendOtp', undefined, {}, auth(login.body.token));
  expect(resent.status).toBe(200);
  const second = codeOf(await nthMail(p.sink, u.email, SUBJECTS.login, 2));
  if (first !== second) {
    const stale = await call(p.t, 'checkOtp', undefined, { otp: first }, auth(login.body.token));
    expect(stale.status).toBe(401);
  }
  expect((await call(p.t, 'checkOtp', undefined, { otp: second }, auth(login.body.token))).status).toBe(200);
});
