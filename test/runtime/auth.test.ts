import jwt from 'jsonwebtoken';
import { admits, rolesGrant, type RoleDefinition } from '../../runtime/auth/access';
import { ApiKeyStore, hashApiKey } from '../../runtime/auth/auth';
import { startTestRuntime, TEST_API_KEY, TEST_JWT_SECRET, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let p: string;
const key = { 'x-api-key': TEST_API_KEY };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  t = await startTestRuntime();
  p = `/${t.projectId}/CALL/Counter`;
  await t.post(`${p}/init/a1`, {}, key);
});
afterAll(() => t.stop());

describe('pure access rules', () => {
  test('admits', () => {
    expect(admits(['enduser'], { type: 'enduser' })).toBe(true);
    expect(admits(['enduser'], { type: 'member_otp' })).toBe(false);
    expect(admits(['enduser'], { type: 'anonymous' })).toBe(false);
    expect(admits(['public'], { type: 'anonymous' })).toBe(true);
    expect(admits(['enduser'], { type: 'system' })).toBe(true);
    expect(admits(['class'], { type: 'class', classId: 'A' })).toBe(true);
    expect(admits(['class:A'], { type: 'class', classId: 'A' })).toBe(true);
    expect(admits(['class:A'], { type: 'class', classId: 'B' })).toBe(false);
    expect(admits(['enduser'], { type: 'class', classId: 'A' })).toBe(false);
  });

  test('rolesGrant', () => {
    const superRole: RoleDefinition = { id: 'r1', name: 'super', level: 1, permissions: {} };
    const normal: RoleDefinition = { id: 'r2', name: 'ops', level: 10, permissions: { Counter: ['get'] } };
    expect(rolesGrant([superRole], 'Any', 'thing')).toBe(true);
    expect(rolesGrant([{ ...superRole, status: 'inactive' }], 'Any', 'thing')).toBe(false);
    expect(rolesGrant([normal], 'Counter', 'get')).toBe(true);
    expect(rolesGrant([normal], 'Counter', 'increment')).toBe(false);
    expect(rolesGrant([normal], 'Other', 'get')).toBe(false);
    expect(rolesGrant([], 'Counter', 'get')).toBe(false);
  });
});

describe('credentials', () => {
  test('no credentials on a non-public method: 401', async () => {
    const r = await t.get(`${p}/get/a1`);
    expect(r.status).toBe(401);
    expect(r.body.code).toBe(1007);
  });

  test('a wrong API key: 401', async () => {
    const r = await t.get(`${p}/get/a1`, { 'x-api-key': 'nope' });
    expect(r.status).toBe(401);
  });

  test('an enduser token is accepted where enduser is admitted', async () => {
    const r = await t.get(`${p}/get/a1`, bearer(t.token('enduser', 'u1')));
    expect(r.status).toBe(200);
  });

  test('an identity the method does not admit: 403', async () => {
    const r = await t.get(`${p}/list`, key); // list admits program_management_user and enduser only
    expect(r.status).toBe(403);
    expect(r.body.code).toBe(1008);
    const otp = await t.get(`${p}/get/a1`, bearer(t.token('member_otp', 'u1')));
    expect(otp.status).toBe(403);
  });

  test('the JWT algorithm is pinned: none, HS512 and a wrong secret are refused', async () => {
    const claims = { sub: 'u1', identity: 'enduser' };
    const none = jwt.sign(claims, '', { algorithm: 'none' });
    const hs512 = jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS512' });
    const wrong = jwt.sign(claims, 'another-secret-another-secret-another', { algorithm: 'HS256' });
    for (const token of [none, hs512, wrong]) {
      const r = await t.get(`${p}/get/a1`, bearer(token));
      expect(r.status).toBe(401);
    }
    // an HS256 token another service signed with the shared secret (a plain string) is accepted
    const issuedElsewhere = jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS256' });
    expect((await t.get(`${p}/get/a1`, bearer(issuedElsewhere))).status).not.toBe(401);
  });

  test('expired tokens, malformed headers and unknown identities are refused', async () => {
    const expired = jwt.sign(
      { sub: 'u1', identity: 'enduser', exp: Math.floor(Date.now() / 1000) - 10 },
      TEST_JWT_SECRET,
      {
        algorithm: 'HS256',
      },
    );
    const alien = jwt.sign({ sub: 'u1', identity: 'integration_user' }, TEST_JWT_SECRET, { algorithm: 'HS256' });
    expect((await t.get(`${p}/get/a1`, bearer(expired))).status).toBe(401);
    expect((await t.get(`${p}/get/a1`, bearer(alien))).status).toBe(401);
    expect((await t.get(`${p}/get/a1`, { authorization: 'Basic abc' })).status).toBe(401);
  });
});

describe('program management roles', () => {
  const roles: RoleDefinition[] = [
    { id: 'role-super', name: 'super', level: 1, permissions: {} },
    { id: 'role-reader', name: 'reader', level: 10, permissions: { Counter: ['get', 'list'] } },
  ];

  beforeAll(async () => {
    await t.rt.redis.set(t.rt.store.keys.roles, JSON.stringify({ version: 1, roles }));
    t.rt.roleSource.invalidate();
  });

  test('level 1 may call every method', async () => {
    const token = t.token('program_management_user', 'pm1', ['role-super']);
    expect((await t.post(`${p}/increment/a1`, {}, bearer(token))).status).toBe(200);
  });

  test('level 10 only what its permissions list', async () => {
    const token = t.token('program_management_user', 'pm2', ['reader']);
    expect((await t.get(`${p}/get/a1`, bearer(token))).status).toBe(200);
    const denied = await t.post(`${p}/increment/a1`, {}, bearer(token));
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain('Counter.increment');
  });

  test('no roles: 403', async () => {
    const token = t.token('program_management_user', 'pm3', []);
    expect((await t.get(`${p}/get/a1`, bearer(token))).status).toBe(403);
  });

  test('a pluggable role source decides', async () => {
    const calls: string[][] = [];
    t.rt.setRoleSource({
      getRoles: async (names) => {
        calls.push(names);
        return [{ id: 'x', name: 'x', level: 10, permissions: { Counter: ['increment'] } }];
      },
    });
    try {
      const token = t.token('program_management_user', 'pm4', ['x']);
      expect((await t.post(`${p}/increment/a1`, {}, bearer(token))).status).toBe(200);
      expect(calls).toEqual([['x']]);
    } finally {
      t.rt.setRoleSource(t.rt.roleSource);
    }
  });
});

describe('API keys created at run time', () => {
  test('are stored hashed, work, and stop working when revoked', async () => {
    const store = t.rt.apiKeys;
    const { key: plain, record } = await store.create('hr-system');
    const storedFields = await t.rt.redis.hkeys(t.rt.store.keys.apiKeys);
    expect(storedFields).toContain(hashApiKey(plain));
    const raw = JSON.stringify(await t.rt.redis.hgetall(t.rt.store.keys.apiKeys));
    expect(raw).not.toContain(plain);
    expect((await t.get(`${p}/get/a1`, { 'x-api-key': plain })).status).toBe(200);
    expect(await store.revoke(record.id)).toBe(true);
    // another process's cache (5 s) forgets it too; this one forgot at once
    expect((await t.get(`${p}/get/a1`, { 'x-api-key': plain })).status).toBe(401);
    const fresh = new ApiKeyStore(t.rt.redis, t.rt.store.keys.apiKeys, [], 50);
    await waitFor(async () => (await fresh.verify(plain)) === null, { what: 'revocation' });
  });
});
