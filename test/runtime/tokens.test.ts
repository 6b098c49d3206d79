/**
 * Tokens classes issue (ctx.tokens, runtime/auth/sessions.ts) over real Redis
 * and HTTP: what an access token carries and how it is checked (HS256 pinned,
 * issuer), tokens limited to some methods, and refresh tokens: stored hashed,
 * rotated on every exchange, a reused one revoking its whole family, the
 * identity source asked afresh at each exchange, and revokeAll.
 */
import { RefreshKeys } from '../../runtime/auth/refresh-tokens';
import * as path from 'node:path';
import jwt from 'jsonwebtoken';
import {
  EXAMPLE_CLASS_DIR,
  startTestRuntime,
  TEST_API_KEY,
  TEST_JWT_SECRET,
  waitFor,
  type TestRuntime,
} from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const operator = { 'x-api-key': TEST_API_KEY };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const uid = (p: string) => `${p}-${uniqueProjectId('')}`;
const ISSUER = 'membership-test';

interface Issued {
  token: string;
  expiresAt: string;
  refreshToken?: string;
}

let t: TestRuntime;
const call = (method: string, body: unknown, headers: Record<string, string> = {}, instance = '') =>
  t.post(`/${t.projectId}/CALL/Staff/${method}${instance ? `/${instance}` : ''}`, body, headers);
const create = async (id: string, user: object) => expect((await call('create', user, operator, id)).status).toBe(200);
const update = async (id: string, patch: object) =>
  expect((await call('update', patch, operator, id)).status).toBe(200);
const signIn = async (sub: string, extra: object = {}): Promise<Issued> => {
  const r = await call('signIn', { sub, ...extra });
  expect(r.status).toBe(200);
  return r.body as Issued;
};
const refresh = (refreshToken: unknown) => t.post(`/${t.projectId}/auth/refresh`, { refreshToken });
/** a program-management call the user's role (`reader`) allows */
const guarded = (token: string) => t.get(`/${t.projectId}/CALL/Staff/guarded`, bearer(token));

