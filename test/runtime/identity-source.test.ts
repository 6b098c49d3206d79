/**
 * Identity sources (runtime/auth/identities.ts) over real Redis and HTTP: a
 * session token of a source's type takes its roles, tenant and developer flag
 * from the stored user (fixture class Staff), not from the token; an unknown,
 * inactive or re-credentialed user is refused with 401 within
 * IDENTITY_CACHE_SECONDS; development tokens keep their own claims, and only
 * while ALLOW_DEV_TOKENS is on.
 */
import * as path from 'node:path';
import jwt from 'jsonwebtoken';
import { ActorClass, Read, Write, type Ctx, type ReadCtx } from '../../runtime';
import { allowDevTokens, loadConfig } from '../../runtime/config';
import { TokenService } from '../../runtime/auth/auth';
import {
  EXAMPLE_CLASS_DIR,
  startTestRuntime,
  TEST_API_KEY,
  TEST_JWT_SECRET,
  waitFor,
  type TestRuntime,
} from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const FIXTURES = `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'identity-fixtures')}`;
const operator = { 'x-api-key': TEST_API_KEY };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const uid = (p: string) => `${p}-${uniqueProjectId('')}`;

async function start(env: Record<string, string> = {}): Promise<TestRuntime> {
  const t = await startTestRuntime({ env: { CLASS_DIRS: FIXTURES, ...env } });
  // roles as RoleManager would publish them: `reader` grants Staff.guarded, `other` grants nothing here
  await t.rt.ports.roles.publish({
    version: 1,
    hash: 'test',
    publishedAt: new Date().toISOString(),
    roles: [
      { id: 'reader', name: 'reader', level: 10, permissions: { Staff: ['guarded'] }, status: 'active' },
      { id: 'other', name: 'other', level: 10, permissions: { Counter: ['get'] }, status: 'active' },
    ],
  });
  return t;
}

const staff = (t: TestRuntime) => ({
  create: (id: string, user: object) => t.post(`/${t.projectId}/CALL/Staff/create/${id}`, user, operator),
  update: (id: string, patch: object) => t.post(`/${t.projectId}/CALL/Staff/update/${id}`, patch, operator),
  signIn: async (sub: string, extra: object = {}) => {
    const r = await t.post(`/${t.projectId}/CALL/Staff/signIn`, { sub, ...extra });
    expect(r.status).toBe(200);
    return r.body as { token: string; expiresAt: string; refreshToken?: string };
  },
  whoAmI: (token: string) => t.get(`/${t.projectId}/CALL/Staff/whoAmI/${'any'}`, bearer(token)),
  guarded: (token: string) => t.get(`/${t.projectId}/CALL/Staff/guarded`, bearer(token)),
});

