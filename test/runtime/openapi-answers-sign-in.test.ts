/**
 * The sign-in answers match their schemas: a member and a back-office user
 * invited, accepting, logging in, reading the code from a real mail and
 * getting their session (login and checkOtp once answered `{}` in the typed
 * client), over HTTP against the real classes.
 */
import { answerValidator } from '../../runtime/actor/answers';
import { waitFor, type TestRuntime } from '../support/harness';
import {
  activeMember,
  bearer,
  codeIn,
  from,
  freshIp,
  nthMail,
  startSignInRuntime,
  type SignInEnv,
} from '../Member/sign-in-support';
import {
  auth,
  call,
  codeOf,
  createApprovedUser,
  mailsTo,
  PASSWORD,
  SUBJECTS,
  startPmRuntime,
  type PmRuntime,
} from '../ProgramManagementUser/support';

/** checks an HTTP answer of `classId.method` against its schema and statuses; answers its body */
function checkAnswer(t: TestRuntime, classId: string, method: string, res: { status: number; body: unknown }): any {
  const m = t.rt.registry.get(classId)!.methodsByName.get(method)!;
  const check = answerValidator(classId, m.answer!);
  const body = res.status === 204 ? null : res.body;
  const valid = check(body);
  expect({
    call: `${classId}.${method}`,
    status: res.status,
    errors: valid ? null : check.errors,
    body: valid ? null : body,
  }).toEqual({
    call: `${classId}.${method}`,
    status: m.answer!.statuses.includes(res.status) ? res.status : -1,
    errors: null,
    body: null,
  });
  return res.body;
}

describe("a member's sign-in answers", () => {
  let env: SignInEnv;
  beforeAll(async () => {
    env = await startSignInRuntime();
  }, 60_000);
  afterAll(async () => {
    await env?.t.stop();
    await env?.sink.close();
  });

  it('sendInviteEmail, acceptInvitation, login, checkOtp, resendOtp, changePassword and discoverAuthMethod answer as their schemas say', async () => {
    const m = await activeMember(env);
    const c = from(env.t, freshIp());
    const login = checkAnswer(
      env.t,
      'Member',
      'login',
      await c.post(`${env.p}/login`, { email: m.email, password: m.password }),
    );
    checkAnswer(
      env.t,
      'Member',
      'resendOtp',
      await c.post(`${env.p}/resendOtp/${login.memberId}`, {}, bearer(login.token)),
    );
    const otp = codeIn(await nthMail(env.sink, m.email, 3));
    const session = checkAnswer(
      env.t,
      'Member',
      'checkOtp',
      await c.post(`${env.p}/checkOtp/${login.memberId}`, { otp }, bearer(login.token)),
    );
    expect(session.accessToken).toEqual(expect.any(String));
    const member = bearer(session.accessToken);
    checkAnswer(
      env.t,
      'Member',
      'changePassword',
      await c.post(
        `${env.p}/changePassword/${m.id}`,
        { currentPassword: m.password, newPassword: 'Another harbour lantern 43' },
        member,
      ),
    );
    checkAnswer(env.t, 'Member', 'discoverAuthMethod', await c.post(`${env.p}/discoverAuthMethod`, { email: m.email }));
  });
});

describe("a back-office user's sign-in answers", () => {
  let p: PmRuntime;
  beforeAll(async () => {
    p = await startPmRuntime();
  }, 60_000);
  afterAll(() => p?.stop());

  it('acceptInvitation, login, checkOtp, resendOtp, getPermissions and the password reset answer as their schemas say', async () => {
    const u = await createApprovedUser(p);
    const code = codeOf(await waitForMail(p, u.email, SUBJECTS.invite));
    checkAnswer(
      p.t,
      'ProgramManagementUser',
      'acceptInvitation',
      await call(p.t, 'acceptInvitation', undefined, { email: u.email, otp: code, password: PASSWORD }),
    );
    const login = checkAnswer(
      p.t,
      'ProgramManagementUser',
      'login',
      await call(p.t, 'login', undefined, { email: u.email, password: PASSWORD }),
    );
    checkAnswer(
      p.t,
      'ProgramManagementUser',
      'resendOtp',
      await call(p.t, 'resendOtp', undefined, {}, auth(login.token)),
    );
    const otp = codeOf(await waitForMail(p, u.email, SUBJECTS.login, 2));
    const session = checkAnswer(
      p.t,
      'ProgramManagementUser',
      'checkOtp',
      await call(p.t, 'checkOtp', undefined, { otp }, auth(login.token)),
    );
    expect(session.user.id).toBe(u.id);
    checkAnswer(
      p.t,
      'ProgramManagementUser',
      'getPermissions',
      await call(p.t, 'getPermissions', u.id, {}, auth(session.accessToken)),
    );
    checkAnswer(p.t, 'ProgramManagementUser', 'resetPassword', await resetPassword(p, u.email));
  });
});

async function waitForMail(p: PmRuntime, address: string, subject: string, n = 1) {
  await waitFor(() => mailsTo(p.sink, address).filter((m) => String(m.parsed.subject).includes(subject)).length >= n, {
    what: `mail ${n} '${subject}' to ${address}`,
  });
  return mailsTo(p.sink, address).filter((m) => String(m.parsed.subject).includes(subject))[n - 1]!;
}

/** a reset code mailed, then the reset with it */
async function resetPassword(p: PmRuntime, address: string) {
  const sent = await call(p.t, 'sendPasswordResetEmail', undefined, { email: address });
  checkAnswer(p.t, 'ProgramManagementUser', 'sendPasswordResetEmail', sent);
  const code = codeOf(await waitForMail(p, address, SUBJECTS.reset));
  return call(p.t, 'resetPassword', undefined, { email: address, otp: code, password: 'a-new-lantern-otter-43' });
}
