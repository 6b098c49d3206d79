/**
 * Throttling of member sign-in (ctx.limits, shared by every process): each
 * public operation refuses a caller address repeating itself, and each
 * operation naming an account refuses that account being tried too often,
 * with 429 5035 and `retryAfterSeconds`; an address's refusal does not touch
 * another address, nor an account's another account. Otp's own limits (6001,
 * 6002) are raised here so that the service's throttles are what refuses
 * first (sign-in.test.ts runs with Otp's defaults).
 *
 * The calls a limit admits are made a few side by side (sideBySide): many
 * check a password (scrypt, CPU-bound, on the thread pool), and one after
 * another they keep only one of the hashes the pool runs at once busy. A limit
 * counts with one Redis increment per call, so `max` calls side by side are
 * all admitted whatever their order, and the call made once they have all
 * answered is refused as before.
 */
import { SIGN_IN_THROTTLE } from '../../classes/Member/sign-in-rules';
import { sideBySide } from '../support/side-by-side';
import { uniq } from './support';
import {
  activeMember,
  bearer,
  codeIn,
  freshIp,
  from,
  invitableMember,
  nthMail,
  OTHER_PASSWORD,
  signIn,
  startSignInRuntime,
  type Answer,
  type SignInEnv,
} from './sign-in-support';

let env: SignInEnv;

beforeAll(async () => {
  // the loopback addresses the tests call from are trusted proxies: an X-Forwarded-For chooses the caller's address
  env = await startSignInRuntime({ OTP_LIMIT: '100', OTP_RETRY_LIMIT: '50', TRUST_PROXY: 'loopback' });
});
afterAll(async () => {
  await env?.t.stop();
  await env?.sink.close();
});

const email = () => `${uniq('t')}@example.com`;
const TOKEN = (id: string) => `${id}.0f8fad5b-d9cb-469f-a165-70867728950e`;

/** `max` calls (side by side) answered `status`, then 429 5035 */
async function exhaust(max: number, status: number, call: (i: number) => Promise<Answer>): Promise<Answer> {
  const admitted = await sideBySide(max, call);
  expect(admitted).toHaveLength(max);
  admitted.forEach((r, i) => expect([i, r.status]).toEqual([i, status]));
  const refused = await call(max);
  expect([refused.status, refused.body.code, refused.body.classId]).toEqual([429, 5035, 'Member']);
  expect(refused.body.details.retryAfterSeconds).toBeGreaterThan(0);
  return refused;
}

describe('per address', () => {
  const p = () => env.p;

  test('login', async () => {
    const ip = freshIp();
    await exhaust(SIGN_IN_THROTTLE.login.perAddress.max, 401, () =>
      from(env.t, ip).post(`${p()}/login`, { email: email(), password: OTHER_PASSWORD }),
    );
    // another address is not refused
    expect(
      (await from(env.t, freshIp()).post(`${p()}/login`, { email: email(), password: OTHER_PASSWORD })).status,
    ).toBe(401);
  });

  test('discoverAuthMethod', async () => {
    const c = from(env.t, freshIp());
    await exhaust(SIGN_IN_THROTTLE.discoverAuthMethod.perAddress.max, 200, () =>
      c.post(`${p()}/discoverAuthMethod`, { email: email() }),
    );
  });

  test('sendPasswordResetEmail', async () => {
    const c = from(env.t, freshIp());
    await exhaust(SIGN_IN_THROTTLE.sendPasswordResetEmail.perAddress.max, 202, () =>
      c.post(`${p()}/sendPasswordResetEmail`, { email: email() }),
    );
  });

  test('acceptInvitation and resetPassword (on as many members)', async () => {
    const members = await Promise.all(Array.from({ length: 21 }, () => invitableMember(env)));
    for (const op of ['acceptInvitation', 'resetPassword'] as const) {
      const c = from(env.t, freshIp());
      await exhaust(SIGN_IN_THROTTLE[op].perAddress.max, 401, (i) =>
        c.post(`${p()}/${op}/${members[i]!.id}`, { token: TOKEN(members[i]!.id), password: OTHER_PASSWORD }),
      );
    }
  });

  test('inviteRedirect', async () => {
    const c = from(env.t, freshIp());
    await exhaust(SIGN_IN_THROTTLE.inviteRedirect.perAddress.max, 200, () =>
      c.get(`${p()}/inviteRedirect?token=${TOKEN('m1')}`),
    );
  });

  test('singleSignOn (here without identity providers: 404 5040 until the limit)', async () => {
    const c = from(env.t, freshIp());
    const refused = await exhaust(SIGN_IN_THROTTLE.singleSignOn.perAddress.max, 404, () =>
      c.post(`${p()}/singleSignOn`, { SAMLResponse: 'PHNhbWw+' }),
    );
    expect(refused.status).toBe(429);
  });
});

