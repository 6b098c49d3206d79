/**
 * What a Member sign-in token proves, and when (security review of sign-in):
 *
 * - a link token is checked before anything about the account is told: a wrong
 *   token with a password holding the member's name or email gets the same 401
 *   as any wrong token (the account-context password rules run only once the
 *   token matched, so a member id alone confirms no name or email guess);
 * - a reset link mailed before a password change is refused after it;
 * - a member_otp step token issued before a password change no longer reaches
 *   checkOtp or resendOtp.
 */
import {
  activeMember,
  bearer,
  codeIn,
  freshIp,
  from,
  invitableMember,
  nthMail,
  OTHER_PASSWORD,
  PASSWORD,
  signIn,
  startSignInRuntime,
  type Answer,
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

/** test/Member/support createMember's surname: a context word of every member made there */
const SURNAME = 'Lovelace';
const FORGED_SECRET = '0f8fad5b-d9cb-469f-a165-70867728950e';
const answerOf = (a: Answer) => [a.status, a.body];

describe('a wrong link token tells nothing of the account (no name or email oracle)', () => {
  test('acceptInvitation: a guess of the name or email with a wrong token is the same 401 as any wrong token; with the right token the context rules refuse it', async () => {
    const { t, sink, p, pm } = env;
    const m = await invitableMember(env);
    expect((await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm)).status).toBe(200);
    const token = codeIn(await nthMail(sink, m.email, 1));
    const c = from(t, freshIp());

    const plain = await c.post(`${p}/acceptInvitation/${m.id}`, { token: `${m.id}.aaaaaa`, password: PASSWORD });
    expect([plain.status, plain.body.code]).toEqual([401, 5037]);
    // (three wrong checks in all: Otp's retry limit is five)
    for (const [secret, guess] of [
      ['aaaaaa', `${SURNAME} harbour 42 violet`],
      [FORGED_SECRET, `${m.email} harbour 42`],
    ]) {
      const r = await c.post(`${p}/acceptInvitation/${m.id}`, { token: `${m.id}.${secret}`, password: guess });
      expect(answerOf(r)).toEqual(answerOf(plain));
    }

    // a context-free refusal still comes first and leaves the invitation usable
    const short = await c.post(`${p}/acceptInvitation/${m.id}`, { token, password: 'short' });
    expect([short.status, short.body.code, short.body.details.errors]).toEqual([
      400,
      5038,
      [{ field: 'password', reason: 'must be at least 12 characters' }],
    ]);
    // the right token: the name is refused (the token was spent by the match: the member asks for a new invitation)
    const named = await c.post(`${p}/acceptInvitation/${m.id}`, { token, password: `${SURNAME} harbour 42 violet` });
    expect([named.status, named.body.code, named.body.details.errors]).toEqual([
      400,
      5038,
      [{ field: 'password', reason: 'must not contain the name of the account' }],
    ]);
    expect((await c.post(`${p}/acceptInvitation/${m.id}`, { token, password: PASSWORD })).body.code).toBe(5037);
    expect((await t.post(`${p}/sendInviteEmail/${m.id}`, {}, pm)).status).toBe(200);
    const fresh = codeIn(await nthMail(sink, m.email, 2));
    expect((await c.post(`${p}/acceptInvitation/${m.id}`, { token: fresh, password: PASSWORD })).status).toBe(200);
  });

  test('resetPassword: a guess of the name or email with a wrong token is the same 401 as any wrong token; with the right token the context rules refuse it', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const c = from(t, freshIp());
    expect((await c.post(`${p}/sendPasswordResetEmail`, { email: m.email })).status).toBe(202);
    const token = codeIn(await nthMail(sink, m.email, 2));

    const plain = await c.post(`${p}/resetPassword/${m.id}`, { token: `${m.id}.aaaaaa`, password: OTHER_PASSWORD });
    expect([plain.status, plain.body.code]).toEqual([401, 5037]);
    for (const guess of [`${SURNAME} harbour 42 violet`, `${m.email} harbour 42`]) {
      const r = await c.post(`${p}/resetPassword/${m.id}`, { token: `${m.id}.${FORGED_SECRET}`, password: guess });
      expect(answerOf(r)).toEqual(answerOf(plain));
    }

    const common = await c.post(`${p}/resetPassword/${m.id}`, { token, password: 'password1234' });
    expect([common.status, common.body.code]).toEqual([400, 5038]);
    const named = await c.post(`${p}/resetPassword/${m.id}`, { token, password: `${m.email} harbour 42` });
    expect([named.status, named.body.code, named.body.details.errors]).toEqual([
      400,
      5038,
      [{ field: 'password', reason: 'must not contain the email address' }],
    ]);
    // nothing was stored: the old password still signs in
    expect((await c.post(`${p}/login`, { email: m.email, password: PASSWORD })).status).toBe(200);
  });
});

