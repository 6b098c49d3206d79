/**
 * Lookup keys on a Redis Cluster live in their own slots, apart from the
 * instances that claim them: a claim reserves the key (owner, nonce,
 * deadline), the instance commits, then the reservation is confirmed. These
 * tests run on the suite's local cluster.
 */
import { Redis } from 'ioredis';
import { connect, type RedisConnection } from '../../runtime/redis/connection';
import { lookupOwner } from '../../runtime/actor/state-store';
import { startTestRuntime, TEST_API_KEY, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { clusterNodes, uniqueProjectId } from '../support/redis';

const KEY = { 'x-api-key': TEST_API_KEY };
const clusterEnv = () => ({ REDIS_CLUSTER_NODES: clusterNodes(), REDIS_BUCKETS: '8' });

async function call(base: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...KEY, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe('two instances claiming one lookup through two processes on a cluster', () => {
  const projectId = uniqueProjectId('lr');
  let a: RuntimeProcess;
  let b: RuntimeProcess;

  beforeAll(async () => {
    [a, b] = await Promise.all([spawnRuntime(projectId, clusterEnv()), spawnRuntime(projectId, clusterEnv())]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('100 races: exactly one wins each, the key names the winner, and the loser holds nothing', async () => {
    const p = `/${projectId}/CALL/Counter`;
    const rounds = 100;
    for (let i = 0; i < rounds; i += 20) {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, j) => [
          call(a.base, `${p}/init/x${i + j}`, { start: 0 }),
          call(b.base, `${p}/init/y${i + j}`, { start: 0 }),
        ]).flat(),
      );
      expect(made.map((r) => r.status)).toEqual(made.map(() => 200));
    }
    let aWins = 0;
    for (let i = 0; i < rounds; i++) {
      const slot = `mail${i}@example.com`;
      const [ra, rb] = await Promise.all([
        call(a.base, `${p}/setSlot/x${i}`, { slot }),
        call(b.base, `${p}/setSlot/y${i}`, { slot }),
      ]);
      const statuses = [ra.status, rb.status].sort();
      expect({ round: i, statuses }).toEqual({ round: i, statuses: [200, 409] });
      const loser = ra.status === 409 ? ra : rb;
      expect(loser.body.code).toBe(1013);
      const winner = ra.status === 200 ? `x${i}` : `y${i}`;
      const other = ra.status === 200 ? `y${i}` : `x${i}`;
      if (winner.startsWith('x')) aWins++;
      // by lookup, through either process: the winner
      const found = await call(b.base, `${p}/get/slot!${encodeURIComponent(slot)}`);
      expect({ round: i, status: found.status, id: found.body.id }).toEqual({ round: i, status: 200, id: winner });
      expect((await call(a.base, `${p}/get/${winner}`)).body.slot).toBe(slot);
      expect((await call(a.base, `${p}/get/${other}`)).body.slot).toBeNull();
    }
    // both processes won races: the claims really raced across processes
    expect(aWins).toBeGreaterThan(0);
    expect(aWins).toBeLessThan(rounds);
  }, 240_000);
});

describe('lookup reservations', () => {
  let t: TestRuntime;
  let redis: RedisConnection;
  const p = () => `/${t.projectId}/CALL/Counter`;
  const lookupKey = (slot: string) => t.rt.store.keys.lookup('Counter', 'slot', slot);

  beforeAll(async () => {
    t = await startTestRuntime({ env: clusterEnv() });
    redis = connect(
      {
        kind: 'cluster',
        nodes: clusterNodes()
          .split(',')
          .map((n) => ({ host: n.split(':')[0]!, port: Number(n.split(':')[1]) })),
      },
      {},
    );
  });
  afterAll(async () => {
    redis?.disconnect();
    await t?.stop();
  });

  test('the runtime talks to a cluster', () => {
    expect((t.rt.redis as unknown as { isCluster?: boolean }).isCluster).toBe(true);
    expect(t.rt.redis).not.toBeInstanceOf(Redis);
  });

  test('a confirmed key names its owner; removing the lookup deletes it', async () => {
    expect((await t.post(`${p()}/init/c1`, { slot: 'one' }, KEY)).status).toBe(200);
    const value = (await redis.get(lookupKey('one')))!;
    expect(lookupOwner(value)).toBe('c1');
    // confirmed: owner and nonce, no deadline
    expect(value.split(' ')).toHaveLength(2);
    expect((await t.post(`${p()}/setSlot/c1`, {}, KEY)).status).toBe(200);
    expect(await redis.get(lookupKey('one'))).toBeNull();
    expect((await t.get(`${p()}/get/slot!one`, KEY)).status).toBe(500);
  });

  test("another instance's reservation in flight is respected: the claim is refused", async () => {
    expect((await t.post(`${p()}/init/c2`, {}, KEY)).status).toBe(200);
    await redis.set(lookupKey('busy'), `ghost n1 ${Date.now() + 60_000}`);
    const r = await t.post(`${p()}/setSlot/c2`, { slot: 'busy' }, KEY);
    expect(r.status).toBe(409);
    expect(r.body.code).toBe(1013);
    // a reader does not follow a reservation whose owner does not hold the lookup
    expect((await t.get(`${p()}/get/slot!busy`, KEY)).status).toBe(500);
  });

  test('a reservation whose commit never happened lapses: after its deadline another instance takes the key', async () => {
    expect((await t.post(`${p()}/init/c3`, {}, KEY)).status).toBe(200);
    await redis.set(lookupKey('lapsed'), `ghost n1 ${Date.now() - 1000}`);
    expect((await t.post(`${p()}/setSlot/c3`, { slot: 'lapsed' }, KEY)).status).toBe(200);
    expect(lookupOwner((await redis.get(lookupKey('lapsed')))!)).toBe('c3');
    expect((await t.get(`${p()}/get/slot!lapsed`, KEY)).body.id).toBe('c3');
  });

  test('a lapsed reservation whose owner did commit (its confirmation was lost) still belongs to the owner', async () => {
    expect((await t.post(`${p()}/init/c4`, { slot: 'kept' }, KEY)).status).toBe(200);
    expect((await t.post(`${p()}/init/c5`, {}, KEY)).status).toBe(200);
    // as if c4's process died between its commit and the confirmation
    await redis.set(lookupKey('kept'), `c4 n1 ${Date.now() - 1000}`);
    expect((await t.get(`${p()}/get/slot!kept`, KEY)).body.id).toBe('c4');
    expect((await t.post(`${p()}/setSlot/c5`, { slot: 'kept' }, KEY)).status).toBe(409);
  });

  test('a key left naming an owner that no longer holds the lookup is free, and reads by it find nothing', async () => {
    expect((await t.post(`${p()}/init/c6`, {}, KEY)).status).toBe(200);
    expect((await t.post(`${p()}/init/c7`, {}, KEY)).status).toBe(200);
    // as if a commit removing c6's lookup ran and its process died before deleting the key
    await redis.set(lookupKey('left'), 'c6 n1');
    expect((await t.get(`${p()}/get/slot!left`, KEY)).status).toBe(500);
    expect((await t.post(`${p()}/setSlot/c7`, { slot: 'left' }, KEY)).status).toBe(200);
    expect((await t.get(`${p()}/get/slot!left`, KEY)).body.id).toBe('c7');
  });
});