describe('per address, IPv6', () => {
  const p = () => env.p;

  test('two addresses of one /64 are one caller (its owner may use any of 2^64); the next /64 is another', async () => {
    const c = from(env.t, freshIp());
    const as = (ip: string) => ({ 'x-forwarded-for': ip });
    const net = '2001:db8:5:1';
    // alternately from two addresses of the /64, written differently
    const addresses = [`${net}::1`, `2001:0DB8:0005:0001:ffff:ffff:ffff:fffe`];
    await exhaust(SIGN_IN_THROTTLE.login.perAddress.max, 401, (i) =>
      c.post(`${p()}/login`, { email: email(), password: OTHER_PASSWORD }, as(addresses[i % 2]!)),
    );
    // a third address of it is refused as well, from another connection
    const third = await from(env.t, freshIp()).post(
      `${p()}/login`,
      { email: email(), password: OTHER_PASSWORD },
      as(`${net}:abcd::42`),
    );
    expect([third.status, third.body.code]).toEqual([429, 5035]);
    // the neighbouring /64 and an IPv4 caller of the same connection are not
    expect(
      (await c.post(`${p()}/login`, { email: email(), password: OTHER_PASSWORD }, as('2001:db8:5:2::1'))).status,
    ).toBe(401);
    expect(
      (await c.post(`${p()}/login`, { email: email(), password: OTHER_PASSWORD }, as('198.51.100.7'))).status,
    ).toBe(401);
  });
});

describe('per account', () => {
  const p = () => env.p;

  test('login: wrong passwords from one address, then even the right one from another is refused', async () => {
    // the other account, tried at the end, is made beside the first
    const [m, other] = await Promise.all([activeMember(env), activeMember(env)]);
    const c = from(env.t, freshIp());
    await exhaust(SIGN_IN_THROTTLE.login.perAccount.max, 401, () =>
      c.post(`${p()}/login`, { email: m.email, password: OTHER_PASSWORD }),
    );
    const right = await from(env.t, freshIp()).post(`${p()}/login`, {
      email: m.email.toUpperCase(),
      password: m.password,
    });
    expect([right.status, right.body.code]).toEqual([429, 5035]);
    // another account from that address is not refused
    expect((await c.post(`${p()}/login`, { email: other.email, password: other.password })).status).toBe(200);
  });

  test('discoverAuthMethod and sendPasswordResetEmail, by email (known or not)', async () => {
    const unknown = email();
    await exhaust(SIGN_IN_THROTTLE.discoverAuthMethod.perAccount.max, 200, () =>
      from(env.t, freshIp()).post(`${p()}/discoverAuthMethod`, { email: unknown }),
    );
    const m = await activeMember(env);
    await exhaust(SIGN_IN_THROTTLE.sendPasswordResetEmail.perAccount.max, 202, () =>
      from(env.t, freshIp()).post(`${p()}/sendPasswordResetEmail`, { email: m.email }),
    );
  });

  test('acceptInvitation and resetPassword, by member', async () => {
    for (const op of ['acceptInvitation', 'resetPassword'] as const) {
      const m = await invitableMember(env);
      await exhaust(SIGN_IN_THROTTLE[op].perAccount.max, 401, () =>
        from(env.t, freshIp()).post(`${p()}/${op}/${m.id}`, { token: TOKEN(m.id), password: OTHER_PASSWORD }),
      );
    }
  });

  test("checkOtp and resendOtp (before Otp's own limits, raised here)", async () => {
    const m = await activeMember(env);
    const c = from(env.t, freshIp());
    const login = await c.post(`${p()}/login`, { email: m.email, password: m.password });
    const code = codeIn(await nthMail(env.sink, m.email, 2));
    const step = bearer(login.body.token);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    await exhaust(SIGN_IN_THROTTLE.checkOtp.perAccount.max, 401, () =>
      c.post(`${p()}/checkOtp/${m.id}`, { otp: wrong }, step),
    );
    await exhaust(SIGN_IN_THROTTLE.resendOtp.perAccount.max, 200, () => c.post(`${p()}/resendOtp/${m.id}`, {}, step));
  });

  test('changePassword', async () => {
    const m = await activeMember(env);
    const session = await signIn(env, m, 2);
    const c = from(env.t, freshIp());
    await exhaust(SIGN_IN_THROTTLE.changePassword.perAccount.max, 400, () =>
      c.post(
        `${p()}/changePassword/${m.id}`,
        { currentPassword: 'not the password', newPassword: OTHER_PASSWORD },
        bearer(session.accessToken),
      ),
    );
  });
});
