/**
 * Effectively once, everywhere: every delivery of a delayed
 * task or a queued job carries an id that the commit it causes records (or is
 * refused for), so a redelivery after a crash, a stall or a retry never
 * applies a change twice. Real processes, real Redis, real SIGKILL / SIGSTOP.
 */
import * as net from 'node:net';
import * as path from 'node:path';
import { QueueEvents, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { redisUrl, uniqueProjectId } from '../support/redis';
import type { CallRequest } from '../../runtime/actor/call-request';
import type { Identity } from '../../runtime/types/identity';
import { ActorError, RuntimeCodes } from '../../runtime';

const CLASS_DIRS = `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'fixtures/Ledger')}`;
const key = { 'x-api-key': TEST_API_KEY };

const running: RuntimeProcess[] = [];
const inProcess: TestRuntime[] = [];

afterEach(async () => {
  // a process stopped by a failing test must not outlive it: resume, then kill
  for (const r of running) if (r.proc.exitCode === null && r.proc.signalCode === null) r.proc.kill('SIGCONT');
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await Promise.all(inProcess.splice(0).map((r) => r.stop()));
});

async function api(projectId: string): Promise<TestRuntime> {
  const t = await startTestRuntime({ projectId, env: { ROLES: 'api', CLASS_DIRS } });
  inProcess.push(t);
  return t;
}

async function worker(projectId: string, env: Record<string, string>): Promise<RuntimeProcess> {
  const w = await spawnRuntime(projectId, { ROLES: 'worker', CLASS_DIRS, ...env });
  running.push(w);
  return w;
}

interface LedgerState {
  version: number;
  count: number;
  history: string[];
}

async function ledgers(t: TestRuntime, ids: string[]): Promise<Map<string, LedgerState>> {
  const pipe = t.rt.store.redis.pipeline();
  for (const id of ids) pipe.hmget(t.rt.store.keys.instance('Ledger', id), 'v', 's');
  const rows = (await pipe.exec())!;
  const out = new Map<string, LedgerState>();
  rows.forEach(([err, row], i) => {
    if (err) throw err;
    const [v, s] = row as [string | null, string | null];
    const pub = s ? (JSON.parse(s).public as { count: number; history: string[] }) : { count: 0, history: [] };
    out.set(ids[i], { version: Number(v), count: pub.count, history: pub.history });
  });
  return out;
}

async function openAll(t: TestRuntime, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 50) {
    const batch = await Promise.all(
      ids.slice(i, i + 50).map((id) => t.post(`/${t.projectId}/CALL/Ledger/open/${id}`, {}, key)),
    );
    expect(batch.map((r) => r.status)).toEqual(batch.map(() => 200));
  }
}

/** Waits until the queue has nothing left to run (no job waiting, delayed or held by a worker, dead or alive). */
async function queueDrained(t: TestRuntime, what: string, timeoutMs: number): Promise<Record<string, number>> {
  const counts = await waitFor(
    async () => {
      const c = await t.rt.jobs.queue.getJobCounts(
        'active',
        'wait',
        'delayed',
        'prioritized',
        'waiting-children',
        'completed',
        'failed',
      );
      const open = c.active + c.wait + c.delayed + c.prioritized + c['waiting-children'];
      return open === 0 ? c : undefined;
    },
    { timeoutMs, intervalMs: 100, what },
  );
  return counts!;
}

/**
 * Watches every command Redis receives (MONITOR, on a raw socket: ioredis's monitor mode can
 * mistake the first lines for replies). `onLine` gets each line, e.g. `+1700000000.1 [0 127.0.0.1:5000] "evalsha" "…" "9" "rt:…"`.
 */
async function monitorRedis(onLine: (line: string) => void): Promise<{ close(): void }> {
  const url = new URL(redisUrl());
  const socket = net.connect(Number(url.port || 6379), url.hostname);
  let buffer = '';
  let ready: () => void;
  let failed: (err: Error) => void;
  const started = new Promise<void>((resolve, reject) => ((ready = resolve), (failed = reject)));
  socket.setEncoding('utf8');
  socket.on('error', (err) => failed(err));
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 2);
      if (line === '+OK') ready();
      else if (line.startsWith('-')) failed(new Error(line));
      else onLine(line);
    }
  });
  socket.write('MONITOR\r\n');
  await started;
  return { close: () => socket.destroy() };
}

function isAlreadyApplied(err: unknown): boolean {
  return err instanceof ActorError && err.code === RuntimeCodes.ALREADY_APPLIED.code;
}

