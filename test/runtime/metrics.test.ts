/**
 * Prometheus metrics (runtime/metrics.ts) on a real runtime over HTTP: calls
 * counted by the registry's class, method, kind and status, their latency
 * histogram, INSTANCE_BUSY answers, the QUEUED_WRITE queue read at scrape, and
 * no label taken from the request (instance ids, unknown names).
 *
 * The runtime has the api role only: a queued job stays waiting, so the
 * queue gauges have something to show.
 */
import { ReadCache } from '../../runtime/actor/read-cache';
import { loadConfig } from '../../runtime/config';
import { startTestRuntime, TEST_API_KEY, testEnv, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
let p: string;
const apiKey = { 'x-api-key': TEST_API_KEY };
let n = 0;
const fresh = (what: string) => `${what}-${++n}-${Date.now()}`;

beforeAll(async () => {
  t = await startTestRuntime({ env: { ROLES: 'api' } });
  p = `/${t.projectId}/CALL/Counter`;
});
afterAll(() => t.stop());

async function scrape(): Promise<string> {
  const res = await fetch(`${t.base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  return res.text();
}

/** the value of one series (labels in the order prom-client writes them), or undefined when absent */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(series + ' ')) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

async function newCounter(): Promise<string> {
  const id = fresh('metrics-c');
  expect((await t.post(`${p}/init/${id}`, {}, apiKey)).status).toBe(200);
  return id;
}

const INCREMENT_200 = 'runtime_calls_total{class="Counter",method="increment",kind="WRITE",status="200"}';

test('calls are counted by class, method, kind and status, and timed', async () => {
  const id = await newCounter();
  const before = sample(await scrape(), INCREMENT_200) ?? 0;
  for (let i = 0; i < 3; i++) expect((await t.post(`${p}/increment/${id}`, { by: 1 }, apiKey)).status).toBe(200);
  // a refusal is counted under its own status
  expect((await t.post(`${p}/increment/${id}`, { by: 'x' }, apiKey)).status).toBe(400);
  const text = await scrape();
  expect(sample(text, INCREMENT_200)).toBe(before + 3);
  expect(
    sample(text, 'runtime_calls_total{class="Counter",method="increment",kind="WRITE",status="400"}'),
  ).toBeGreaterThanOrEqual(1);
  expect(
    sample(text, 'runtime_call_duration_seconds_count{class="Counter",method="increment",kind="WRITE"}'),
  ).toBeGreaterThanOrEqual(before + 4);
  expect(text).toMatch(
    /^runtime_call_duration_seconds_bucket\{le="0\.005",class="Counter",method="increment",kind="WRITE"\} \d+$/m,
  );
  // the process's own defaults
  expect(text).toMatch(/^process_cpu_user_seconds_total /m);
  expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
});

test('labels never carry instance ids or names the registry does not know', async () => {
  const id = await newCounter();
  await t.post(`${p}/increment/${id}`, {}, apiKey);
  const unknownMethod = fresh('noSuchMethod');
  const unknownClass = fresh('NoSuchClass');
  expect((await t.post(`${p}/${unknownMethod}/${id}`, {}, apiKey)).status).toBeGreaterThanOrEqual(400);
  expect((await t.post(`/${t.projectId}/CALL/${unknownClass}/get/${id}`, {}, apiKey)).status).toBeGreaterThanOrEqual(
    400,
  );
  const text = await scrape();
  expect(text).not.toContain(id);
  expect(text).not.toContain(unknownMethod);
  expect(text).not.toContain(unknownClass);
  expect(text).toMatch(/^runtime_calls_total\{class="unknown",method="unknown",kind="unknown",status="4\d\d"\} \d+$/m);
});

test('an INSTANCE_BUSY answer is counted', async () => {
  const id = await newCounter();
  const series = 'runtime_instance_busy_total{class="Counter",method="slow"}';
  const before = sample(await scrape(), series) ?? 0;
  // another process holds the instance: `slow` (1 s budget) waits for it and answers 503 INSTANCE_BUSY
  const lease = t.rt.store.keys.lease('Counter', id);
  await t.rt.redis.set(lease, 'another-process', 'PX', 20_000);
  // not cached here: the write takes the lease path and waits (a run on a cached snapshot would time out first)
  t.rt.dispatcher.readCache.delete(ReadCache.key('Counter', id));
  try {
    const busy = await t.post(`${p}/slow/${id}`, {}, apiKey);
    expect(busy.status).toBe(503);
  } finally {
    await t.rt.redis.del(lease);
  }
  const text = await scrape();
  expect(sample(text, series)).toBe(before + 1);
  expect(
    sample(text, 'runtime_calls_total{class="Counter",method="slow",kind="WRITE",status="503"}'),
  ).toBeGreaterThanOrEqual(1);
});

test('queue depth, the oldest waiting job and pending effects are read at scrape', async () => {
  const id = await newCounter();
  const before = sample(await scrape(), 'runtime_queue_jobs{state="waiting"}') ?? 0;
  expect(sample(await scrape(), 'runtime_effects_pending')).toBeGreaterThanOrEqual(0);
  // no worker in this process: the job stays waiting
  expect((await t.post(`${p}/queuedAdd/${id}`, { by: 1 }, apiKey)).status).toBe(202);
  const text = await scrape();
  expect(sample(text, 'runtime_queue_jobs{state="waiting"}')).toBe(before + 1);
  expect(sample(text, 'runtime_queue_jobs{state="failed"}')).toBeDefined();
  // its age grows while it waits
  await waitFor(async () => (sample(await scrape(), 'runtime_queue_oldest_waiting_seconds') ?? 0) > 0, {
    what: 'the oldest waiting job to have an age',
  });
});

describe('a process without the api role (METRICS_PORT)', () => {
  let worker: TestRuntime;
  let base: string;
  beforeAll(async () => {
    // the api process above has no worker: this one takes the queued jobs
    worker = await startTestRuntime({ projectId: t.projectId, env: { ROLES: 'worker', METRICS_PORT: '0' } });
    base = `http://127.0.0.1:${worker.rt.metricsPort}`;
  });
  afterAll(() => worker?.stop());

  test('serves /metrics, /health and /ready on its own port', async () => {
    expect(worker.rt.metricsPort).toEqual(expect.any(Number));
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await metrics.text();
    expect(text).toMatch(/^runtime_queue_jobs\{state="waiting"\} \d+$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(await (await fetch(`${base}/health`)).json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', redis: 'ok' });
    expect((await fetch(`${base}/nothing-here`)).status).toBe(404);
  });

  test('its queue gauge falls as it takes the waiting jobs', async () => {
    await waitFor(
      async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        return sample(text, 'runtime_queue_jobs{state="waiting"}') === 0;
      },
      { what: 'the worker to take the waiting jobs' },
    );
  });
});

