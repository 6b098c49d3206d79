import * as path from 'node:path';
import { QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';

const key = { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY };
const running: RuntimeProcess[] = [];
const inProcess: TestRuntime[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await Promise.all(inProcess.splice(0).map((r) => r.stop()));
});

async function post(base: string, path: string, body: unknown) {
  const r = await fetch(base + path, { method: 'POST', headers: key, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
}

test('WRITE is exclusive across processes: 100 concurrent increments on one instance, split over two processes, are all counted', async () => {
  const projectId = uniqueProjectId('mp');
  const [a, b] = await Promise.all([
    spawnRuntime(projectId, { ROLES: 'api' }),
    spawnRuntime(projectId, { ROLES: 'api' }),
  ]);
  running.push(a, b);
  const p = `/${projectId}/CALL/Counter`;
  expect((await post(a.base, `${p}/init/hot`, {})).status).toBe(200);
  // every one of them waits for all the commits before it inside increment's 10 s budget: 100 commits
  // take about 5 s on a loaded machine (200 took all of it, and the last writers timed out)
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => post(i % 2 ? a.base : b.base, `${p}/increment/hot`, { by: 1 })),
  );
  expect(results.filter((r) => r.status === 200)).toHaveLength(100);
  const counts = results.map((r) => r.body.count).sort((x, y) => x - y);
  expect(counts).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  const final = await fetch(`${a.base}${p}/get/hot`, { headers: key }).then((r) => r.json());
  expect(final).toMatchObject({ count: 100, version: 101 });
}, 60_000);

test('a worker killed in the middle of a job: the job is redelivered and its change applied exactly once', async () => {
  const projectId = uniqueProjectId('kw');
  // the API in this process queues; the only worker is a separate process that we crash
  // HeldCounter's queued `add` holds until the test sets its release key: the kill lands in the middle of the job on any machine
  const CLASS_DIRS = `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'held-job-fixtures')}`;
  const api = await startTestRuntime({ projectId, env: { ROLES: 'api', CLASS_DIRS } });
  inProcess.push(api);
  const p = `/${projectId}/CALL/HeldCounter`;
  expect((await api.post(`${p}/open/k1`, {}, { 'x-api-key': TEST_API_KEY })).status).toBe(200);
  const workerEnv = { ROLES: 'worker', CLASS_DIRS, JOB_LOCK_MS: '2000', LEASE_TTL_MS: '2000' };
  const worker1 = await spawnRuntime(projectId, workerEnv);
  running.push(worker1);
  const releaseKey = `test:${projectId}:release-k1`;
  const queued = await api.post(`${p}/add/k1`, { by: 7, releaseKey }, { 'x-api-key': TEST_API_KEY });
  expect(queued.status).toBe(202);
  const jobId = queued.body.jobId;
  const status = () => api.get(`/${projectId}/JOBS/${jobId}`, { 'x-api-key': TEST_API_KEY });
  await waitFor(async () => (await status()).body.status === 'running', { what: 'job running' });
  // in its handler: it holds the instance's lease
  await waitFor(async () => (await api.rt.redis.exists(api.rt.store.keys.lease('HeldCounter', 'k1'))) === 1, {
    what: 'the job in its handler',
  });
  await worker1.kill();
  expect((await api.get(`${p}/get/k1`, { 'x-api-key': TEST_API_KEY })).body.count).toBe(0);

  // released: delivered again, the job runs straight through
  await api.rt.redis.set(releaseKey, '1', 'EX', 120);
  const worker2 = await spawnRuntime(projectId, workerEnv);
  running.push(worker2);
  const done = await waitFor(
    async () => {
      const s = (await status()).body;
      return s.status === 'completed' ? s : undefined;
    },
    { timeoutMs: 40_000, what: 'job completed after the crash' },
  );
  expect(done.result.body).toEqual({ count: 7 });
  const state = await api.rt.store.read('HeldCounter', 'k1');
  expect(JSON.parse(state!.stateJson).public).toEqual({ count: 7, history: [7] });
  expect(state!.version).toBe(2);
  await api.rt.redis.del(releaseKey);
}, 90_000);

test('a redelivered job whose change was already committed is not applied again', async () => {
  const projectId = uniqueProjectId('rd');
  const t = await startTestRuntime({ projectId });
  inProcess.push(t);
  const p = `/${projectId}/CALL/Counter`;
  await t.post(`${p}/init/r1`, {}, { 'x-api-key': TEST_API_KEY });
  const r = await t.post(`${p}/queuedAdd/r1`, { by: 2 }, { 'x-api-key': TEST_API_KEY });
  await waitFor(
    async () =>
      (await t.get(`/${projectId}/JOBS/${r.body.jobId}`, { 'x-api-key': TEST_API_KEY })).body.status === 'completed',
  );
  // deliver the same job again, as BullMQ does after a worker dies between commit and acknowledgement
  const queue = t.rt.jobs.queue;
  const job = await queue.getJob(r.body.jobId);
  // the second completion is seen as an event (timestamps of two fast runs can be the same millisecond)
  // a blocking connection of its own (BullMQ needs maxRetriesPerRequest: null; the queue's has a command time-out)
  const eventsConnection = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  // read from the stream's last entry before the retry, not from '$' once the listener runs: a completion written
  // before its first XREAD (which waitUntilReady does not wait for) would be missed
  const [last] = await eventsConnection.xrevrange(queue.keys.events, '+', '-', 'COUNT', 1);
  const events = new QueueEvents(queue.name, {
    connection: eventsConnection,
    prefix: queue.opts.prefix,
    lastEventId: last?.[0] ?? '0-0',
  });
  try {
    await events.waitUntilReady();
    let completions = 0;
    events.on('completed', ({ jobId }) => {
      if (jobId === r.body.jobId) completions++;
    });
    await job!.retry('completed');
    await waitFor(() => completions >= 1, { what: 'second delivery processed' });
  } finally {
    await events.close();
    eventsConnection.disconnect();
  }
  expect((await t.rt.jobs.queue.getJob(r.body.jobId))!.returnvalue).toMatchObject({ status: 200, body: { count: 2 } });
  const state = await t.rt.store.read('Counter', 'r1');
  expect(JSON.parse(state!.stateJson).public).toMatchObject({ count: 2, history: [2] });
  expect(state!.version).toBe(2);
}, 30_000);

test('delayed tasks survive a restart', async () => {
  const projectId = uniqueProjectId('dt');
  const first = await startTestRuntime({ projectId });
  const p = `/${projectId}/CALL/Counter`;
  await first.post(`${p}/init/d1`, {}, { 'x-api-key': TEST_API_KEY });
  await first.post(`${p}/later/d1`, { delaySeconds: 2, by: 9 }, { 'x-api-key': TEST_API_KEY });
  await first.stop();
  const second = await startTestRuntime({ projectId });
  inProcess.push(second);
  await waitFor(async () => (await second.get(`${p}/get/d1`, { 'x-api-key': TEST_API_KEY })).body.count === 9, {
    what: 'task after restart',
  });
}, 30_000);
