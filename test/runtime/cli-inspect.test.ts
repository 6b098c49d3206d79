import { execFile } from 'node:child_process';
import { Keys } from '../../runtime/actor/state-store';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { projectRoot } from '../../runtime/config';
import { maskedFields, maskFields } from '../../runtime/inspect';
import { startTestRuntime, testEnv, TEST_API_KEY, waitFor } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';

const run = promisify(execFile);
const projectId = uniqueProjectId('ci');
let svc: RuntimeProcess;

function cliIn(project: string, env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', path.join(projectRoot(), 'runtime/cli.ts'), ...args], {
    cwd: projectRoot(),
    env: { ...process.env, ...testEnv(project, { LOG_LEVEL: 'warn', ...env }) },
  });
}
function cli(...args: string[]) {
  return cliIn(projectId, {}, ...args);
}
async function cliJson(...args: string[]) {
  return JSON.parse((await cli(...args)).stdout);
}

beforeAll(async () => {
  svc = await spawnRuntime(projectId);
});
afterAll(() => svc.stop());

const p = `/${projectId}/CALL/Counter`;
const headers = { 'x-api-key': TEST_API_KEY, 'content-type': 'application/json' };
async function post(pathAndMethod: string, body: unknown) {
  const r = await fetch(`${svc.base}${p}/${pathAndMethod}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}
async function jobStatus(jobId: string) {
  return (await fetch(`${svc.base}/${projectId}/JOBS/${jobId}`, { headers })).json();
}

test('inspect shows an instance after a write: state, version and lookup keys, by id and by lookup key', async () => {
  expect((await post('init/c1', { label: 'first', slot: 'slot-a' })).status).toBe(200);
  expect((await post('increment/c1', { by: 3 })).status).toBe(200);
  const shown = await cliJson('inspect', 'Counter', 'c1');
  expect(shown).toMatchObject({
    classId: 'Counter',
    instanceId: 'c1',
    version: 2,
    lookups: { slot: 'slot-a' },
    state: { public: { count: 3, label: 'first' } },
    pendingJobs: [],
    dueTasks: [],
    pendingEffects: [],
  });
  const byLookup = await cliJson('inspect', 'Counter', 'slot!slot-a');
  expect(byLookup).toEqual(shown);
}, 60_000);

test("inspect lists the instance's pending QUEUED_WRITE jobs and its due tasks", async () => {
  expect((await post('init/held', {})).status).toBe(200);
  // a task due in an hour: still delayed when inspected
  expect((await post('later/held', { delaySeconds: 3600, by: 2 })).status).toBe(200);
  // the instance's lease held from outside: the queued job stays pending until it is let go
  const redis = new Redis(redisUrl());
  const lease = new Keys(projectId).lease('Counter', 'held');
  try {
    await redis.set(lease, 'held-by-test', 'PX', 60_000);
    const queued = await post('queuedAdd/held', { by: 5 });
    const jobId = queued.body.jobId as string;
    // the task reaches the queue just after the commit that scheduled it
    const shown = await waitFor(
      async () => {
        const r = await cliJson('inspect', 'Counter', 'held');
        return r.dueTasks.length ? r : undefined;
      },
      { timeoutMs: 30_000, what: 'the due task' },
    );
    expect(shown.pendingJobs).toEqual([expect.objectContaining({ id: jobId, method: 'queuedAdd' })]);
    expect(shown.dueTasks).toEqual([expect.objectContaining({ method: 'queuedAdd', dueAt: expect.any(String) })]);
    expect(Date.parse(shown.dueTasks[0].dueAt)).toBeGreaterThan(Date.now() + 3000 * 1000);
    await redis.del(lease);
    await waitFor(async () => (await jobStatus(jobId)).status === 'completed', {
      timeoutMs: 30_000,
      what: 'queued job after the lease',
    });
    expect((await cliJson('inspect', 'Counter', 'held')).pendingJobs).toEqual([]);
  } finally {
    await redis.del(lease);
    redis.disconnect();
  }
}, 90_000);

test('inspect lists a committed effect not yet applied to the instance, until it is applied', async () => {
  // the effect fixtures: Shop.sell commits an effect calling Ledger.post
  const fixtures = path.join(projectRoot(), 'test/runtime/effect-fixtures');
  const env = { CLASS_DIRS: fixtures, SCHEMA_DIRS: fixtures };
  const fx = uniqueProjectId('cifx');
  const t = await startTestRuntime({ projectId: fx, env });
  const redis = new Redis(redisUrl());
  // the ledger's lease held from outside: the effect is committed with the sale but cannot be applied
  const lease = new Keys(fx).lease('Ledger', 'l1');
  try {
    expect((await t.post(`/${fx}/CALL/Shop/open/s1`, {}, { 'x-api-key': TEST_API_KEY })).status).toBe(200);
    expect((await t.post(`/${fx}/CALL/Ledger/open/l1`, {}, { 'x-api-key': TEST_API_KEY })).status).toBe(200);
    await redis.set(lease, 'held-by-test', 'PX', 60_000);
    const sale = t
      .post(`/${fx}/CALL/Shop/sell/s1`, { ledger: 'l1', entries: ['paid'] }, { 'x-api-key': TEST_API_KEY })
      .catch(() => null);
    await waitFor(async () => (await redis.xlen(t.rt.store.keys.bucket(0).effects)) === 1, {
      what: 'the committed effect',
    });
    const shown = JSON.parse((await cliIn(fx, env, 'inspect', 'Ledger', 'l1')).stdout);
    expect(shown.pendingEffects).toEqual([{ entry: expect.any(String), id: expect.any(String), method: 'post' }]);
    expect(shown.state.public.entries).toEqual([]);
    // the effect is the ledger's, not the shop's
    expect(JSON.parse((await cliIn(fx, env, 'inspect', 'Shop', 's1')).stdout).pendingEffects).toEqual([]);
    await redis.del(lease);
    // applied (by the caller's process or its sweeper) once the lease is let go
    await waitFor(async () => (await redis.xlen(t.rt.store.keys.bucket(0).effects)) === 0, {
      timeoutMs: 45_000,
      what: 'the effect applied',
    });
    await sale;
    const after = JSON.parse((await cliIn(fx, env, 'inspect', 'Ledger', 'l1')).stdout);
    expect(after.pendingEffects).toEqual([]);
    expect(after.state.public.entries).toEqual(['paid']);
  } finally {
    await redis.del(lease);
    redis.disconnect();
    await t.stop();
  }
}, 90_000);

test('inspect of an unknown class exits 1 with one line naming it', async () => {
  const failure = await cli('inspect', 'NoSuchClass', 'x').then(
    () => undefined,
    (err: { code: number; stdout: string; stderr: string }) => err,
  );
  expect(failure).toBeDefined();
  expect(failure!.code).toBe(1);
  const lines = `${failure!.stdout}${failure!.stderr}`.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain('NoSuchClass');
}, 60_000);

test('status lists a QUEUED_WRITE that failed for good, and retry runs it again', async () => {
  expect((await post('init/doomed', {})).status).toBe(200);
  // fails on attempts 1-4 (all it has), applies on a fifth
  const queued = await post('flakyAdd/doomed', { failTimes: 4 });
  const jobId = queued.body.jobId as string;
  await waitFor(async () => (await jobStatus(jobId)).status === 'failed', {
    timeoutMs: 30_000,
    what: 'job failed for good',
  });

  const status = await cliJson('status');
  expect(status.depths).toMatchObject({ failed: 1 });
  expect(typeof status.depths.waiting).toBe('number');
  expect(status.effectsPending).toBe(0);
  expect(status.failedJobs).toEqual([
    expect.objectContaining({
      id: jobId,
      classId: 'Counter',
      method: 'flakyAdd',
      instanceId: 'doomed',
      reason: expect.stringContaining('attempt 4'),
    }),
  ]);

  expect(await cliJson('retry', jobId)).toMatchObject({ retried: jobId, classId: 'Counter', method: 'flakyAdd' });
  await waitFor(async () => (await jobStatus(jobId)).status === 'completed', {
    timeoutMs: 30_000,
    what: 'retried job completed',
  });
  expect(await jobStatus(jobId)).toMatchObject({ result: { body: { attempt: 5 } } });
  expect((await cliJson('status')).depths).toMatchObject({ failed: 0 });
  expect((await cliJson('inspect', 'Counter', 'doomed')).state.public).toMatchObject({ count: 1 });

  // a job that is not failed is refused
  await expect(cli('retry', jobId)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('not failed') });
}, 90_000);

test("inspect masks the class's sensitive fields and the logger's secret fields at any depth", () => {
  const fields = maskedFields(['ssn']);
  const masked = maskFields(
    { public: { name: 'a', ssn: '123', nested: [{ password: 'p', ok: 1 }] }, private: { token: 't' } },
    fields,
  );
  expect(masked).toEqual({
    public: { name: 'a', ssn: '[masked]', nested: [{ password: '[masked]', ok: 1 }] },
    private: { token: '[masked]' },
  });
});
