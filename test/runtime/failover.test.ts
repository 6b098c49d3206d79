/**
 * No acknowledged write lost in a failover: on a Redis Cluster of 3 masters
 * with a replica each, every commit is acknowledged only after WAIT saw a
 * replica take it (REDIS_WAIT_REPLICAS, on by default when the masters have
 * replicas). Writes run continuously while a master is SIGKILLed; its replica
 * takes its slots. A control run without WAIT loses writes in the same
 * failover, so the first test's 0 is a finding, not an accident of timing. Each write appends a tag of its own to its ledger, so a
 * lost write is a missing tag and a doubled write a repeated one.
 */
import * as path from 'node:path';
import { startRedisCluster, command, parseClusterNodes, type LocalRedisCluster } from '../support/redis-cluster';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { uniqueProjectId } from '../support/redis';

const CLASS_DIRS = `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'fixtures/Ledger')}`;
const KEY = { 'x-api-key': TEST_API_KEY };
const LEDGERS = 12;
/** MB written to the failing master while its replica is stopped: past the loopback sockets' buffers */
const FILLER_MB = 48;

interface Tally {
  acked: Set<string>;
  /** sent, answered otherwise (an error, 503, no answer): applied or not */
  uncertain: Set<string>;
}

/**
 * One failover under continuous writes: the replica of the master holding
 * ledger L0 is stopped (SIGSTOP) and the master given more to replicate than
 * the sockets hold, so it falls behind; writes go on, the master
 * is SIGKILLed and the replica resumed, which then takes over the slots with
 * only what it had received. With `recover`, the killed node comes back as a
 * replica, and writes go on until the failed-over slots acknowledge again. Returns what
 * the ledgers hold against what was acknowledged.
 */