describe('a session token of a source type (IDENTITY_CACHE_SECONDS=0)', () => {
  let t: TestRuntime;
  let s: ReturnType<typeof staff>;
  beforeAll(async () => {
    t = await start({ IDENTITY_CACHE_SECONDS: '0' });
    s = staff(t);
    // whoAmI is a READ on an instance: one that exists
    expect((await s.create('any', { active: true, roles: [] })).status).toBe(200);
  });
  afterAll(() => t.stop());

  test('takes roles, tenant, developer flag and name from the stored user; a role removed there is refused', async () => {
    const id = uid('u');
    await s.create(id, { active: true, roles: ['reader'], tenant: 'c-1', developer: true, name: 'Ann' });
    const { token } = await s.signIn(id);
    const me = await s.whoAmI(token);
    expect([me.status, me.body]).toEqual([
      200,
      {
        type: 'program_management_user',
        userId: id,
        roles: ['reader'],
        tenant: 'c-1',
        developer: true,
        name: 'Ann',
        methods: null,
      },
    ]);
    expect((await s.guarded(token)).status).toBe(200);

    await s.update(id, { roles: ['other'], tenant: null, developer: false });
    const refused = await s.guarded(token);
    expect([refused.status, refused.body.code]).toEqual([403, 1008]);
    expect((await s.whoAmI(token)).body).toMatchObject({ roles: ['other'], tenant: null, developer: false });
  });

  test("the token's own role, tenant and developer claims grant nothing", async () => {
    const id = uid('u');
    await s.create(id, { active: true, roles: [] });
    // a session token (no dev claim) carrying claims only a source or a development token may give
    const forged = jwt.sign(
      { sub: id, identity: 'program_management_user', roles: ['reader'], developer: true, name: 'Root' },
      TEST_JWT_SECRET,
      { algorithm: 'HS256', expiresIn: 60 },
    );
    expect((await s.guarded(forged)).status).toBe(403);
    expect((await s.whoAmI(forged)).body).toMatchObject({ roles: [], developer: false, name: null });
  });

  test('a user that does not exist is 401', async () => {
    const { token } = await s.signIn(uid('ghost'));
    const r = await s.whoAmI(token);
    expect([r.status, r.body.code]).toEqual([401, 1007]);
  });

  test('an inactive user is 401, and admitted again once active', async () => {
    const id = uid('u');
    await s.create(id, { active: true, roles: ['reader'] });
    const { token } = await s.signIn(id);
    expect((await s.guarded(token)).status).toBe(200);
    await s.update(id, { active: false });
    const r = await s.guarded(token);
    expect([r.status, r.body.code, r.body.message]).toEqual([401, 1007, 'This user is not active']);
    await s.update(id, { active: true });
    expect((await s.guarded(token)).status).toBe(200);
  });

  test('validAfter refuses tokens issued before it and admits those issued after', async () => {
    const id = uid('u');
    await s.create(id, { active: true, roles: ['reader'] });
    const before = await s.signIn(id);
    // a password change: the class sets validAfter (here: a millisecond after the old token, which
    // could have been issued within the same one), then issues the new session
    const issuedMs = (jwt.decode(before.token) as { iatMs: number }).iatMs;
    const validAfter = await waitFor(() => Date.now() > issuedMs && new Date().toISOString(), {
      what: 'the next millisecond',
    });
    expect((await s.update(id, { validAfter })).status).toBe(200);
    const after = await s.signIn(id);
    const old = await s.guarded(before.token);
    expect([old.status, old.body.code]).toEqual([401, 1007]);
    expect(old.body.message).toMatch(/issued before/);
    expect((await s.guarded(after.token)).status).toBe(200);
  });

  test('a source answering something malformed is a 500 naming it, never an admission', async () => {
    const id = uid('u');
    await s.create(id, { active: 'yes', roles: ['reader'] });
    const { token } = await s.signIn(id);
    const r = await s.guarded(token);
    expect(r.status).toBe(500);
    expect(r.body.message).toMatch(/Identity source Staff\.identity answered no boolean `active`/);
  });

  test("a type without a source keeps the token's subject and tenant, with no roles", async () => {
    const r = await t.post(`/${t.projectId}/CALL/Staff/issueAny`, { sub: 'm-1', type: 'enduser', tenant: 'c-9' });
    const me = await t.get(`/${t.projectId}/CALL/Staff/profile`, bearer(r.body.token));
    expect([me.status, me.body]).toEqual([200, { userId: 'm-1', type: 'enduser', tenant: 'c-9' }]);
    expect(jwt.decode(r.body.token)).not.toHaveProperty('roles');
  });
});

describe('the cache (IDENTITY_CACHE_SECONDS)', () => {
  test('an answer is kept for the configured time: a deactivation is seen once it passes', async () => {
    const t = await start({ IDENTITY_CACHE_SECONDS: '1' });
    try {
      const s = staff(t);
      const id = uid('u');
      await s.create(id, { active: true, roles: ['reader'] });
      const { token } = await s.signIn(id);
      expect((await s.guarded(token)).status).toBe(200);
      await s.update(id, { active: false });
      await waitFor(async () => (await s.guarded(token)).status === 401, {
        timeoutMs: 5000,
        what: 'the deactivation to be seen',
      });
    } finally {
      await t.stop();
    }
  });

  test("within the time the cached answer holds; revoking the user's sessions forgets it in this process", async () => {
    const t = await start({ IDENTITY_CACHE_SECONDS: '3600' });
    try {
      const s = staff(t);
      const id = uid('u');
      await s.create(id, { active: true, roles: ['reader'] });
      const { token } = await s.signIn(id);
      expect((await s.guarded(token)).status).toBe(200);
      await s.update(id, { active: false });
      // cached: the source is not asked again for an hour
      expect((await s.guarded(token)).status).toBe(200);
      expect((await t.post(`/${t.projectId}/CALL/Staff/signOutEverywhere/${id}`, {}, operator)).status).toBe(200);
      expect((await s.guarded(token)).status).toBe(401);
    } finally {
      await t.stop();
    }
  });
});

