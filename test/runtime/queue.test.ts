import { streamLength } from '../support/streams';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let p: string;
const key = { 'x-api-key': TEST_API_KEY };

beforeAll(async () => {
  t = await startTestRuntime();
  p = `/${t.projectId}/CALL/Counter`;
});
afterAll(() => t.stop());

async function job(jobId: string, headers: Record<string, string> = key) {
  return t.get(`/${t.projectId}/JOBS/${jobId}`, headers);
}

async function finished(jobId: string) {
  return waitFor(
    async () => {
      const r = await job(jobId);
      return ['completed', 'failed'].includes(r.body.status) ? r.body : undefined;
    },
    { what: `job ${jobId}` },
  );
}

test('QUEUED_WRITE answers 202 with a job handle whose outcome can be fetched later', async () => {
  await t.post(`${p}/init/q1`, {}, key);
  const r = await t.post(`${p}/queuedAdd/q1`, { by: 3 }, key);
  expect(r.status).toBe(202);
  expect(r.body).toMatchObject({
    jobId: expect.any(String),
    status: 'queued',
    statusUrl: `/${t.projectId}/JOBS/${r.body.jobId}`,
  });
  const done = await finished(r.body.jobId);
  expect(done).toMatchObject({
    status: 'completed',
    classId: 'Counter',
    method: 'queuedAdd',
    instanceId: 'q1',
    result: { status: 200, body: { count: 3 } },
  });
  expect((await t.get(`${p}/get/q1`, key)).body).toMatchObject({ count: 3 });
});

test('jobs are validated and checked for their instance before they are queued', async () => {
  expect((await t.post(`${p}/queuedAdd/q1`, { by: 'x' }, key)).status).toBe(400);
  const missing = await t.post(`${p}/queuedAdd/nobody`, {}, key);
  expect(missing.status).toBe(500);
  expect(Object.keys(missing.body)).toEqual(['message']);
});

test('jobs of one instance run in FIFO order', async () => {
  await t.post(`${p}/init/fifo`, {}, key);
  const jobs: string[] = [];
  // the first job is slow, so later ones are free to overtake it if ordering were not enforced
  jobs.push((await t.post(`${p}/queuedAdd/fifo`, { by: 1, delayMs: 300 }, key)).body.jobId);
  for (let i = 2; i <= 15; i++) jobs.push((await t.post(`${p}/queuedAdd/fifo`, { by: i }, key)).body.jobId);
  for (const id of jobs) await finished(id);
  const state = await t.rt.store.read('Counter', 'fifo');
  expect(JSON.parse(state!.stateJson).public.history).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
});

test('a failing attempt is retried with backoff and applied once', async () => {
  await t.post(`${p}/init/flaky`, {}, key);
  const r = await t.post(`${p}/flakyAdd/flaky`, { failTimes: 2 }, key);
  const done = await finished(r.body.jobId);
  expect(done).toMatchObject({ status: 'completed', attemptsMade: 3, result: { body: { count: 1, attempt: 3 } } });
  expect((await t.get(`${p}/get/flaky`, key)).body).toMatchObject({ count: 1, version: 2 });
});

test('a job that exhausts its attempts fails, and the next job of the instance still runs', async () => {
  await t.post(`${p}/init/doomed`, {}, key);
  const bad = await t.post(`${p}/flakyAdd/doomed`, { failTimes: 10 }, key);
  const next = await t.post(`${p}/queuedAdd/doomed`, { by: 5 }, key);
  const failed = await finished(bad.body.jobId);
  expect(failed).toMatchObject({ status: 'failed', attemptsMade: 4, error: { status: 500 } });
  expect(await finished(next.body.jobId)).toMatchObject({ status: 'completed', result: { body: { count: 5 } } });
}, 30_000);

test('a refusal (4xx) is not retried and its error is reported', async () => {
  await t.post(`${p}/init/refuse`, {}, key);
  const r = await t.post(`${p}/queuedRefuse/refuse`, {}, key);
  const done = await finished(r.body.jobId);
  expect(done).toMatchObject({
    status: 'failed',
    attemptsMade: 1,
    error: { status: 400, body: { code: 'REFUSED', message: 'refused on purpose', classId: 'Counter' } },
  });
});

test('job status is only shown to the identity that queued it', async () => {
  await t.post(`${p}/init/mine`, {}, key);
  const r = await t.post(`${p}/queuedAdd/mine`, {}, { authorization: `Bearer ${t.token('enduser', 'alice')}` });
  const other = await job(r.body.jobId, { authorization: `Bearer ${t.token('enduser', 'bob')}` });
  expect(other.status).toBe(404);
  expect((await job(r.body.jobId, {})).status).toBe(401);
  const own = await waitFor(async () => {
    const s = await job(r.body.jobId, { authorization: `Bearer ${t.token('enduser', 'alice')}` });
    return s.body.status === 'completed' ? s : undefined;
  });
  expect(own!.status).toBe(200);
  expect((await job('no-such-job')).status).toBe(404);
});

test('delayed tasks run later, as the scheduling class', async () => {
  await t.post(`${p}/init/later`, {}, key);
  // 5 s, so that a stall of the test process between scheduling and the read below does not let the task run first
  const r = await t.post(`${p}/later/later`, { delaySeconds: 5, by: 4 }, key);
  expect(r.body).toEqual({ scheduled: true });
  expect((await t.get(`${p}/get/later`, key)).body.count).toBe(0);
  await waitFor(async () => (await t.get(`${p}/get/later`, key)).body.count === 4, {
    timeoutMs: 30_000,
    what: 'delayed task',
  });
  // handed to the queue and removed from the task outbox
  await waitFor(async () => (await streamLength(t.rt, 'tasks')) === 0, { what: 'task outbox drained' });
});

test("a write queues another instance's QUEUED_WRITE with its commit, and not at all when it fails", async () => {
  await t.post(`${p}/init/relay-src`, {}, key);
  await t.post(`${p}/init/relay-dst`, {}, key);
  const failed = await t.post(`${p}/relay/relay-src`, { target: 'relay-dst', by: 50, fail: true }, key);
  expect(failed.status).toBe(400);
  const ok = await t.post(`${p}/relay/relay-src`, { target: 'relay-dst', by: 3 }, key);
  expect(ok.body.jobId).toEqual(expect.any(String));
  await waitFor(async () => (await t.get(`${p}/get/relay-dst`, key)).body.count === 3, { what: 'relayed job' });
  expect((await t.rt.jobs.getJob(ok.body.jobId))?.data).toMatchObject({ kind: 'call', method: 'queuedAdd' });
  expect((await t.get(`${p}/get/relay-src`, key)).body.count).toBe(1);
  // checked up front: no such instance
  const bad = await t.post(`${p}/relay/relay-src`, { target: 'nobody', by: 1 }, key);
  expect(bad.status).toBe(500);
  expect((await t.get(`${p}/get/relay-dst`, key)).body.count).toBe(3);
});