beforeAll(async () => {
  t = await startTestRuntime({
    env: {
      CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'identity-fixtures')}`,
      JWT_ISSUER: ISSUER,
      ACCESS_TOKEN_TTL_SECONDS: '600',
      REFRESH_TOKEN_TTL_SECONDS: '3600',
      // answers are cached for an hour: only an exchange (which asks afresh) sees a change
      IDENTITY_CACHE_SECONDS: '3600',
    },
  });
  await t.rt.ports.roles.publish({
    version: 1,
    hash: 'test',
    publishedAt: new Date().toISOString(),
    roles: [{ id: 'reader', name: 'reader', level: 10, permissions: { Staff: ['guarded'] }, status: 'active' }],
  });
});
afterAll(() => t.stop());

describe('access tokens', () => {
  test('carry iat, exp, jti and iss, signed HS256, for ACCESS_TOKEN_TTL_SECONDS unless the class asks for less', async () => {
    const id = uid('u');
    const issued = await signIn(id);
    const { header, payload } = jwt.decode(issued.token, { complete: true }) as {
      header: jwt.JwtHeader;
      payload: jwt.JwtPayload;
    };
    expect(header.alg).toBe('HS256');
    expect(payload).toMatchObject({ sub: id, identity: 'program_management_user', iss: ISSUER });
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(issued.expiresAt).toBe(new Date(payload.exp! * 1000).toISOString());
    expect(issued.refreshToken).toBeUndefined();
    // no roles or developer flag: those come from the identity source
    expect(payload).not.toHaveProperty('roles');
    expect(payload).not.toHaveProperty('developer');

    const short = jwt.decode((await signIn(id, { ttlSeconds: 30 })).token) as jwt.JwtPayload;
    expect(short.exp! - short.iat!).toBe(30);
    expect(short.jti).not.toBe(payload.jti);
  });

  test('the algorithm and issuer are pinned: another algorithm, none, another issuer or no issuer is 401', async () => {
    const id = uid('u');
    await create(id, { active: true, roles: ['reader'] });
    const claims = { sub: id, identity: 'program_management_user' };
    expect((await guarded(jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS256', issuer: ISSUER }))).status).toBe(200);
    const refused = [
      jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS512', issuer: ISSUER }),
      jwt.sign(claims, null, { algorithm: 'none', issuer: ISSUER }),
      jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS256', issuer: 'someone-else' }),
      jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS256' }),
      jwt.sign(claims, 'another-secret-another-secret-another-secret', { algorithm: 'HS256', issuer: ISSUER }),
    ];
    for (const token of refused) {
      const r = await guarded(token);
      expect([r.status, r.body.code]).toEqual([401, 1007]);
    }
  });

  test('a token limited to some methods calls those and is refused (403, 1027) any other', async () => {
    const issued = await call('issueAny', {
      sub: 'm-1',
      type: 'member_otp',
      methods: ['Staff.checkCode', 'Staff.resendCode'],
    });
    expect(issued.status).toBe(200);
    const otp = bearer(issued.body.token);
    const check = await call('checkCode', {}, otp);
    expect([check.status, check.body]).toEqual([
      200,
      { userId: 'm-1', methods: ['Staff.checkCode', 'Staff.resendCode'] },
    ]);
    expect((await call('resendCode', {}, otp)).status).toBe(200);
    const other = await call('profile', {}, otp);
    expect([other.status, other.body.code]).toEqual([403, 1027]);
    expect(other.body.message).toMatch(/only good for Staff\.checkCode, Staff\.resendCode, not Staff\.profile/);
    // the same type without the limit reaches the method
    const unlimited = await call('issueAny', { sub: 'm-1', type: 'member_otp' });
    expect((await call('profile', {}, bearer(unlimited.body.token))).status).toBe(200);
  });

  test('a methods claim that is not a list of Class.method names is 401, not a wider token', async () => {
    for (const methods of ['Staff.profile', [], [42], ['profile']]) {
      const token = jwt.sign({ sub: 'm-2', identity: 'member_otp', methods }, TEST_JWT_SECRET, {
        algorithm: 'HS256',
        issuer: ISSUER,
      });
      const r = await call('profile', {}, bearer(token));
      expect([r.status, r.body.code]).toEqual([401, 1007]);
    }
  });

  test('a class asking for a bad token gets an error (its mistake: 500); a READ cannot issue', async () => {
    for (const body of [
      { sub: 'x', type: 'integration_user' },
      { sub: 'has space', type: 'enduser' },
      { sub: 'x', type: 'enduser', methods: ['Staff.noSuchMethod'] },
      { sub: 'x', type: 'enduser', ttlSeconds: 86_401 },
    ]) {
      expect((await call('issueAny', body)).status).toBe(500);
    }
    await create('reader-1', { active: true, roles: [] });
    const r = await t.get(`/${t.projectId}/CALL/Staff/issueFromRead/reader-1`, operator);
    expect([r.status, r.body.code]).toEqual([500, 1018]);
  });
});

describe('refresh tokens', () => {
  test('an exchange answers a new access token and a new refresh token; the old one is spent', async () => {
    const id = uid('u');
    await create(id, { active: true, roles: ['reader'] });
    const first = await signIn(id, { refresh: true });
    expect(first.refreshToken).toMatch(/^rt_[A-Za-z0-9_-]{64}$/);
    const r = await refresh(first.refreshToken);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['expiresAt', 'refreshToken', 'token']);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body.refreshToken).not.toBe(first.refreshToken);
    expect(jwt.decode(r.body.token)).toMatchObject({ sub: id, identity: 'program_management_user', iss: ISSUER });
    expect((await guarded(r.body.token)).status).toBe(200);
    // and the new one can be exchanged in its turn
    expect((await refresh(r.body.refreshToken)).status).toBe(200);
  });

  test('reusing a spent refresh token is 401 and revokes its whole family', async () => {
    const id = uid('u');
    await create(id, { active: true, roles: ['reader'] });
    const first = await signIn(id, { refresh: true });
    const second = (await refresh(first.refreshToken)).body as Issued;
    const other = await signIn(id, { refresh: true }); // another sign-in: another family

    const reused = await refresh(first.refreshToken);
    expect([reused.status, reused.body.code]).toEqual([401, 1007]);
    expect(reused.body.message).toMatch(/used before/);
    // the legitimate holder's current token went with the family
    expect((await refresh(second.refreshToken)).status).toBe(401);
    // the other session is untouched
    expect((await refresh(other.refreshToken)).status).toBe(200);
  });

  test('concurrent exchanges of one refresh token: one succeeds, and the family is revoked', async () => {
    const id = uid('u');
    await create(id, { active: true, roles: [] });
    const { refreshToken } = await signIn(id, { refresh: true });
    const answers = await Promise.all(Array.from({ length: 5 }, () => refresh(refreshToken)));
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((a) => a.status === 401)).toHaveLength(4);
    expect((await refresh(won[0]!.body.refreshToken)).status).toBe(401);
  });

  test('kept in Redis only as their SHA-256, expiring after REFRESH_TOKEN_TTL_SECONDS', async () => {
    const id = uid('u');
    const { refreshToken } = await signIn(id, { refresh: true });
    const key = new RefreshKeys(`rt:${t.projectId}`).tokenKeyOf(refreshToken!)!;
    const record = JSON.parse((await t.rt.redis.get(key))!);
    expect(record).toMatchObject({ sub: id, type: 'program_management_user' });
    expect(JSON.stringify(record)).not.toContain(refreshToken!.slice(3));
    const ttl = await t.rt.redis.pttl(key);
    expect(ttl).toBeGreaterThan(3_500_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);
    const keys = await t.rt.redis.keys(`rt:*${t.projectId}*`);
    expect(keys.some((k) => k.includes(refreshToken!) || k.includes(refreshToken!.slice(3)))).toBe(false);
  });

  test('an exchange asks the identity source afresh: an inactive user is 401 (its family revoked) though access tokens are cached', async () => {
    const id = uid('u');
    await create(id, { active: true, roles: ['reader'] });
    const issued = await signIn(id, { refresh: true });
    expect((await guarded(issued.token)).status).toBe(200);
    await update(id, { active: false });
    // the cached answer still admits the access token (IDENTITY_CACHE_SECONDS=3600 here)
    expect((await guarded(issued.token)).status).toBe(200);
    const r = await refresh(issued.refreshToken);
    expect([r.status, r.body.message]).toEqual([401, 'This user is not active']);
    // the fresh answer replaced the cached one in this process
    expect((await guarded(issued.token)).status).toBe(401);
    await update(id, { active: true });
    expect((await refresh(issued.refreshToken)).status).toBe(401);
  });

  test("a refresh token issued before the user's validAfter is refused", async () => {
    const id = uid('u');
    await create(id, { active: true, roles: [] });
    const old = await signIn(id, { refresh: true });
    const record = JSON.parse(
      (await t.rt.redis.get(new RefreshKeys(`rt:${t.projectId}`).tokenKeyOf(old.refreshToken!)!))!,
    );
    const validAfter = await waitFor(() => Date.now() > record.createdMs && new Date().toISOString(), {
      what: 'the next millisecond',
    });
    await update(id, { validAfter });
    const fresh = await signIn(id, { refresh: true });
    expect((await refresh(old.refreshToken)).status).toBe(401);
    expect((await refresh(fresh.refreshToken)).status).toBe(200);
  });

  test('revokeAll revokes every refresh token of the subject and of no one else', async () => {
    const [a, b] = [uid('a'), uid('b')];
    await create(a, { active: true, roles: [] });
    await create(b, { active: true, roles: [] });
    const a1 = await signIn(a, { refresh: true });
    const a2 = (await refresh((await signIn(a, { refresh: true })).refreshToken)).body as Issued;
    const b1 = await signIn(b, { refresh: true });
    expect((await call('signOutEverywhere', {}, operator, a)).status).toBe(200);
    expect((await refresh(a1.refreshToken)).status).toBe(401);
    expect((await refresh(a2.refreshToken)).status).toBe(401);
    expect((await refresh(b1.refreshToken)).status).toBe(200);
  });

  test('a token limited to some methods is refreshed with the same limit and lifetime', async () => {
    const issued = await call('issueAny', {
      sub: 'm-3',
      type: 'member_otp',
      methods: ['Staff.checkCode'],
      ttlSeconds: 120,
      refresh: true,
    });
    const r = await refresh(issued.body.refreshToken);
    expect(r.status).toBe(200);
    const payload = jwt.decode(r.body.token) as jwt.JwtPayload;
    expect(payload).toMatchObject({ sub: 'm-3', identity: 'member_otp', methods: ['Staff.checkCode'] });
    expect(payload.exp! - payload.iat!).toBe(120);
    expect((await call('profile', {}, bearer(r.body.token))).status).toBe(403);
  });

  test('a body without a refresh token is 400 naming the field; an unknown one 401; another project 404', async () => {
    const missing = await t.post(`/${t.projectId}/auth/refresh`, {});
    expect([missing.status, missing.body.code, missing.body.details]).toEqual([
      400,
      1002,
      { errors: [{ field: 'refreshToken', reason: 'is required' }] },
    ]);
    const wrong = await refresh(42);
    expect([wrong.status, wrong.body.details.errors[0].field]).toEqual([400, 'refreshToken']);
    const unknown = await refresh('rt_not-a-token');
    expect([unknown.status, unknown.body.code]).toEqual([401, 1007]);
    expect((await t.post('/other-project/auth/refresh', { refreshToken: 'x' })).status).toBe(404);
  });
});