test('150 delayed tasks due together, their worker SIGKILLed on its first commit: every task applied exactly once', async () => {
  const projectId = uniqueProjectId('eo');
  const t = await api(projectId);
  const N = 150;
  // two thirds of the tasks call a WRITE (the commit records the task id), a third a QUEUED_WRITE (queued under the task id)
  const targets = Array.from({ length: N }, (_, i) => ({ id: `t${i}`, queued: i % 3 === 2 }));
  const ids = targets.map((x) => x.id);
  await openAll(t, [...ids, 'planner']);
  const workerEnv = { JOB_LOCK_MS: '2000', LEASE_TTL_MS: '2000' };
  // the first worker SIGKILLs itself the moment Redis answers its first commit of a task (the commit naming the
  // task's delivery marker), before it can acknowledge that job, while the other tasks it holds are being committed
  // and acknowledged (test/support/crash-after-commit.cjs: the window is hit every time, not by a kill from outside)
  const first = await worker(projectId, {
    ...workerEnv,
    NODE_OPTIONS:
      `${process.env.NODE_OPTIONS ?? ''} --require ${path.join(__dirname, '../support/crash-after-commit.cjs')}`.trim(),
    CRASH_AFTER_COMMIT_PREFIX: t.rt.store.keys.bucket(0).noDelivery.slice(0, -1),
  });
  const planned = await t.post(`/${projectId}/CALL/Ledger/plan/planner`, { targets, delaySeconds: 1 }, key);
  expect(planned.status).toBe(200);
  await waitFor(() => first.proc.exitCode !== null || first.proc.signalCode !== null, {
    timeoutMs: 20_000,
    what: 'the worker killed on its first task commit',
  });
  expect(first.proc.signalCode).toBe('SIGKILL');
  await first.kill(); // waits for the exit
  const atKill = [...(await ledgers(t, ids)).values()].filter((s) => s.version >= 2).length;
  expect(atKill).toBeLessThan(N); // the crash came while tasks were still to run

  await worker(projectId, workerEnv);
  await waitFor(async () => [...(await ledgers(t, ids)).values()].every((s) => s.version >= 2), {
    timeoutMs: 40_000,
    intervalMs: 100,
    what: 'every task applied after the crash',
  });
  // every redelivery (stalled jobs of the dead worker) has run to its end too
  const counts = await queueDrained(t, 'no job left to run', 30_000);
  expect(counts.failed).toBe(0);

  const states = await ledgers(t, ids);
  const twice = ids.filter((id) => states.get(id)!.history.length !== 1);
  expect(twice).toEqual([]);
  for (const id of ids) expect(states.get(id)).toEqual({ version: 2, count: 1, history: [id] });

  const taskJobs = (await t.rt.jobs.queue.getJobs(['completed'], 0, -1)).filter((j: Job) => j.name === 'task');
  expect(taskJobs).toHaveLength(N);
  const redelivered = taskJobs.filter((j) => j.stalledCounter > 0).length;
  const refused = taskJobs.filter(
    (j) => (j.returnvalue as { body?: { alreadyApplied?: boolean } })?.body?.alreadyApplied,
  ).length;
  // the race was really run: tasks the dead worker had committed but not acknowledged were delivered again, and refused
  if (refused === 0) {
    throw new Error(
      `the kill missed every task between commit and acknowledgement (applied at the kill: ${atKill}, redelivered: ${redelivered}): this run proved nothing`,
    );
  }
}, 90_000);

