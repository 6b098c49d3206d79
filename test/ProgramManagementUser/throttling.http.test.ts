/**
 * Every public sign-in operation refuses a caller repeating itself, per
 * address and per account (429), and no answer tells whether an email has an
 * account. Each test calls from a loopback address of its own (127.0.0.0/8),
 * so the per-address counters of one test do not touch another's.
 *
 * Most calls here check a password (scrypt, CPU-bound, on the thread pool):
 * the calls that hash are made a few side by side (sideBySide) where their
 * order does not matter, so that every hash the pool runs at once is busy. A
 * throttle counts with one Redis increment per call, so `max` calls side by
 * side are all admitted whatever their order, and the call made after they
 * have all answered is refused as before.
 */
import * as passwords from '../../classes/_platform/passwords';
import { THROTTLE } from '../../classes/ProgramManagementUser/use-cases/requester';
import {
  acceptInvitation,
  auth,
  call,
  codeOf,
  createApprovedUser,
  email,
  nthMail,
  PASSWORD,
  postFrom,
  settled,
  startPmRuntime,
  SUBJECTS,
  type PmRuntime,
} from './support';
import { sideBySide } from '../support/side-by-side';

let p: PmRuntime;
beforeAll(async () => {
  // Otp's limits as documented: 5 codes and 5 failed checks per 15 minutes
  p = await startPmRuntime({ OTP_LIMIT: '5', OTP_RETRY_LIMIT: '5' });
});
afterAll(() => p.stop());

let next = 10;
/** a loopback address no other test uses */
const address = () => `127.0.0.${next++}`;
const path = (method: string) => `/${p.t.projectId}/CALL/ProgramManagementUser/${method}`;
const from = (ip: string, method: string, body: unknown, headers: Record<string, string> = {}) =>
  postFrom(p.t, ip, path(method), body, headers);

/** an active email/password user */
async function activeUser() {
  const u = await createApprovedUser(p);
  await acceptInvitation(p, u);
  return u;
}

/** calls `n` times, one after another; answers the statuses */
async function repeat(n: number, fn: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await fn(i)).status);
  return out;
}

/** calls that hash: `n` times, a few side by side; answers the statuses in call order */
async function repeatHashing(n: number, fn: (i: number) => Promise<{ status: number }>): Promise<number[]> {
  const statuses = (await sideBySide(n, fn)).map((r) => r.status);
  expect(statuses).toHaveLength(n);
  return statuses;
}

const tooMany = (r: { status: number; body: any }) =>
  expect([r.status, r.body.code, typeof r.body.details?.retryAfterSeconds]).toEqual([429, 4015, 'number']);

describe('429 per address', () => {
  test('login', async () => {
    const ip = address();
    const max = THROTTLE.login.perAddress.max;
    const statuses = await repeatHashing(max, () =>
      from(ip, 'login', { email: email('nobody'), password: 'wrong-password-here' }),
    );
    expect(new Set(statuses)).toEqual(new Set([401]));
    tooMany(await from(ip, 'login', { email: email('nobody'), password: 'wrong-password-here' }));
    // another address is not held back
    expect((await from(address(), 'login', { email: email('nobody'), password: 'wrong-password-here' })).status).toBe(
      401,
    );
  });

  test('discoverAuthMethod', async () => {
    const ip = address();
    await repeat(THROTTLE.discover.perAddress.max, () => from(ip, 'discoverAuthMethod', { email: email() }));
    tooMany(await from(ip, 'discoverAuthMethod', { email: email() }));
  });

  test('sendPasswordResetEmail', async () => {
    const ip = address();
    await repeat(THROTTLE.passwordReset.perAddress.max, () => from(ip, 'sendPasswordResetEmail', { email: email() }));
    tooMany(await from(ip, 'sendPasswordResetEmail', { email: email() }));
  });

  test('resetPassword and acceptInvitation', async () => {
    for (const method of ['resetPassword', 'acceptInvitation'] as const) {
      const ip = address();
      await repeatHashing(THROTTLE[method].perAddress.max, () =>
        from(ip, method, { email: email(), otp: 'ABCDEFGH', password: 'mauve-otter-lantern-42' }),
      );
      tooMany(await from(ip, method, { email: email(), otp: 'ABCDEFGH', password: 'mauve-otter-lantern-42' }));
    }
  });

  test('singleSignOn', async () => {
    const ip = address();
    // SSO is not configured in this runtime: refused (404) but counted
    await repeat(THROTTLE.singleSignOn.perAddress.max, () => from(ip, 'singleSignOn', { SAMLResponse: 'PHg+' }));
    tooMany(await from(ip, 'singleSignOn', { SAMLResponse: 'PHg+' }));
  });
});

