/**
 * QUEUED_WRITE across processes: several api processes enqueue on the same
 * instances while separate worker processes run the jobs. Every acknowledged
 * job is applied exactly once, in its instance's FIFO order, and a backlog is
 * handed on from commit to commit instead of being found by re-delaying.
 */
import { Keys } from '../../runtime/actor/state-store';
import { Redis } from 'ioredis';
import { TEST_API_KEY, waitFor } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';

const key = { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY };
const running: RuntimeProcess[] = [];
let redis: Redis;

beforeAll(() => {
  redis = new Redis(redisUrl());
});
afterAll(() => redis.quit());
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.kill()));
});

async function post(base: string, path: string, body: unknown) {
  const r = await fetch(base + path, { method: 'POST', headers: key, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

async function get(base: string, path: string) {
  const r = await fetch(base + path, { headers: key });
  return { status: r.status, body: (await r.json()) as any };
}

async function spawn(projectId: string, roles: string, n: number): Promise<RuntimeProcess[]> {
  const started = await Promise.all(Array.from({ length: n }, () => spawnRuntime(projectId, { ROLES: roles })));
  running.push(...started);
  return started;
}

/** Runs `work` over `items` with at most `width` at once. */
async function bounded<T, R>(items: T[], width: number, work: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i], i);
      }
    }),
  );
  return out;
}

/** The `history` each instance holds (the values its queuedAdd jobs applied, in the order they ran). */
async function histories(base: string, projectId: string, ids: string[]): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const id of ids) {
    const r = await get(base, `/${projectId}/CALL/Counter/get/${id}`);
    out.set(id, r.body.history ?? []);
  }
  return out;
}

test('three api processes racing on the same instances, two worker processes: every acknowledged job applied exactly once, each in its own place', async () => {
  const projectId = uniqueProjectId('qp');
  const apis = await spawn(projectId, 'api', 3);
  await spawn(projectId, 'worker', 2);
  const p = `/${projectId}/CALL/Counter`;
  const ids = ['a', 'b', 'c'];
  for (const id of ids) expect((await post(apis[0].base, `${p}/init/${id}`, {})).status).toBe(200);

  // 300 jobs, a distinct value each, 30 at a time through all three api processes onto three instances
  const values = Array.from({ length: 300 }, (_, i) => i + 1);
  const acks = await bounded(values, 30, async (by, i) => {
    const r = await post(apis[i % 3].base, `${p}/queuedAdd/${ids[i % ids.length]}`, { by });
    expect(r.status).toBe(202);
    return { id: ids[i % ids.length], by, jobId: r.body.jobId as string };
  });

  const done = await waitFor(
    async () => {
      const h = await histories(apis[0].base, projectId, ids);
      return [...h.values()].reduce((n, l) => n + l.length, 0) >= acks.length ? h : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'all 300 jobs applied' },
  );
  for (const id of ids) {
    const mine = acks.filter((a) => a.id === id).map((a) => a.by);
    // each value once: nothing lost, nothing doubled
    expect([...done!.get(id)!].sort((x, y) => x - y)).toEqual(mine.sort((x, y) => x - y));
  }
  // and each job's handle tells it completed with its own result
  const statuses = await bounded(acks, 20, (a, i) => get(apis[i % 3].base, `/${projectId}/JOBS/${a.jobId}`));
  expect(statuses.filter((s) => s.body.status !== 'completed')).toEqual([]);
}, 120_000);

test('jobs sent one after another through different api processes run in the order they were acknowledged', async () => {
  const projectId = uniqueProjectId('qo');
  const apis = await spawn(projectId, 'api', 3);
  await spawn(projectId, 'worker', 2);
  const p = `/${projectId}/CALL/Counter`;
  expect((await post(apis[0].base, `${p}/init/order`, {})).status).toBe(200);
  const values = Array.from({ length: 60 }, (_, i) => i + 1);
  // the first job is slow, so the others are queued behind it and handed on one by one
  expect((await post(apis[0].base, `${p}/queuedAdd/order`, { by: 1, delayMs: 500 })).status).toBe(202);
  for (const by of values.slice(1))
    expect((await post(apis[by % 3].base, `${p}/queuedAdd/order`, { by })).status).toBe(202);
  const history = await waitFor(
    async () => {
      const h = (await histories(apis[1].base, projectId, ['order'])).get('order')!;
      return h.length >= values.length ? h : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'the 60 jobs applied' },
  );
  expect(history).toEqual(values);
}, 120_000);

test('a backlog queued while no worker runs drains by hand-over: each job waiting behind another is parked once, not polled', async () => {
  const projectId = uniqueProjectId('qb');
  const apis = await spawn(projectId, 'api', 2);
  const p = `/${projectId}/CALL/Counter`;
  const ids = Array.from({ length: 5 }, (_, i) => `b${i}`);
  for (const id of ids) expect((await post(apis[0].base, `${p}/init/${id}`, {})).status).toBe(200);
  const perInstance = 40;
  for (let n = 1; n <= perInstance; n++) {
    await Promise.all(
      ids.map((id, i) =>
        post(apis[(n + i) % 2].base, `${p}/queuedAdd/${id}`, { by: n }).then((r) => expect(r.status).toBe(202)),
      ),
    );
  }
  const eventsKey = `${new Keys(projectId).bucket(0).queuePrefix}:jobs:events`;
  const [lastBefore] = (await redis.xrevrange(eventsKey, '+', '-', 'COUNT', 1))[0] ?? ['0-0'];

  await spawn(projectId, 'worker', 2);
  const done = await waitFor(
    async () => {
      const h = await histories(apis[1].base, projectId, ids);
      return [...h.values()].every((l) => l.length >= perInstance) ? h : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'the backlog applied' },
  );
  for (const id of ids) expect(done!.get(id)).toEqual(Array.from({ length: perInstance }, (_, i) => i + 1));

  // since the workers started: a job waiting behind another is not pushed back to the delayed set again and
  // again (re-delaying until it heads its instance's queue adds one "delayed" event per look, thousands
  // here); at most once each, when the workers took longer than PARKED_MS to start and the parked jobs woke
  const events = await redis.xrange(eventsKey, `(${lastBefore}`, '+');
  const delayed = events.filter(([, fields]) => fields[1] === 'delayed').length;
  expect(delayed).toBeLessThanOrEqual(ids.length * perInstance);
}, 120_000);