test('redelivering completed task jobs (a WRITE task, a QUEUED_WRITE task and its job) applies nothing again', async () => {
  const projectId = uniqueProjectId('er');
  const t = await startTestRuntime({ projectId, env: { CLASS_DIRS } });
  inProcess.push(t);
  await openAll(t, ['w1', 'q1', 'planner']);
  const planned = await t.post(
    `/${projectId}/CALL/Ledger/plan/planner`,
    { targets: [{ id: 'w1' }, { id: 'q1', queued: true }], delaySeconds: 0 },
    key,
  );
  expect(planned.status).toBe(200);
  await waitFor(async () => [...(await ledgers(t, ['w1', 'q1'])).values()].every((s) => s.version === 2), {
    what: 'both tasks applied',
  });
  await queueDrained(t, 'first deliveries finished', 15_000);

  const queue = t.rt.jobs.queue;
  const done = await queue.getJobs(['completed'], 0, -1);
  const taskOf = (id: string) =>
    done.find((j) => j.name === 'task' && (j.data as { task: { instanceId: string } }).task.instanceId === id)!;
  const writeTask = taskOf('w1');
  const queuedTask = taskOf('q1');
  // the QUEUED_WRITE task queued its job under the task's id
  const taskId = (queuedTask.data as { task: { id: string } }).task.id;
  const callJob = done.find((j) => j.name === 'call' && j.id === taskId);
  expect(callJob).toBeDefined();
  expect(done).toHaveLength(3);

  // deliver all three again, as BullMQ does when a worker dies between commit and acknowledgement
  const again = [writeTask.id!, queuedTask.id!, callJob!.id!];
  // its own blocking connection (the queue's has a command time-out, which BullMQ refuses for blocking reads)
  const connection = new Redis(redisUrl(), { maxRetriesPerRequest: null });
  // read from the stream's last entry before the retries, not from '$' once the listener runs: a completion written
  // before its first XREAD (which waitUntilReady does not wait for) would be missed
  const [last] = await connection.xrevrange(queue.keys.events, '+', '-', 'COUNT', 1);
  const events = new QueueEvents(queue.name, {
    connection,
    prefix: queue.opts.prefix,
    lastEventId: last?.[0] ?? '0-0',
  });
  try {
    await events.waitUntilReady();
    const completed = new Set<string>();
    const failed: string[] = [];
    events.on('completed', ({ jobId }) => completed.add(jobId));
    events.on('failed', ({ jobId, failedReason }) => failed.push(`${jobId}: ${failedReason}`));
    for (const id of again) await (await queue.getJob(id))!.retry('completed');
    await waitFor(() => again.every((id) => completed.has(id)) || failed.length > 0, {
      what: 'second deliveries processed',
    });
    expect(failed).toEqual([]);
  } finally {
    await events.close();
    connection.disconnect();
  }
  await queueDrained(t, 'second deliveries finished', 15_000);

  expect((await queue.getJob(writeTask.id!))!.returnvalue).toMatchObject({ body: { alreadyApplied: true } });
  expect((await queue.getJob(callJob!.id!))!.returnvalue).toMatchObject({ status: 200, body: { count: 1 } });
  // no second job was queued for the QUEUED_WRITE task
  expect((await queue.getJobs(['completed', 'failed'], 0, -1)).filter((j) => j.name === 'call')).toHaveLength(1);
  const states = await ledgers(t, ['w1', 'q1']);
  expect(states.get('w1')).toEqual({ version: 2, count: 1, history: ['w1'] });
  expect(states.get('q1')).toEqual({ version: 2, count: 1, history: ['q1'] });
}, 30_000);

test('a QUEUED_WRITE whose worker is stopped (SIGSTOP) past its job lock while the instance is busy is applied exactly once', async () => {
  const projectId = uniqueProjectId('es');
  const t = await api(projectId);
  const p = `/${projectId}/CALL/Counter`;
  expect((await t.post(`${p}/init/c1`, {}, key)).status).toBe(200);
  const workerEnv = { JOB_LOCK_MS: '1500', LEASE_TTL_MS: '2000' };
  const [a, b] = await Promise.all([worker(projectId, workerEnv), worker(projectId, workerEnv)]);
  // B is frozen while the job is handed out, so A is the one that takes it first
  b.proc.kill('SIGSTOP');

  let jobId = '';
  const status = async () => (await t.get(`/${projectId}/JOBS/${jobId}`, key)).body;
  // the instance is busy: the test holds its lease until A is stopped (not a timed WRITE, whose end a slow machine could reach first)
  const lease = t.rt.store.keys.lease('Counter', 'c1');
  expect(await t.rt.store.redis.set(lease, 'held-by-test', 'PX', 60_000)).toBe('OK');
  // every attempt to take the busy instance's lease from now on is worker A's (B is frozen)
  const leaseKey = `"${lease}"`;
  const instanceKey = `"${t.rt.store.keys.instance('Counter', 'c1')}"`;
  let leaseAttempts = 0;
  const monitor = await monitorRedis((line) => {
    if (line.includes(leaseKey) && line.includes(instanceKey) && line.includes('"write"')) leaseAttempts++; // acquireInstance(lease, instance, waiters, wake, token, ttl, mode, ...)
  });
  try {
    const queued = await t.post(`${p}/queuedAdd/c1`, { by: 5 }, key);
    expect(queued.status).toBe(202);
    jobId = queued.body.jobId;
    // A runs it: past the head-of-queue check, waiting for the busy instance's lease (it looks again at least every second)
    await waitFor(async () => (await status()).status === 'running', { what: 'job running on worker A' });
    await waitFor(() => leaseAttempts >= 2, { what: 'worker A waiting for the lease' });
  } finally {
    monitor.close();
  }

  // A stalls past its job lock; B (resumed) is handed the job by BullMQ's stalled-job check
  a.proc.kill('SIGSTOP');
  b.proc.kill('SIGCONT');
  // the instance is free again (A, frozen, cannot take it)
  expect(await t.rt.store.redis.del(lease)).toBe(1);
  const done = await waitFor(
    async () => {
      const s = await status();
      return s.status === 'completed' ? s : undefined;
    },
    { timeoutMs: 30_000, what: 'job completed by worker B' },
  );
  expect(done.result.body).toEqual({ count: 5 });

  // A resumes and goes on with its attempt: the instance is free now, its commit must be refused
  const seen = a.output().length;
  a.proc.kill('SIGCONT');
  // its processor has returned once BullMQ fails to complete the job with A's lost lock
  await waitFor(() => a.output().slice(seen).includes(`Missing lock for job ${jobId}`), {
    timeoutMs: 20_000,
    what: `worker A's attempt of ${jobId} ended`,
  });
  const state = await t.rt.store.read('Counter', 'c1');
  expect(JSON.parse(state!.stateJson).public).toEqual({ count: 5, history: [5] });
  expect(state!.version).toBe(2);
  const job = await t.rt.jobs.queue.getJob(jobId);
  expect(job!.stalledCounter).toBeGreaterThan(0); // B ran it after BullMQ found A stalled
  expect((await status()).status).toBe('completed');
}, 60_000);

