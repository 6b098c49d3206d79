/**
 * A delayed task whose commit succeeded but whose hand-over to the queue did
 * not (the process died between the two) is left in the task outbox; the
 * sweeper hands it over later. It must still be due its delay after its
 * commit, not after the sweep: a task committed 20 s before the sweep with a
 * 60 s delay waits 40 s more, one with a 10 s delay runs at once.
 */
import { randomUUID } from 'node:crypto';
import { startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';

let t: TestRuntime;
const key = { 'x-api-key': TEST_API_KEY };

beforeAll(async () => {
  t = await startTestRuntime();
});
afterAll(() => t.stop());

/** Redis's clock (ms), which stamps the task outbox's entry ids at commit */
async function redisNow(): Promise<number> {
  const [s, us] = await t.rt.redis.time();
  return Number(s) * 1000 + Math.floor(Number(us) / 1000);
}

/** what a commit leaves in the task outbox, committed `agoMs` ago by Counter `instanceId` */
async function leftInOutbox(instanceId: string, delayMs: number, agoMs: number, seq: number): Promise<string> {
  const id = randomUUID();
  const task = {
    id,
    classId: 'Counter',
    method: 'queuedAdd',
    instanceId,
    body: { by: 1 },
    delayMs,
    identity: { type: 'class', classId: 'Counter', instanceId },
  };
  await t.rt.redis.xadd(
    t.rt.store.keys.bucket(0).tasks,
    `${(await redisNow()) - agoMs}-${seq}`,
    't',
    JSON.stringify([task]),
  );
  return id;
}

test('a swept task keeps its due time: commit + delay, not sweep + delay', async () => {
  expect((await t.post(`/${t.projectId}/CALL/Counter/init/swept`, {}, key)).status).toBe(200);
  // the sweeper sees entries older than 30 s (or all, at a worker's start); these are 60 s old
  const late = await leftInOutbox('swept', 90_000, 60_000, 0);
  const due = await leftInOutbox('swept', 10_000, 60_000, 1);

  const sweptAt = await redisNow();
  // (the worker's own 30 s sweep may take them first: either way they are handed over once, by job id)
  await t.rt.jobs.sweepTasks();

  const lateJob = await t.rt.jobs.queue.getJob(`task-${late}`);
  // due 30 s after the sweep (less the time the sweep took), where a fresh 90 s delay would be 90 s
  const lateDueAt = lateJob!.timestamp + (lateJob!.delay ?? 0);
  expect(lateDueAt - sweptAt).toBeGreaterThan(25_000);
  expect(lateDueAt - sweptAt).toBeLessThanOrEqual(30_000 + 5_000);

  // the one whose 10 s passed runs now; the other has not
  await waitFor(async () => (await t.get(`/${t.projectId}/CALL/Counter/get/swept`, key)).body.count === 1, {
    timeoutMs: 20_000,
    what: 'the overdue task to run',
  });
  expect((await t.rt.jobs.queue.getJob(`task-${due}`))?.delay ?? 0).toBe(0);
  expect(await lateJob!.getState()).toBe('delayed');
  // both handed over: the outbox is empty
  expect(await t.rt.redis.xlen(t.rt.store.keys.bucket(0).tasks)).toBe(0);
});
