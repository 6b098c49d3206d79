/**
 * QUEUED_WRITE on a Redis Cluster: each instance's jobs live in its bucket's
 * BullMQ queue (prefix = the bucket's hash tag), registered and added in one
 * MULTI in that slot. Two processes, each an api and a worker, take queued
 * writes for instances spread over the buckets, alternately: every instance's
 * jobs apply once each, in the order they were accepted.
 */
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { TEST_API_KEY, waitFor } from '../support/harness';
import { clusterNodes, uniqueProjectId } from '../support/redis';

const headers = { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY };
const running: RuntimeProcess[] = [];

afterAll(async () => {
  await Promise.all(running.splice(0).map((r) => r.stop()));
});

async function post(base: string, path: string, body: unknown) {
  const r = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

test('two api+worker processes on a cluster: queued writes of 8 instances over 8 buckets apply once each, in FIFO order per instance', async () => {
  const projectId = uniqueProjectId('qc');
  const env = { REDIS_CLUSTER_NODES: clusterNodes(), REDIS_BUCKETS: '8', ROLES: 'api,worker' };
  running.push(...(await Promise.all([spawnRuntime(projectId, env), spawnRuntime(projectId, env)])));
  const [a, b] = running;
  const p = `/${projectId}/CALL/Counter`;
  const ids = Array.from({ length: 8 }, (_, i) => `q${i}`);
  for (const id of ids) expect((await post(a!.base, `${p}/init/${id}`, {})).status).toBe(200);
  const perInstance = 25;
  const jobIds = new Set<string>();
  for (let n = 1; n <= perInstance; n++) {
    // each instance's n-th job is accepted before its (n+1)-th, through either process
    const accepted = await Promise.all(
      ids.map((id, i) => post((n + i) % 2 ? a!.base : b!.base, `${p}/queuedAdd/${id}`, { by: n })),
    );
    for (const r of accepted) {
      expect(r.status).toBe(202);
      jobIds.add(r.body.jobId);
    }
  }
  expect(jobIds.size).toBe(ids.length * perInstance);
  // job ids name their bucket: the buckets' queues are all in use
  expect(new Set([...jobIds].map((id) => id.split('.')[0])).size).toBeGreaterThan(1);
  const histories = await waitFor(
    async () => {
      const h = await Promise.all(
        ids.map(
          async (id) => (await (await fetch(`${b!.base}${p}/get/${id}`, { headers })).json()) as { history?: number[] },
        ),
      );
      return h.every((x) => (x.history ?? []).length >= perInstance) ? h : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250, what: 'every queued write applied' },
  );
  for (const h of histories!) expect(h.history).toEqual(Array.from({ length: perInstance }, (_, i) => i + 1));
  // and each job's status, through the other process, reads completed
  const sample = [...jobIds].slice(0, 5);
  for (const id of sample) {
    const s = await (await fetch(`${a!.base}/${projectId}/JOBS/${id}`, { headers })).json();
    expect(s).toMatchObject({ jobId: id, status: 'completed' });
  }
}, 180_000);
