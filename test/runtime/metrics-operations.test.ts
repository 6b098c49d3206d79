/**
 * The operational metrics (runtime/metrics.ts) moved by real calls over HTTP
 * and a real Redis: time waiting for a busy instance, QUEUED_WRITE retries and
 * final failures, delayed tasks due and late, and the in-process caches' hits
 * and misses. Each test reads a series before and after what should move it.
 */
import { ReadCache } from '../../runtime/actor/read-cache';
import * as path from 'node:path';
import type { TurnManager } from '../../runtime/actor/turns';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';

const apiKey = { 'x-api-key': TEST_API_KEY };
let n = 0;
const fresh = (what: string) => `${what}-${++n}-${Date.now()}`;

async function scrape(t: TestRuntime): Promise<string> {
  const res = await fetch(`${t.base}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

/** the value of one series (labels in the order prom-client writes them), or undefined when absent */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(series + ' ')) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

async function value(t: TestRuntime, series: string): Promise<number> {
  return sample(await scrape(t), series) ?? 0;
}

async function newCounter(t: TestRuntime, body: object = {}): Promise<string> {
  const id = fresh('ops-c');
  expect((await t.post(`/${t.projectId}/CALL/Counter/init/${id}`, body, apiKey)).status).toBe(200);
  return id;
}

const WAIT_COUNT = 'runtime_instance_wait_seconds_count{class="Counter"}';
const WAIT_SUM = 'runtime_instance_wait_seconds_sum{class="Counter"}';

describe('an api process (no worker)', () => {
  let t: TestRuntime;
  let p: string;
  beforeAll(async () => {
    t = await startTestRuntime({ env: { ROLES: 'api' } });
    p = `/${t.projectId}/CALL/Counter`;
  });
  afterAll(() => t.stop());

  test("WRITEs that find their instance busy are timed waiting (for another process's lease, for a writer ahead here); one that found it free is not", async () => {
    const id = await newCounter(t);
    // a write that did not wait observes nothing
    const count0 = await value(t, WAIT_COUNT);
    expect((await t.post(`${p}/increment/${id}`, { by: 1 }, apiKey)).status).toBe(200);
    expect(await value(t, WAIT_COUNT)).toBe(count0);

    const sum0 = await value(t, WAIT_SUM);
    // another process holds the instance: the first write polls its lease, the second queues behind the first here
    const lease = t.rt.store.keys.lease('Counter', id);
    await t.rt.redis.set(lease, 'another-process', 'PX', 20_000);
    let first: Promise<{ status: number; body: any }>;
    let second: Promise<{ status: number; body: any }>;
    try {
      first = t.post(`${p}/increment/${id}`, { by: 1 }, apiKey);
      second = t.post(`${p}/increment/${id}`, { by: 10 }, apiKey);
      const turns = (t.rt.dispatcher as unknown as { turns: TurnManager }).turns;
      await waitFor(() => turns.waiting('Counter', id) === 1, { what: 'the second write to queue behind the first' });
    } finally {
      await t.rt.redis.del(lease);
    }
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect((await t.get(`${p}/get/${id}`, apiKey)).body).toMatchObject({ count: 12 });
    const text = await scrape(t);
    expect(sample(text, WAIT_COUNT)).toBe(count0 + 2);
    expect(sample(text, WAIT_SUM)).toBeGreaterThan(sum0);
    expect(text).toMatch(/^runtime_instance_wait_seconds_bucket\{le="0\.001",class="Counter"\} \d+$/m);
  });

  test('a WRITE waiting for a lease another process holds is timed, also when it ends INSTANCE_BUSY', async () => {
    const id = await newCounter(t);
    const before = await value(t, WAIT_COUNT);
    const lease = t.rt.store.keys.lease('Counter', id);
    await t.rt.redis.set(lease, 'another-process', 'PX', 20_000);
    // not cached here: the write takes the lease path and waits (a run on a cached snapshot would time out first)
    t.rt.dispatcher.readCache.delete(ReadCache.key('Counter', id));
    try {
      // `slow` has a 1 s budget: it polls the lease for all of it
      expect((await t.post(`${p}/slow/${id}`, {}, apiKey)).status).toBe(503);
    } finally {
      await t.rt.redis.del(lease);
    }
    expect(await value(t, WAIT_COUNT)).toBe(before + 1);
  });

  test('delayed tasks past their due time are counted while no worker runs them, with how late the oldest is', async () => {
    const before = await value(t, 'runtime_tasks_due');
    const id = await newCounter(t);
    // due at once (queued for a worker), and due in 1 s (kept in the delayed set, which no worker promotes)
    expect((await t.post(`${p}/later/${id}`, { delaySeconds: 0 }, apiKey)).status).toBe(200);
    expect((await t.post(`${p}/later/${id}`, { delaySeconds: 1 }, apiKey)).status).toBe(200);
    // a task not due yet is not counted
    expect((await t.post(`${p}/later/${id}`, { delaySeconds: 3600 }, apiKey)).status).toBe(200);
    await waitFor(async () => (await value(t, 'runtime_tasks_due')) === before + 2, { what: 'both tasks to be due' });
    await waitFor(async () => (await value(t, 'runtime_tasks_late_seconds')) > 0, {
      what: 'the oldest due task to be late',
    });
    expect(await value(t, 'runtime_tasks_due')).toBe(before + 2);

    // a worker on the project runs them: nothing is due any more
    const worker = await startTestRuntime({ projectId: t.projectId, env: { ROLES: 'worker' } });
    try {
      await waitFor(
        async () => {
          const text = await scrape(t);
          return sample(text, 'runtime_tasks_due') === 0 && sample(text, 'runtime_tasks_late_seconds') === 0;
        },
        { what: 'the worker to run the due tasks' },
      );
      // they ran: each queued its add, which the worker applied
      await waitFor(async () => (await t.get(`${p}/get/${id}`, apiKey)).body.count === 2, {
        what: "the tasks' adds to be applied",
      });
    } finally {
      await worker.stop();
    }
  });
});

describe('a process with a worker', () => {
  let t: TestRuntime;
  let p: string;
  beforeAll(async () => {
    t = await startTestRuntime();
    p = `/${t.projectId}/CALL/Counter`;
  });
  afterAll(() => t.stop());

  const retries = (method: string) => `runtime_queued_write_retries_total{class="Counter",method="${method}"}`;
  const failures = (method: string) => `runtime_queued_write_failures_total{class="Counter",method="${method}"}`;

  async function finished(jobId: string): Promise<{ status: string }> {
    return waitFor(
      async () => {
        const r = await t.get(`/${t.projectId}/JOBS/${jobId}`, apiKey);
        return ['completed', 'failed'].includes(r.body.status) ? r.body : undefined;
      },
      { what: `job ${jobId}` },
    );
  }

  test('a QUEUED_WRITE that throws once and then succeeds counts one retry and no failure', async () => {
    const id = await newCounter(t);
    const [r0, f0] = [await value(t, retries('flakyAdd')), await value(t, failures('flakyAdd'))];
    const r = await t.post(`${p}/flakyAdd/${id}`, { failTimes: 1 }, apiKey);
    expect(r.status).toBe(202);
    expect(await finished(r.body.jobId)).toMatchObject({ status: 'completed' });
    const text = await scrape(t);
    expect(sample(text, retries('flakyAdd'))).toBe(r0 + 1);
    expect(sample(text, failures('flakyAdd')) ?? 0).toBe(f0);
  });

  test('a QUEUED_WRITE that fails on every attempt counts its retries and one failure', async () => {
    const id = await newCounter(t);
    const [r0, f0] = [await value(t, retries('flakyAdd')), await value(t, failures('flakyAdd'))];
    // flakyAdd has 4 attempts: all of them fail
    const r = await t.post(`${p}/flakyAdd/${id}`, { failTimes: 4 }, apiKey);
    expect(await finished(r.body.jobId)).toMatchObject({ status: 'failed' });
    await waitFor(async () => (await value(t, failures('flakyAdd'))) === f0 + 1, { what: 'the failure to be counted' });
    expect(await value(t, retries('flakyAdd'))).toBe(r0 + 3);
  });

  test('a QUEUED_WRITE refused by its class fails at once: a failure, no retry', async () => {
    const id = await newCounter(t);
    const [r0, f0] = [await value(t, retries('queuedRefuse')), await value(t, failures('queuedRefuse'))];
    const r = await t.post(`${p}/queuedRefuse/${id}`, {}, apiKey);
    expect(await finished(r.body.jobId)).toMatchObject({ status: 'failed' });
    await waitFor(async () => (await value(t, failures('queuedRefuse'))) === f0 + 1, {
      what: 'the failure to be counted',
    });
    expect(await value(t, retries('queuedRefuse'))).toBe(r0);
  });
});

describe('cache hits and misses', () => {
  let t: TestRuntime;
  const hits = (cache: string) => `runtime_cache_hits_total{cache="${cache}"}`;
  const misses = (cache: string) => `runtime_cache_misses_total{cache="${cache}"}`;
  /** hits and misses moved since `before` */
  async function moved(cache: string, before: string): Promise<{ hits: number; misses: number }> {
    const text = await scrape(t);
    return {
      hits: (sample(text, hits(cache)) ?? 0) - (sample(before, hits(cache)) ?? 0),
      misses: (sample(text, misses(cache)) ?? 0) - (sample(before, misses(cache)) ?? 0),
    };
  }

  beforeAll(async () => {
    t = await startTestRuntime({
      env: {
        ROLES: 'api',
        CLASS_DIRS: `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'identity-fixtures')}`,
        IDENTITY_CACHE_SECONDS: '60',
      },
    });
  });
  afterAll(() => t.stop());

  test('every cache has its series from the start', async () => {
    const text = await scrape(t);
    for (const cache of ['identity', 'read', 'lookup', 'api_key', 'roles']) {
      expect(text).toMatch(new RegExp(`^runtime_cache_hits_total\\{cache="${cache}"\\} \\d+$`, 'm'));
      expect(text).toMatch(new RegExp(`^runtime_cache_misses_total\\{cache="${cache}"\\} \\d+$`, 'm'));
    }
  });

  test('identity: two calls with one session token ask the source once', async () => {
    const sub = fresh('staff');
    expect((await t.post(`/${t.projectId}/CALL/Staff/create/${sub}`, { active: true, roles: [] }, apiKey)).status).toBe(
      200,
    );
    const signIn = await t.post(`/${t.projectId}/CALL/Staff/signIn`, { sub });
    expect(signIn.status).toBe(200);
    const bearer = { authorization: `Bearer ${signIn.body.token}` };
    const before = await scrape(t);
    for (let i = 0; i < 2; i++)
      expect((await t.get(`/${t.projectId}/CALL/Staff/whoAmI/${sub}`, bearer)).body).toMatchObject({ userId: sub });
    expect(await moved('identity', before)).toEqual({ hits: 1, misses: 1 });
  });

  test('read and lookup: a second READ by lookup key is answered from both', async () => {
    const slot = fresh('slot');
    await newCounter(t, { slot });
    const before = await scrape(t);
    for (let i = 0; i < 2; i++)
      expect((await t.get(`/${t.projectId}/CALL/Counter/get/slot!${slot}`, apiKey)).body).toMatchObject({ slot });
    expect(await moved('lookup', before)).toEqual({ hits: 1, misses: 1 });
    // the INIT's commit left the instance in the READ cache: both READs are hits
    expect(await moved('read', before)).toEqual({ hits: 2, misses: 0 });
  });

  test('api_key: a key created by the CLI is read from Redis once', async () => {
    const { key } = await t.rt.apiKeys.create(fresh('metrics'));
    const id = await newCounter(t);
    const before = await scrape(t);
    for (let i = 0; i < 2; i++)
      expect((await t.get(`/${t.projectId}/CALL/Counter/get/${id}`, { 'x-api-key': key })).status).toBe(200);
    expect(await moved('api_key', before)).toEqual({ hits: 1, misses: 1 });
  });

  test('roles: a published snapshot is read from Redis, then from the cache', async () => {
    const sub = fresh('staff');
    expect(
      (await t.post(`/${t.projectId}/CALL/Staff/create/${sub}`, { active: true, roles: ['reader'] }, apiKey)).status,
    ).toBe(200);
    const { token } = (await t.post(`/${t.projectId}/CALL/Staff/signIn`, { sub })).body as { token: string };
    // publishing drops the cached snapshot
    await t.rt.ports.roles.publish({
      version: 1,
      hash: fresh('roles'),
      publishedAt: new Date().toISOString(),
      roles: [{ id: 'reader', name: 'reader', level: 10, permissions: { Staff: ['guarded'] }, status: 'active' }],
    });
    const before = await scrape(t);
    for (let i = 0; i < 2; i++)
      expect((await t.get(`/${t.projectId}/CALL/Staff/guarded`, { authorization: `Bearer ${token}` })).status).toBe(
        200,
      );
    const roles = await moved('roles', before);
    expect(roles.misses).toBe(1);
    expect(roles.hits).toBeGreaterThanOrEqual(1);
  });
});