describe('development tokens', () => {
  test('allowed (not production): their roles, tenant and developer claims are honoured without asking the source', async () => {
    const t = await start({ IDENTITY_CACHE_SECONDS: '0' });
    try {
      // no stored user of that id: a development token does not need one
      const token = t.rt.tokens.sign({
        sub: uid('dev'),
        identity: 'program_management_user',
        roles: ['reader'],
        tenant: 'c-2',
        developer: true,
      });
      expect(jwt.decode(token)).toMatchObject({ dev: true });
      expect((await staff(t).guarded(token)).status).toBe(200);
      expect((await staff(t).create('any', { active: true, roles: [] })).status).toBe(200);
      expect((await staff(t).whoAmI(token)).body).toMatchObject({ roles: ['reader'], tenant: 'c-2', developer: true });
    } finally {
      await t.stop();
    }
  });

  test('refused (401) when ALLOW_DEV_TOKENS is false, and the runtime will not mint them; session tokens still work', async () => {
    const t = await start({ IDENTITY_CACHE_SECONDS: '0', ALLOW_DEV_TOKENS: 'false' });
    try {
      const devToken = new TokenService(TEST_JWT_SECRET).sign({
        sub: 'dev',
        identity: 'program_management_user',
        roles: ['reader'],
      });
      const r = await staff(t).guarded(devToken);
      expect([r.status, r.body.code]).toEqual([401, 1007]);
      expect(r.body.message).toMatch(/ALLOW_DEV_TOKENS/);
      expect(() => t.rt.tokens.sign({ sub: 'dev', identity: 'program_management_user' })).toThrow(/ALLOW_DEV_TOKENS/);
      const id = uid('u');
      await staff(t).create(id, { active: true, roles: ['reader'] });
      expect((await staff(t).guarded((await staff(t).signIn(id)).token)).status).toBe(200);
    } finally {
      await t.stop();
    }
  });

  test('ALLOW_DEV_TOKENS defaults to off in production and on elsewhere; a wrong value stops the start', () => {
    expect(allowDevTokens({ NODE_ENV: 'production' })).toBe(false);
    expect(allowDevTokens({ NODE_ENV: 'production', ALLOW_DEV_TOKENS: 'true' })).toBe(true);
    expect(allowDevTokens({ NODE_ENV: 'test' })).toBe(true);
    expect(allowDevTokens({})).toBe(true);
    expect(allowDevTokens({ ALLOW_DEV_TOKENS: 'false' })).toBe(false);
    expect(() => allowDevTokens({ ALLOW_DEV_TOKENS: 'maybe' })).toThrow(/ALLOW_DEV_TOKENS must be true or false/);
    expect(loadConfig({ IDENTITY_CACHE_SECONDS: '0' }).identityCacheSeconds).toBe(0);
    expect(loadConfig({}).identityCacheSeconds).toBe(30);
    expect(() => loadConfig({ IDENTITY_CACHE_SECONDS: '-1' })).toThrow(/IDENTITY_CACHE_SECONDS/);
  });
});

describe('declaring a source', () => {
  test('its method must exist and be a READ or INTERNAL', () => {
    expect(() => {
      @ActorClass({ id: 'NoSuch', identitySource: { tokenType: 'enduser', method: 'missing' } })
      class NoSuch {
        @Read({ access: ['enduser'], schema: false })
        get(_ctx: ReadCtx) {
          return {};
        }
      }
      return NoSuch;
    }).toThrow(/identitySource names no method/);
    expect(() => {
      @ActorClass({ id: 'Writes', identitySource: { tokenType: 'enduser', method: 'who' } })
      class Writes {
        @Write({ access: ['enduser'], schema: false })
        who(_ctx: Ctx) {
          return {};
        }
      }
      return Writes;
    }).toThrow(/must be a READ or INTERNAL, not WRITE/);
  });

  test('two classes cannot be the source of one token type', async () => {
    await expect(
      startTestRuntime({ env: { CLASS_DIRS: `${FIXTURES},${path.join(__dirname, 'identity-fixtures-duplicate')}` } }),
    ).rejects.toThrow(/Staff2?: identitySource: 'program_management_user' already comes from Staff2?$/);
  });
});