describe('429 per account', () => {
  test('login: a known and an unknown email are held back alike, after the same number of attempts', async () => {
    const known = await activeUser();
    const unknown = email('ghost');
    const ip = address();
    for (const who of [known.email, unknown]) {
      const statuses = await repeatHashing(THROTTLE.login.perAccount.max, () =>
        from(ip, 'login', { email: who, password: 'not-the-password-1' }),
      );
      expect(new Set(statuses)).toEqual(new Set([401]));
    }
    const a = await from(address(), 'login', { email: known.email, password: 'not-the-password-1' });
    const b = await from(address(), 'login', { email: unknown, password: 'not-the-password-1' });
    tooMany(a);
    expect({ ...b.body, details: undefined }).toEqual({ ...a.body, details: undefined });
    // even the right password waits: the account is held back, not the guess
    tooMany(await from(address(), 'login', { email: known.email, password: PASSWORD }));
  });

  test('checkOtp: Otp refuses failed checks past its retry limit (429 6002), then the account counter (4015)', async () => {
    const u = await activeUser();
    const login = await call(p.t, 'login', undefined, { email: u.email, password: PASSWORD });
    const code = codeOf(await nthMail(p.sink, u.email, SUBJECTS.login));
    const wrong = code === '000000' ? '111111' : '000000';
    const statuses = await repeat(5, () => call(p.t, 'checkOtp', undefined, { otp: wrong }, auth(login.body.token)));
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const locked = await call(p.t, 'checkOtp', undefined, { otp: code }, auth(login.body.token));
    expect([locked.status, locked.body.code, locked.body.classId]).toEqual([429, 6002, 'Otp']);
    await repeat(THROTTLE.checkOtp.perAccount.max - 6, () =>
      call(p.t, 'checkOtp', undefined, { otp: wrong }, auth(login.body.token)),
    );
    tooMany(await call(p.t, 'checkOtp', undefined, { otp: code }, auth(login.body.token)));
  });

  test('resendOtp: Otp refuses codes past its limit (429 6001), then the account counter (4015)', async () => {
    const u = await activeUser();
    const login = await call(p.t, 'login', undefined, { email: u.email, password: PASSWORD });
    // login sent one code: four more reach Otp's otpLimit of five
    expect(await repeat(4, () => call(p.t, 'resendOtp', undefined, {}, auth(login.body.token)))).toEqual([
      200, 200, 200, 200,
    ]);
    const limit = await call(p.t, 'resendOtp', undefined, {}, auth(login.body.token));
    expect([limit.status, limit.body.code, limit.body.classId]).toEqual([429, 6001, 'Otp']);
    tooMany(await call(p.t, 'resendOtp', undefined, {}, auth(login.body.token)));
  });

  test('sendPasswordResetEmail: the same answers for a known and an unknown email, the 429 included', async () => {
    const known = await activeUser();
    const unknown = email('ghost');
    const answers = [];
    for (const who of [known.email, unknown]) {
      const statuses = [];
      for (let i = 0; i < THROTTLE.passwordReset.perAccount.max; i++) {
        const r = await from(address(), 'sendPasswordResetEmail', { email: who });
        statuses.push(r.status);
        answers.push(r.body);
      }
      expect(statuses).toEqual(Array(THROTTLE.passwordReset.perAccount.max).fill(202));
      tooMany(await from(address(), 'sendPasswordResetEmail', { email: who }));
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    // the known account got its codes, the unknown nothing
    await nthMail(p.sink, known.email, SUBJECTS.reset, THROTTLE.passwordReset.perAccount.max);
  });

  test('resetPassword: wrong codes for a known account and any code for an unknown one are refused alike, then 429 alike', async () => {
    const known = await activeUser();
    await call(p.t, 'sendPasswordResetEmail', undefined, { email: known.email });
    const code = codeOf(await nthMail(p.sink, known.email, SUBJECTS.reset));
    const wrong = code === 'ABCDEFGH' ? 'HGFEDCBA' : 'ABCDEFGH';
    const unknown = email('ghost');
    const bodies: unknown[] = [];
    for (const who of [known.email, unknown]) {
      const refused = await sideBySide(5, () =>
        from(address(), 'resetPassword', { email: who, otp: wrong, password: 'mauve-otter-lantern-43' }),
      );
      expect(refused).toHaveLength(5);
      for (const r of refused) {
        expect([r.status, r.body.code]).toEqual([401, 4014]);
        bodies.push(r.body);
      }
      const locked = await from(address(), 'resetPassword', {
        email: who,
        otp: wrong,
        password: 'mauve-otter-lantern-43',
      });
      tooMany(locked);
      bodies.push({ ...locked.body, details: undefined });
    }
    expect(bodies.slice(0, 6)).toEqual(bodies.slice(6));
  });
});

describe('no user enumeration', () => {
  test('login: unknown email, wrong password, inactive user, SSO user and a pending one answer alike', async () => {
    const [active, pending, sso, inactive] = await Promise.all([
      activeUser(),
      createApprovedUser(p),
      createApprovedUser(p, { loginMethod: 'sso' }),
      activeUser(),
    ]);
    const off = await call(p.t, 'updateUserStatus', inactive.id, { status: 'inactive' }, p.admin);
    await call(p.t, 'reviewApproval', off.body.approval.id, { action: 'approve' }, p.approver, 'ApprovalManager');
    await settled(p, inactive.id);
    const tries = [
      [email('ghost'), PASSWORD],
      [active.email, 'not-the-password-1'],
      [inactive.email, PASSWORD],
      [sso.email, PASSWORD],
      [pending.email, PASSWORD],
    ] as const;
    // each from an address of its own, side by side (each hashes)
    const answers = (
      await sideBySide(tries.length, (i) => from(address(), 'login', { email: tries[i]![0], password: tries[i]![1] }))
    ).map((r) => ({ status: r.status, body: r.body }));
    expect(answers).toHaveLength(tries.length);
    expect(answers[0]).toEqual({
      status: 401,
      body: { code: 4013, message: 'The email or password is not correct', classId: 'ProgramManagementUser' },
    });
    for (const a of answers) expect(a).toEqual(answers[0]);
  });

  test('acceptInvitation: an unknown email, an active user and a wrong code answer alike', async () => {
    const [invited, active] = await Promise.all([createApprovedUser(p), activeUser()]);
    const who = [email('ghost'), active.email, invited.email];
    // side by side (each hashes)
    const answers = (
      await sideBySide(who.length, (i) =>
        from(address(), 'acceptInvitation', { email: who[i], otp: 'ZZZZZZZZ', password: 'mauve-otter-lantern-44' }),
      )
    ).map((r) => ({
      status: r.status,
      body: r.body,
    }));
    expect(answers).toHaveLength(who.length);
    for (const a of answers)
      expect(a).toEqual({
        status: 401,
        body: { code: 4014, message: 'The code is not valid for this email', classId: 'ProgramManagementUser' },
      });
  });

  test('resetPassword and acceptInvitation: every refusal hashes the password once, a wrong code for a known account as an unknown email', async () => {
    // counted, not timed: the same work on each path is what makes them take the same time
    // the two accounts are made side by side; the refusals below are counted one at a time
    const [[active, resetCode], [invited, inviteCode]] = await Promise.all([
      (async () => {
        const u = await activeUser();
        await call(p.t, 'sendPasswordResetEmail', undefined, { email: u.email });
        return [u, codeOf(await nthMail(p.sink, u.email, SUBJECTS.reset))] as const;
      })(),
      (async () => {
        const u = await createApprovedUser(p);
        return [u, codeOf(await nthMail(p.sink, u.email, SUBJECTS.invite))] as const;
      })(),
    ]);
    const other = (code: string) => (code === 'ABCDEFGH' ? 'HGFEDCBA' : 'ABCDEFGH');
    const ghost = email('ghost');
    const password = 'mauve-otter-lantern-45';
    const cases = [
      ['resetPassword', ghost, 'ABCDEFGH', 'unknown email'],
      ['resetPassword', invited.email, 'ABCDEFGH', 'not an active password user'],
      ['resetPassword', active.email, other(resetCode), 'wrong code'],
      ['acceptInvitation', ghost, 'ABCDEFGH', 'unknown email'],
      ['acceptInvitation', active.email, 'ABCDEFGH', 'not invited'],
      ['acceptInvitation', invited.email, other(inviteCode), 'wrong code'],
    ] as const;
    const verify = jest.spyOn(passwords, 'verifyPassword');
    const hash = jest.spyOn(passwords, 'hashPassword');
    try {
      for (const [method, who, otp, why] of cases) {
        verify.mockClear();
        hash.mockClear();
        const r = await from(address(), method, { email: who, otp, password });
        expect({
          method,
          why,
          answer: [r.status, r.body.code],
          standIns: verify.mock.calls,
          hashes: hash.mock.calls.length,
        }).toEqual({
          method,
          why,
          answer: [401, 4014],
          standIns: [[password, null]],
          hashes: 0,
        });
      }
    } finally {
      verify.mockRestore();
      hash.mockRestore();
    }
  });

  test('discoverAuthMethod: a known and an unknown email get the same answer', async () => {
    const known = await activeUser();
    const ghost = email('ghost');
    const a = await from(address(), 'discoverAuthMethod', { email: known.email });
    const b = await from(address(), 'discoverAuthMethod', { email: ghost });
    expect(a.body).toEqual({ email: known.email, method: 'email_password' });
    expect(b.body).toEqual({ email: ghost, method: 'email_password' });
  });
});