async function failover(
  waitReplicas: 'auto' | '0',
  recover: boolean,
): Promise<{ lost: number; doubled: number; unknown: number; acked: number; waitReplicas: number }> {
  const cluster: LocalRedisCluster = await startRedisCluster({ masters: 3, replicasPerMaster: 1, nodeTimeoutMs: 1000 });
  let t: TestRuntime | undefined;
  let stopped: number | undefined;
  try {
    t = await startTestRuntime({
      projectId: uniqueProjectId('fo'),
      env: {
        REDIS_CLUSTER_NODES: cluster.nodesEnv,
        REDIS_BUCKETS: '12',
        CLASS_DIRS,
        REDIS_COMMAND_TIMEOUT_MS: '1500',
        REDIS_WAIT_REPLICAS: waitReplicas,
      },
    });
    const rt = t;
    const ids = Array.from({ length: LEDGERS }, (_, i) => `L${i}`);
    for (const id of ids) expect((await rt.post(`/${rt.projectId}/CALL/Ledger/open/${id}`, {}, KEY)).status).toBe(200);

    const tallies = new Map<string, Tally>(ids.map((id) => [id, { acked: new Set(), uncertain: new Set() }]));
    let stop = false;
    const writer = async (id: string) => {
      const tally = tallies.get(id)!;
      for (let n = 0; !stop; n++) {
        const tag = `${id}-${n}`;
        try {
          const r = await rt.post(`/${rt.projectId}/CALL/Ledger/apply/${id}`, { tag }, KEY);
          (r.status === 200 ? tally.acked : tally.uncertain).add(tag);
          if (r.status !== 200) await new Promise((res) => setTimeout(res, 50));
        } catch {
          tally.uncertain.add(tag);
        }
      }
    };
    const acked = () => [...tallies.values()].reduce((n, x) => n + x.acked.size, 0);
    const l0 = tallies.get('L0')!;
    const l0Sent = () => l0.acked.size + l0.uncertain.size;
    const writers = ids.map(writer);

    await waitFor(() => acked() >= 150, { timeoutMs: 30_000, what: '150 acknowledged writes before the failover' });
    // the master that holds L0's bucket, and its replica
    const slot = Number(
      await command(cluster.nodes[0]!.port, ['CLUSTER', 'KEYSLOT', rt.rt.store.keys.instance('Ledger', 'L0')]),
    );
    const victim = (await cluster.masters()).find((m) => m.slots.some((range) => inRange(range, slot)))!;
    const nodes = parseClusterNodes(String(await command(victim.port, ['CLUSTER', 'NODES'])));
    const replica = cluster.nodes.find((n) => n.port === nodes.find((r) => r.master === victim.id)!.port)!;
    stopped = replica.pid;
    process.kill(replica.pid, 'SIGSTOP');
    // more than the sockets between them buffer, so what the master writes next stays in its own memory:
    // a stopped replica otherwise reads it all from its socket when it resumes
    const tag = rt.rt.store.keys.of('Ledger', 'L0').tag;
    for (let i = 0; i < FILLER_MB; i++)
      await command(victim.port, ['SET', `${tag}:failover-filler:${i}`, 'x'.repeat(1024 * 1024)], 5000);
    // L0 goes on writing to its master while the replica receives nothing
    const sentAtStop = l0Sent();
    await waitFor(() => l0Sent() >= sentAtStop + 3, {
      timeoutMs: 30_000,
      what: 'writes to L0 while its replica is stopped',
    });
    await cluster.kill(victim.port, 'SIGKILL');
    process.kill(replica.pid, 'SIGCONT');
    stopped = undefined;
    await waitFor(
      async () => {
        const masters = await cluster.masters().catch(() => []);
        return masters.some((m) => m.port === replica.port && m.slots.some((range) => inRange(range, slot)));
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the replica promoted' },
    );
    if (recover) {
      // the killed node comes back as the new master's replica: writes to its slots are confirmed again
      await cluster.restart(victim.port);
      const l0Before = l0.acked.size;
      const ackedBefore = acked();
      await waitFor(() => l0.acked.size >= l0Before + 10 && acked() >= ackedBefore + 150, {
        timeoutMs: 60_000,
        what: 'writes acknowledged after the failover, on the failed-over slots too',
      });
    }
    stop = true;
    await Promise.all(writers);

    let lost = 0;
    let doubled = 0;
    let unknown = 0;
    for (const id of ids) {
      const r = await rt.get(`/${rt.projectId}/CALL/Ledger/get/${id}`, KEY);
      expect(r.status).toBe(200);
      const history = r.body.history as string[];
      const { acked: ok, uncertain } = tallies.get(id)!;
      const seen = new Set<string>();
      for (const tag of history) {
        if (seen.has(tag)) doubled++;
        seen.add(tag);
        if (!ok.has(tag) && !uncertain.has(tag)) unknown++;
      }
      for (const tag of ok) if (!seen.has(tag)) lost++;
      expect(r.body.count).toBe(history.length);
    }
    return { lost, doubled, unknown, acked: acked(), waitReplicas: rt.rt.store.waitReplicas };
  } finally {
    if (stopped) process.kill(stopped, 'SIGCONT');
    await t?.stop();
    await cluster.stop();
  }
}

test('3 masters + 3 replicas, writes running, a master SIGKILLed after its replica fell behind: 0 acknowledged writes lost, 0 applied twice', async () => {
  const r = await failover('auto', true);
  expect(r.waitReplicas).toBe(1);
  expect(r.acked).toBeGreaterThan(300);
  expect({ lost: r.lost, doubled: r.doubled, unknown: r.unknown }).toEqual({ lost: 0, doubled: 0, unknown: 0 });
}, 180_000);

test('the same failover without WAIT (REDIS_WAIT_REPLICAS=0) loses acknowledged writes: what the test above guards against', async () => {
  const r = await failover('0', false);
  expect(r.waitReplicas).toBe(0);
  expect(r.lost).toBeGreaterThan(0);
  expect({ doubled: r.doubled, unknown: r.unknown }).toEqual({ doubled: 0, unknown: 0 });
}, 180_000);

/** `range` is a slot ('5461') or a range ('0-5460') of CLUSTER NODES */
function inRange(range: string, slot: number): boolean {
  const [lo, hi] = range.split('-').map(Number);
  return slot >= lo! && slot <= (hi ?? lo)!;
}