test('a projector process shows its lag, which falls to 0 once it projected the commits', async () => {
  const projector = await startTestRuntime({ projectId: t.projectId, env: { ROLES: 'projector', METRICS_PORT: '0' } });
  try {
    const base = `http://127.0.0.1:${projector.rt.metricsPort}`;
    const id = await newCounter();
    for (let i = 0; i < 5; i++) expect((await t.post(`${p}/increment/${id}`, { by: 1 }, apiKey)).status).toBe(200);
    await waitFor(
      async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        // by collection (Counter projects into `counters`), and in total
        return (
          sample(text, 'runtime_projector_lag_entries{collection="counters"}') === 0 &&
          sample(text, 'runtime_projector_lag_seconds{collection="counters"}') === 0 &&
          sample(text, 'runtime_projector_backlog_entries') === 0 &&
          sample(text, 'runtime_projector_backlog_seconds') === 0
        );
      },
      { what: 'the projector to catch up' },
    );
    expect(await projector.rt.projector.lag()).toEqual({ entries: 0, seconds: 0 });
    expect(await projector.rt.projector.lag({ byCollection: true })).toMatchObject({
      collections: { counters: { entries: 0, seconds: 0 } },
    });
    // no series without a collection label: the total has gauges of its own
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).not.toMatch(/^runtime_projector_lag_(entries|seconds) /m);
    // a process that does not project shows no collection, and no backlog
    const api = await scrape();
    expect(api).not.toMatch(/^runtime_projector_lag_entries\{/m);
    expect(sample(api, 'runtime_projector_backlog_entries')).toBe(0);
  } finally {
    await projector.stop();
  }
  // once stopped it projects nothing: no lag to report
  expect(await projector.rt.projector.lag()).toBeUndefined();
});

test('no METRICS_PORT server in a process with the api role, nor without METRICS_PORT', async () => {
  expect(t.rt.metricsPort).toBeUndefined();
  const worker = await startTestRuntime({ env: { ROLES: 'worker' } });
  try {
    expect(worker.rt.metricsPort).toBeUndefined();
  } finally {
    await worker.stop();
  }
});

test('METRICS_PORT must be a port number', () => {
  expect(() => loadConfig(testEnv('metrics-config', { METRICS_PORT: 'abc' }))).toThrow(/METRICS_PORT/);
  expect(() => loadConfig(testEnv('metrics-config', { METRICS_PORT: '70000' }))).toThrow(/METRICS_PORT/);
  expect(loadConfig(testEnv('metrics-config', { METRICS_PORT: '9464' })).metricsPort).toBe(9464);
  expect(loadConfig(testEnv('metrics-config')).metricsPort).toBeUndefined();
});