describe('a password change ends what was issued before it', () => {
  test('a reset link mailed before changePassword is refused after it (the same 401 as an invalid link)', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const session = await signIn(env, m, 2);
    const c = from(t, freshIp());
    expect((await c.post(`${p}/sendPasswordResetEmail`, { email: m.email })).status).toBe(202);
    const token = codeIn(await nthMail(sink, m.email, 3));

    const changed = await c.post(
      `${p}/changePassword/${m.id}`,
      { currentPassword: PASSWORD, newPassword: OTHER_PASSWORD },
      bearer(session.accessToken),
    );
    expect(changed.status).toBe(200);
    const stale = await c.post(`${p}/resetPassword/${m.id}`, { token, password: 'Copper kettle 19 at dawn' });
    const forged = await c.post(`${p}/resetPassword/${m.id}`, {
      token: `${m.id}.${FORGED_SECRET}`,
      password: 'Copper kettle 19 at dawn',
    });
    expect([stale.status, stale.body.code]).toEqual([401, 5037]);
    expect(stale.body).toEqual(forged.body);
    // the changed password is the one that signs in
    expect((await c.post(`${p}/login`, { email: m.email, password: OTHER_PASSWORD })).status).toBe(200);

    // a link asked for after the change works
    expect((await c.post(`${p}/sendPasswordResetEmail`, { email: m.email })).status).toBe(202);
    const after = codeIn(await nthMail(sink, m.email, 5));
    const done = await c.post(`${p}/resetPassword/${m.id}`, { token: after, password: 'Copper kettle 19 at dawn' });
    expect([done.status, done.body]).toEqual([200, { reset: true }]);
  });

  test('a login step token issued before changePassword reaches neither checkOtp nor resendOtp (401 1007)', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const session = await signIn(env, m, 2);
    const c = from(t, freshIp());
    const login = await c.post(`${p}/login`, { email: m.email, password: PASSWORD });
    expect(login.status).toBe(200);
    const code = codeIn(await nthMail(sink, m.email, 3));
    const step = bearer(login.body.token);

    const changed = await c.post(
      `${p}/changePassword/${m.id}`,
      { currentPassword: PASSWORD, newPassword: OTHER_PASSWORD },
      bearer(session.accessToken),
    );
    expect(changed.status).toBe(200);
    const checked = await c.post(`${p}/checkOtp/${m.id}`, { otp: code }, step);
    expect([checked.status, checked.body.code]).toEqual([401, 1007]);
    const resent = await c.post(`${p}/resendOtp/${m.id}`, {}, step);
    expect([resent.status, resent.body.code]).toEqual([401, 1007]);

    // a login after the change gets a step token that works
    await signIn(env, { email: m.email, password: OTHER_PASSWORD }, 4);
  });

  test('a login step token issued before resetPassword is refused by checkOtp', async () => {
    const { t, sink, p } = env;
    const m = await activeMember(env);
    const c = from(t, freshIp());
    const login = await c.post(`${p}/login`, { email: m.email, password: PASSWORD });
    expect(login.status).toBe(200);
    const code = codeIn(await nthMail(sink, m.email, 2));
    expect((await c.post(`${p}/sendPasswordResetEmail`, { email: m.email })).status).toBe(202);
    const token = codeIn(await nthMail(sink, m.email, 3));
    expect((await c.post(`${p}/resetPassword/${m.id}`, { token, password: OTHER_PASSWORD })).status).toBe(200);

    const checked = await c.post(`${p}/checkOtp/${m.id}`, { otp: code }, bearer(login.body.token));
    expect([checked.status, checked.body.code]).toEqual([401, 1007]);
  });
});