describe('the same delivery run twice at once, in process (two runtimes on one Redis)', () => {
  const system: Identity = { type: 'system' };

  /** Runs `req` on each dispatcher at once; the handler takes 300 ms, so every run is past its checks before the first commits. */
  async function race(runs: TestRuntime[], req: CallRequest) {
    const settled = await Promise.allSettled(
      runs.map((r) => r.rt.dispatcher.call({ ...req, body: { tag: 'x', delayMs: 300 } })),
    );
    const ok = settled.filter((s) => s.status === 'fulfilled');
    const refused = settled.filter((s) => s.status === 'rejected' && isAlreadyApplied(s.reason));
    const other = settled
      .filter((s) => s.status === 'rejected' && !isAlreadyApplied(s.reason))
      .map((s) => (s as PromiseRejectedResult).reason);
    return { ok: ok.length, refused: refused.length, other };
  }

  test('a QUEUED_WRITE job pending once, run by two runtimes: one commits, the other is refused (1025) and writes nothing', async () => {
    const projectId = uniqueProjectId('ej');
    const a = await api(projectId);
    const b = await api(projectId);
    await openAll(a, ['x']);
    const jobId = 'job-under-test';
    expect(typeof (await a.rt.store.enqueueJob('Ledger', 'x', jobId))).toBe('number');
    const r = await race([a, b], {
      classId: 'Ledger',
      method: 'queuedApply',
      instanceId: 'x',
      identity: system,
      origin: 'queue',
      job: { id: jobId },
    });
    expect(r).toEqual({ ok: 1, refused: 1, other: [] });
    expect((await ledgers(a, ['x'])).get('x')).toEqual({ version: 2, count: 1, history: ['x'] });
    expect(await a.rt.store.redis.zcard(a.rt.store.keys.pendingJobs('Ledger', 'x'))).toBe(0);
    expect(JSON.parse((await a.rt.store.redis.get(a.rt.store.keys.jobResult('Ledger', 'x', jobId)))!)).toMatchObject({
      status: 200,
      body: { count: 1 },
    });
  });

  test('a task delivered three times at once, by two runtimes and twice by one: one commit, the others refused (1025)', async () => {
    const projectId = uniqueProjectId('ed');
    const a = await api(projectId);
    const b = await api(projectId);
    await openAll(a, ['x']);
    // a, b, and a again: across runtimes (the Redis lease) and within one (local turn, handed-over lease)
    const r = await race([a, b, a], {
      classId: 'Ledger',
      method: 'apply',
      instanceId: 'x',
      identity: system,
      origin: 'task',
      delivery: { id: 'task-under-test' },
    });
    expect(r).toEqual({ ok: 1, refused: 2, other: [] });
    expect((await ledgers(a, ['x'])).get('x')).toEqual({ version: 2, count: 1, history: ['x'] });
    // a different delivery is a different change
    await a.rt.dispatcher.call({
      classId: 'Ledger',
      method: 'apply',
      instanceId: 'x',
      identity: system,
      origin: 'task',
      delivery: { id: 'another-task' },
      body: { tag: 'y' },
    });
    expect((await ledgers(a, ['x'])).get('x')).toEqual({ version: 3, count: 2, history: ['x', 'y'] });
  });
});
