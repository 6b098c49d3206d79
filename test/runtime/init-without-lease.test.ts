/**
 * INIT with `lease: false`: the instance is created at commit time, only if
 * it does not exist and nobody holds its lease.
 */
import * as path from 'node:path';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let q: string;
const key = { 'x-api-key': TEST_API_KEY };

beforeAll(async () => {
  t = await startTestRuntime({ env: { CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'fixtures/Tally')}` } });
  q = `/${t.projectId}/CALL/Tally`;
});
afterAll(() => t.stop());

async function count(id: string): Promise<{ count: number; version: number }> {
  return (await t.get(`${q}/get/${id}`, key)).body;
}

describe('INIT without a lease (lease: false)', () => {
  test('creates the instance at commit, with its lookup keys, and leaves no lease behind', async () => {
    const r = await t.post(`${q}/create/lf1`, { start: 3, slot: 'lf-slot-1' }, key);
    expect(r.status).toBe(200);
    expect(await count('lf1')).toMatchObject({ count: 3, version: 1 });
    expect((await t.get(`${q}/get/slot!lf-slot-1`, key)).body).toMatchObject({ id: 'lf1' });
    expect(await t.rt.redis.exists(t.rt.store.keys.lease('Tally', 'lf1'))).toBe(0);
  });

  test('an existing id answers 409 INSTANCE_EXISTS and is left as it was', async () => {
    expect((await t.post(`${q}/create/lf2`, { start: 5 }, key)).status).toBe(200);
    const r = await t.post(`${q}/create/lf2`, { start: 9 }, key);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe(1009);
    expect(await count('lf2')).toMatchObject({ count: 5, version: 1 });
  });

  test('two racing creations of one id: exactly one wins, the other gets 409', async () => {
    const [a, b] = await Promise.all([
      t.post(`${q}/create/lf3`, { start: 1, delayMs: 50 }, key),
      t.post(`${q}/create/lf3`, { start: 2, delayMs: 50 }, key),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const winner = a.status === 200 ? 1 : 2;
    expect(await count('lf3')).toMatchObject({ count: winner, version: 1 });
  });

  test('a creation while another writer holds the lease (an upsert creating it) is refused', async () => {
    const token = 'held-by-someone-else';
    await t.rt.redis.set(t.rt.store.keys.lease('Tally', 'lf4'), token, 'PX', 10_000);
    const r = await t.post(`${q}/create/lf4`, { start: 1 }, key);
    expect(r.status).toBe(409);
    expect(await t.rt.redis.exists(t.rt.store.keys.instance('Tally', 'lf4'))).toBe(0);
    expect(await t.rt.redis.get(t.rt.store.keys.lease('Tally', 'lf4'))).toBe(token);
    await t.rt.redis.del(t.rt.store.keys.lease('Tally', 'lf4'));
  });
});
