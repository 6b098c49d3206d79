/**
 * The Redis Cluster the test run provides (TEST_REDIS_CLUSTER_NODES, set by
 * test/support/global-setup.js: a local 3-master cluster, or the caller's
 * REDIS_CLUSTER_NODES) is a real cluster: keys of different slots live on
 * different masters, a multi-key command across slots is refused with
 * CROSSSLOT, and one within a hash tag is not. A run without a cluster
 * fails here, naming what is missing.
 */
import { Cluster } from 'ioredis';
import { clusterNodes, uniqueProjectId } from '../support/redis';

const seeds = clusterNodes()
  .split(',')
  .filter(Boolean)
  .map((entry) => {
    const i = entry.lastIndexOf(':');
    return { host: entry.slice(0, i), port: Number(entry.slice(i + 1)) };
  });

describe('the run’s Redis Cluster (TEST_REDIS_CLUSTER_NODES)', () => {
  let cluster: Cluster;
  const prefix = uniqueProjectId('rc');

  beforeAll(async () => {
    cluster = new Cluster(seeds, { lazyConnect: true, redisOptions: { connectTimeout: 5000 } });
    await cluster.connect();
  });
  afterAll(async () => {
    await cluster?.quit();
  });

  test('is a cluster whose slots are all served, by three masters or more', async () => {
    const info = String(await cluster.cluster('INFO'));
    expect(info).toMatch(/^cluster_state:ok\r?$/m);
    expect(info).toMatch(/^cluster_slots_assigned:16384\r?$/m);
    expect(cluster.nodes('master').length).toBeGreaterThanOrEqual(3);
  });

  test('SET and GET keys of different slots, served by different masters', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `${prefix}:k${i}`);
    for (const key of keys) await cluster.set(key, `v-${key}`, 'EX', 60);
    for (const key of keys) expect(await cluster.get(key)).toBe(`v-${key}`);

    const slots = await Promise.all(keys.map(async (key) => Number(await cluster.cluster('KEYSLOT', key))));
    expect(new Set(slots).size).toBeGreaterThan(1);
    // which master holds each key, asked of the masters themselves
    const holders = new Set<string>();
    for (const node of cluster.nodes('master')) {
      const held = await Promise.all(keys.map((key) => node.exists(key).catch(() => 0)));
      if (held.some((n) => n === 1)) holders.add(`${node.options.host}:${node.options.port}`);
    }
    expect(holders.size).toBeGreaterThan(1);
    await Promise.all(keys.map((key) => cluster.del(key)));
  });

  test('a multi-key command across slots fails with CROSSSLOT; within one hash tag it succeeds', async () => {
    const a = `${prefix}:a`;
    let b = `${prefix}:b`;
    // a second key in another slot than the first
    for (let i = 0; Number(await cluster.cluster('KEYSLOT', b)) === Number(await cluster.cluster('KEYSLOT', a)); i++)
      b = `${prefix}:b${i}`;
    // ioredis routes a command by its first key: the server of a's slot refuses it
    await expect(cluster.mset(a, '1', b, '2')).rejects.toThrow(/CROSSSLOT/);
    await expect(cluster.del(a, b)).rejects.toThrow(/CROSSSLOT/);
    expect(await cluster.exists(a)).toBe(0);

    const tagged = [`{${prefix}}:x`, `{${prefix}}:y`];
    expect(await cluster.mset(tagged[0], '1', tagged[1], '2')).toBe('OK');
    expect(await cluster.mget(...tagged)).toEqual(['1', '2']);
    expect(await cluster.del(...tagged)).toBe(2);
  });
});

describe("the runtime's cluster client (runtime/redis/connection.ts) with auto-pipelining", () => {
  test('runs many calls at once of a script told its key count per call, on keys of different masters', async () => {
    const { connect, defineVariadicScript } = await import('../../runtime/redis/connection');
    const client = connect({ kind: 'cluster', nodes: seeds }, { enableAutoPipelining: true, lazyConnect: true });
    try {
      await client.connect();
      defineVariadicScript(client, 'incrFirst', "return redis.call('INCR', KEYS[1])");
      const run = (client as unknown as { incrFirst(n: number, ...keys: string[]): Promise<number> }).incrFirst;
      const prefix = uniqueProjectId('ap');
      // in one tick, as a busy process calls it: ioredis would group the calls by their first argument, the key count
      const counts = await Promise.all(Array.from({ length: 200 }, (_, i) => run.call(client, 1, `${prefix}:${i}`)));
      expect(counts).toEqual(Array.from({ length: 200 }, () => 1));
    } finally {
      client.disconnect();
    }
  });
});
