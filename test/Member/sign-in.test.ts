/**
 * Member sign-in end to end over HTTP (spec 3.1, 4.5, 5), against the real
 * classes (Otp, NotificationManager, LogManager) and a real SMTP server whose
 * mails carry the codes and links: an invitation accepted, login with the code
 * mailed, the session's tokens (refresh, refused after a password change), a
 * password reset, a password change, Otp's limits (429 6001, 6002), and the
 * same answers for unknown emails wherever an answer would tell who has an
 * account.
 */
import { waitFor } from '../support/harness';
import { findLogs, type FoundLogs } from '../support/logs';
import { memberState, uniq } from './support';
import {
  activeMember,
  APP,
  bearer,
  codeIn,
  freshIp,
  from,
  invitableMember,
  mailsTo,
  nthMail,
  OTHER_PASSWORD,
  PASSWORD,
  signIn,
  startSignInRuntime,
  type SignInEnv,
} from './sign-in-support';

let env: SignInEnv;

beforeAll(async () => {
  env = await startSignInRuntime();
});
afterAll(async () => {
  await env?.t.stop();
  await env?.sink.close();
});

const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('invitation (spec 3.1: pending_invite → pending_invitation_acceptance → active)', () => {
  test('sendInviteEmail mails a link token; inviteRedirect sends the browser on; acceptInvitation sets the password and activates; login, the code, a session, the profile', async () => {
    const { t, sink, p, pm } = env;
    const m = await invitableMember(env);
    const sent = await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      id: m.id,
      status: 'pending_invitation_acceptance',
      invitation: { sentTo: m.email },
    });
    expect(Date.parse(sent.body.invitation.expiresAt) - Date.now()).toBeGreaterThan(6 * 24 * 3600 * 1000);

    const mail = await nthMail(sink, m.email, 1);
    const token = codeIn(mail);
    expect(token.startsWith(`${m.id}.`)).toBe(true);
    // the member invitation template, linking to inviteRedirect with the token
    expect(mail.parsed.subject).toMatch(/invitation/i);
    expect(
      String(mail.parsed.html)
        .replace(/&#x2F;/g, '/')
        .replace(/&#x3D;/g, '='),
    ).toContain('/inviteRedirect?token=');

    // the link: an HTML page that moves the token into the application's fragment
    const c = from(t, freshIp());
    const page = await c.get(`${p}/inviteRedirect?token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.text).toContain(`content="0;url=${APP}invitation#token=${token}"`);
    const badLink = await c.get(`${p}/inviteRedirect?token=nothing`);
    expect([badLink.status, badLink.body.code, badLink.body.details.errors]).toEqual([
      400,
      5028,
      [{ field: 'token', reason: 'is not an invitation token' }],
    ]);

    // a password the policy refuses without the account (the email and names: sign-in-token-order.test.ts) leaves
    // the invitation usable; someone else's token is no token
    const weak = await c.post(`${p}/acceptInvitation/${m.id}`, { token, password: 'short' });
    expect([weak.status, weak.body.code, weak.body.details.errors[0].field]).toEqual([400, 5038, 'password']);
    const forged = await c.post(`${p}/acceptInvitation/${m.id}`, {
      token: `${m.id}.0f8fad5b-d9cb-469f-a165-70867728950e`,
      password: PASSWORD,
    });
    expect([forged.status, forged.body.code]).toEqual([401, 5037]);

    const accepted = await c.post(`${p}/acceptInvitation/${m.id}`, { token, password: PASSWORD });
    expect([accepted.status, accepted.body]).toEqual([200, { id: m.id, status: 'active' }]);
    const again = await c.post(`${p}/acceptInvitation/${m.id}`, { token, password: PASSWORD });
    expect([again.status, again.body.code]).toEqual([401, 5037]);

    // login → a code by mail and a token good for the OTP step only
    const login = await c.post(`${p}/login`, { email: m.email.toUpperCase(), password: PASSWORD });
    expect(login.status).toBe(200);
    expect(login.body).toMatchObject({ otpRequired: true, memberId: m.id });
    const step = bearer(login.body.token);
    const code = codeIn(await nthMail(sink, m.email, 2));
    expect(code).toMatch(/^\d{6}$/);
    const notForProfile = await c.get(`${p}/getMemberProfile/${m.id}`, step);
    expect(notForProfile.status).toBe(403);

    const wrong = await c.post(`${p}/checkOtp/${m.id}`, { otp: otherCode(code) }, step);
    expect([wrong.status, wrong.body.code, wrong.body.details.remainingAttempts]).toEqual([401, 5037, 4]);
    const ok = await c.post(`${p}/checkOtp/${m.id}`, { otp: code }, step);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ memberId: m.id, member: { id: m.id, status: 'active', email: m.email } });
    expect(typeof ok.body.refreshToken).toBe('string');
    const spent = await c.post(`${p}/checkOtp/${m.id}`, { otp: code }, step);
    expect([spent.status, spent.body.code]).toEqual([401, 5037]);

    // the session reaches the member's own profile, and nobody else's
    const session = bearer(ok.body.accessToken);
    const profile = await c.get(`${p}/getMemberProfile/${m.id}`, session);
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ id: m.id, email: m.email, status: 'active', hasWaitingApproval: false });
    const other = await invitableMember(env);
    expect((await c.get(`${p}/getMemberProfile/${other.id}`, session)).status).toBe(403);

    // the refresh token gives a new pair
    const refreshed = await c.post(`/${t.projectId}/auth/refresh`, { refreshToken: ok.body.refreshToken });
    expect(refreshed.status).toBe(200);
    expect((await c.get(`${p}/getMemberProfile/${m.id}`, bearer(refreshed.body.token))).status).toBe(200);

    // the hash is in the member's private state only: not in an answer, the listing, an audit entry
    const { state } = await memberState(t, m.id);
    expect(state.private.credentials.passwordHash).toMatch(/^scrypt\$/);
    expect(state.private.lastSignInAt).toEqual(expect.any(String));
    const listed = (await waitFor(
      async () => {
        const r = await t.get(`${p}/listMembers?search=${encodeURIComponent(m.email)}`, pm);
        return r.body.members?.[0]?.status === 'active' ? r : undefined;
      },
      { what: 'the member listed active' },
    )) as { body: unknown };
    // the two status moves are audit-logged, the acceptance as the member's own step
    const statusMoves = (logs: FoundLogs) =>
      logs.items.flatMap((l: any) =>
        l.fieldUpdates
          .filter((f: any) => f.key === 'status')
          .map((f: any) => [f.oldValue && JSON.parse(f.oldValue), f.newValue && JSON.parse(f.newValue), l.actor.type]),
      );
    const logs = (await waitFor(
      async () => {
        const found = await findLogs(t, { classId: 'Member', entityId: m.id });
        return statusMoves(found).length >= 2 ? found : undefined;
      },
      { what: 'the audit entries of the status moves' },
    )) as FoundLogs;
    expect(statusMoves(logs)).toEqual(
      expect.arrayContaining([
        ['pending_invite', 'pending_invitation_acceptance', 'program_management_user'],
        ['pending_invitation_acceptance', 'active', 'member'],
      ]),
    );
    for (const seen of [profile.body, listed.body, ok.body, accepted.body, logs])
      expect(JSON.stringify(seen)).not.toMatch(/scrypt\$|Harbour-lantern/);
  });

  test('a re-send supersedes the earlier invitation; sendInviteEmail needs an active membership and email_password (400 5001)', async () => {
    const { t, sink, p, pm } = env;
    const m = await invitableMember(env);
    expect((await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm)).status).toBe(200);
    const first = codeIn(await nthMail(sink, m.email, 1));
    const resent = await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm);
    expect([resent.status, resent.body.status]).toEqual([200, 'pending_invitation_acceptance']);
    const second = codeIn(await nthMail(sink, m.email, 2));
    expect(second).not.toBe(first);
    const c = from(t, freshIp());
    expect((await c.post(`${p}/acceptInvitation/${m.id}`, { token: first, password: PASSWORD })).body.code).toBe(5037);
    expect((await c.post(`${p}/acceptInvitation/${m.id}`, { token: second, password: PASSWORD })).status).toBe(200);
    // active now: no invitation
    const late = await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm);
    expect([late.status, late.body.code]).toEqual([400, 5001]);

    const noMembership = (
      await t.rt.call('Member', 'createMember', undefined, {
        name: 'No',
        surname: 'Tier',
        staffId: uniq('NT'),
        email: `${uniq('nt')}@example.com`,
        company: { id: 'c-1' },
        memberType: 'mt-perm',
        loginMethod: 'email_password',
      })
    ).body as any;
    const refused = await t.post(`${p}/sendInviteEmail/${noMembership.member.id}`, {}, pm);
    expect([refused.status, refused.body.code, refused.body.details.errors[0].field]).toEqual([400, 5001, 'status']);
  });

  test('an invited member asking how to sign in gets a fresh invitation ("starts OTP registration when absent")', async () => {
    const { t, sink, p, pm } = env;
    const m = await invitableMember(env);
    await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm);
    const first = codeIn(await nthMail(sink, m.email, 1));
    const c = from(t, freshIp());
    const found = await c.post(`${p}/discoverAuthMethod`, { email: m.email });
    expect(found.body).toEqual({ email: m.email, method: 'email_password' });
    const fresh = codeIn(await nthMail(sink, m.email, 2));
    expect(fresh).not.toBe(first);
    expect((await c.post(`${p}/acceptInvitation/${m.id}`, { token: first, password: PASSWORD })).body.code).toBe(5037);
    expect((await c.post(`${p}/acceptInvitation/${m.id}`, { token: fresh, password: PASSWORD })).status).toBe(200);
  });

  test("sendInviteEmail past Otp's otpLimit: 429 6001", async () => {
    const { t, p, pm } = env;
    const m = await invitableMember(env);
    for (let i = 0; i < 5; i++) expect((await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm)).status).toBe(200);
    const refused = await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm);
    expect([refused.status, refused.body.code, refused.body.classId]).toEqual([429, 6001, 'Otp']);
    expect(refused.body.details.retryAfterSeconds).toBeGreaterThan(0);
  });
});

describe('login codes (Otp limits, spec 7.1)', () => {
  test('five wrong codes: the sixth check is refused with 429 6002, the right code too', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const c = from(t, freshIp());
    const login = await c.post(`${p}/login`, { email: m.email, password: m.password });
    const code = codeIn(await nthMail(sink, m.email, 2));
    const step = bearer(login.body.token);
    for (let i = 0; i < 5; i++)
      expect((await c.post(`${p}/checkOtp/${m.id}`, { otp: otherCode(code) }, step)).body.code).toBe(5037);
    const refused = await c.post(`${p}/checkOtp/${m.id}`, { otp: code }, step);
    expect([refused.status, refused.body.code, refused.body.classId]).toEqual([429, 6002, 'Otp']);
  });

  test('resendOtp mails a new code (the old one is superseded); past otpLimit 429 6001', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const c = from(t, freshIp());
    const login = await c.post(`${p}/login`, { email: m.email, password: m.password });
    const step = bearer(login.body.token);
    const first = codeIn(await nthMail(sink, m.email, 2));
    const resent = await c.post(`${p}/resendOtp/${m.id}`, {}, step);
    expect([resent.status, resent.body]).toEqual([200, { sent: true }]);
    const second = codeIn(await nthMail(sink, m.email, 3));
    if (first !== second) expect((await c.post(`${p}/checkOtp/${m.id}`, { otp: first }, step)).body.code).toBe(5037);
    for (let i = 0; i < 3; i++) expect((await c.post(`${p}/resendOtp/${m.id}`, {}, step)).status).toBe(200);
    const refused = await c.post(`${p}/resendOtp/${m.id}`, {}, step);
    expect([refused.status, refused.body.code]).toEqual([429, 6001]);
    // a member_otp token is its member's only
    const other = await activeMember(env);
    expect((await c.post(`${p}/resendOtp/${other.id}`, {}, step)).status).toBe(403);
  });
});

describe('passwords', () => {
  test('reset: the link token by mail, the new password set, every session ended, the old password refused', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const session = await signIn(env, m, 2);
    const c = from(t, freshIp());
    const asked = await c.post(`${p}/sendPasswordResetEmail`, { email: m.email });
    expect([asked.status, asked.body.message]).toEqual([202, expect.stringContaining('If this email belongs')]);
    const mail = await nthMail(sink, m.email, 3);
    expect(mail.parsed.subject).toMatch(/Reset/);
    const token = codeIn(mail);
    expect(token.startsWith(`${m.id}.`)).toBe(true);

    const weak = await c.post(`${p}/resetPassword/${m.id}`, { token, password: 'password1234' });
    expect([weak.status, weak.body.code]).toEqual([400, 5038]);
    const done = await c.post(`${p}/resetPassword/${m.id}`, { token, password: OTHER_PASSWORD });
    expect([done.status, done.body]).toEqual([200, { reset: true }]);
    expect((await c.post(`${p}/resetPassword/${m.id}`, { token, password: PASSWORD })).body.code).toBe(5037);

    // the session from before: its access token and its refresh token are refused
    expect((await c.get(`${p}/getMemberProfile/${m.id}`, bearer(session.accessToken))).status).toBe(401);
    expect((await c.post(`/${t.projectId}/auth/refresh`, { refreshToken: session.refreshToken })).status).toBe(401);
    const old = await c.post(`${p}/login`, { email: m.email, password: PASSWORD });
    expect([old.status, old.body.code]).toEqual([401, 5036]);
    const fresh = await signIn(env, { email: m.email, password: OTHER_PASSWORD }, 4);
    expect((await c.get(`${p}/getMemberProfile/${m.id}`, bearer(fresh.accessToken))).status).toBe(200);
  });

  test('change: the current password is required; the answer is a new session and the others end', async () => {
    const { t, p } = env;
    const m = await activeMember(env);
    const session = await signIn(env, m, 2);
    const c = from(t, freshIp());
    const me = bearer(session.accessToken);
    const wrong = await c.post(
      `${p}/changePassword/${m.id}`,
      { currentPassword: 'not the password', newPassword: OTHER_PASSWORD },
      me,
    );
    expect([wrong.status, wrong.body.code, wrong.body.details.errors]).toEqual([
      400,
      5039,
      [{ field: 'currentPassword', reason: 'is not the current password' }],
    ]);
    const weak = await c.post(
      `${p}/changePassword/${m.id}`,
      { currentPassword: PASSWORD, newPassword: 'qwertyuiop123' },
      me,
    );
    expect([weak.status, weak.body.code, weak.body.details.errors[0].field]).toEqual([400, 5038, 'newPassword']);
    const same = await c.post(`${p}/changePassword/${m.id}`, { currentPassword: PASSWORD, newPassword: PASSWORD }, me);
    expect([same.status, same.body.code]).toEqual([400, 5038]);
    const other = await activeMember(env);
    expect(
      (await c.post(`${p}/changePassword/${other.id}`, { currentPassword: PASSWORD, newPassword: OTHER_PASSWORD }, me))
        .status,
    ).toBe(403);

    const changed = await c.post(
      `${p}/changePassword/${m.id}`,
      { currentPassword: PASSWORD, newPassword: OTHER_PASSWORD },
      me,
    );
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ changed: true, memberId: m.id });
    expect((await c.get(`${p}/getMemberProfile/${m.id}`, me)).status).toBe(401);
    expect((await c.get(`${p}/getMemberProfile/${m.id}`, bearer(changed.body.accessToken))).status).toBe(200);
    expect((await c.post(`${p}/login`, { email: m.email, password: PASSWORD })).status).toBe(401);
    expect((await c.post(`${p}/login`, { email: m.email, password: OTHER_PASSWORD })).status).toBe(200);
    // audit: when, never what
    const logs = await waitFor(
      async () => {
        const found = await findLogs(t, { classId: 'Member', entityId: m.id });
        return found.items.some((l: any) => l.additionalData?.source === 'change_password') ? found : undefined;
      },
      { what: 'the audit entry of the change' },
    );
    expect(JSON.stringify(logs)).not.toMatch(/scrypt\$|Quiet meadow|Harbour-lantern/);
  });

  test('a member who may not sign in (deactivated) is refused at login and its tokens stop working', async () => {
    const { t, p } = env;
    const m = await activeMember(env);
    const session = await signIn(env, m, 2);
    const c = from(t, freshIp());
    // the status moves as the system (no approval)
    const r = await t.rt.call('Member', 'updateMemberStatus', m.id, { status: 'inactive' });
    expect(r.status).toBe(200);
    expect((await memberState(t, m.id)).state.private.profile.status).toBe('inactive');
    expect((await c.get(`${p}/getMemberProfile/${m.id}`, bearer(session.accessToken))).status).toBe(401);
    expect((await c.post(`/${t.projectId}/auth/refresh`, { refreshToken: session.refreshToken })).status).toBe(401);
    const login = await c.post(`${p}/login`, { email: m.email, password: m.password });
    expect([login.status, login.body.code]).toEqual([401, 5036]);
  });
});

describe('no user enumeration', () => {
  test('discoverAuthMethod, login and sendPasswordResetEmail answer an unknown email as they answer a known one', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const invited = await invitableMember(env);
    const c = from(t, freshIp());
    const unknown = `${uniq('nobody')}@example.com`;

    const strip = (a: { status: number; body: any }) => ({ status: a.status, body: { ...a.body, email: undefined } });
    const discovered = await Promise.all(
      [m.email, invited.email, unknown].map((email) => c.post(`${p}/discoverAuthMethod`, { email })),
    );
    expect(discovered.map(strip)).toEqual(
      Array(3).fill({ status: 200, body: { method: 'email_password', email: undefined } }),
    );

    const wrongPassword = await c.post(`${p}/login`, { email: m.email, password: OTHER_PASSWORD });
    const unknownEmail = await c.post(`${p}/login`, { email: unknown, password: OTHER_PASSWORD });
    const notYet = await c.post(`${p}/login`, { email: invited.email, password: OTHER_PASSWORD });
    expect([wrongPassword.status, wrongPassword.body]).toEqual([
      401,
      { code: 5036, message: 'The email or password is not correct', classId: 'Member' },
    ]);
    expect(unknownEmail.body).toEqual(wrongPassword.body);
    expect(notYet.body).toEqual(wrongPassword.body);
    expect([unknownEmail.status, notYet.status]).toEqual([401, 401]);

    const resetKnown = await c.post(`${p}/sendPasswordResetEmail`, { email: m.email });
    const resetUnknown = await c.post(`${p}/sendPasswordResetEmail`, { email: unknown });
    const resetInvited = await c.post(`${p}/sendPasswordResetEmail`, { email: invited.email });
    expect([resetUnknown.status, resetUnknown.body]).toEqual([resetKnown.status, resetKnown.body]);
    expect([resetInvited.status, resetInvited.body]).toEqual([resetKnown.status, resetKnown.body]);
    // the known member gets its link (after its invitation); the others get nothing
    expect(codeIn(await nthMail(sink, m.email, 2))).toMatch(new RegExp(`^${m.id}\\.`));
    expect(mailsTo(sink, unknown)).toEqual([]);
    expect(mailsTo(sink, invited.email)).toEqual([]);
  });
});
