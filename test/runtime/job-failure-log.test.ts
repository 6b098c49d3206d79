/**
 * A QUEUED_WRITE job's failed attempts are in the service log: a warning for
 * an attempt that will be retried, an error for the last one (or for a
 * refusal, which is not retried), each naming the class, method, instance,
 * job, attempt and error, never the job's body. Real runtime, real queue,
 * real log lines.
 */
import * as path from 'node:path';
import { loadConfig } from '../../runtime/config';
import { Runtime } from '../../runtime/runtime';
import { testEnv, waitFor } from '../support/harness';
import { capturedLogger } from '../support/log-lines';
import { uniqueProjectId } from '../support/redis';

let rt: Runtime;
const { lines, logger } = capturedLogger();
const SECRET = 'S3CRET-body-value-7f1c';

beforeAll(async () => {
  const projectId = uniqueProjectId('jobfail');
  const env = testEnv(projectId, { CLASS_DIRS: path.join(__dirname, 'job-failure-fixtures') });
  rt = await Runtime.create(loadConfig(env), env.REDIS_URL, { logger });
  await rt.start(0);
});
afterAll(() => rt?.stop());

async function finished(jobId: string) {
  return waitFor(
    async () => {
      const { status } = await rt.jobs.status(jobId);
      return status.status === 'completed' || status.status === 'failed' ? status : undefined;
    },
    { what: `job ${jobId}` },
  );
}

const aboutJob = (jobId: string) => lines.filter((l) => l.jobId === jobId);

test('an attempt that will be retried is a warning, the last one an error, both naming the job and the error but not the body', async () => {
  await rt.call('Flaky', 'open', 'f-1', {});
  const { jobId } = (await rt.call('Flaky', 'crash', 'f-1', { secret: SECRET, note: SECRET })).body as {
    jobId: string;
  };
  expect(await finished(jobId)).toMatchObject({ status: 'failed', attemptsMade: 2 });
  await waitFor(() => aboutJob(jobId).length >= 2, { what: 'two log lines about the job' });
  const [first, last] = aboutJob(jobId);
  const named = { classId: 'Flaky', method: 'crash', instanceId: 'f-1', jobId, attempts: 2 };
  const err = {
    type: 'TypeError',
    message: "Cannot read properties of undefined (reading 'event')",
    stack: expect.stringContaining('Flaky.class.ts'),
  };
  expect(first).toMatchObject({ level: 40, ...named, attempt: 1, error: err });
  expect(last).toMatchObject({ level: 50, ...named, attempt: 2, error: err });
  expect(aboutJob(jobId)).toHaveLength(2);
  expect(JSON.stringify(lines)).not.toContain(SECRET);
});

test('a refusal is not retried: one error line with its code and status', async () => {
  await rt.call('Flaky', 'open', 'f-2', {});
  const { jobId } = (await rt.call('Flaky', 'refuse', 'f-2', { secret: SECRET })).body as { jobId: string };
  expect(await finished(jobId)).toMatchObject({ status: 'failed', attemptsMade: 1, error: { status: 400 } });
  const line = (await waitFor(() => aboutJob(jobId)[0], { what: 'the log line about the job' }))!;
  expect(line).toMatchObject({
    level: 50,
    classId: 'Flaky',
    method: 'refuse',
    instanceId: 'f-2',
    attempt: 1,
    attempts: 5,
    error: { code: 90400, status: 400, message: 'refused for instance f-2' },
  });
  expect(aboutJob(jobId)).toHaveLength(1);
  expect(JSON.stringify(lines)).not.toContain(SECRET);
});

test('a delayed task: a warning for an attempt that will be retried, an error for a refusal, neither with the body', async () => {
  await rt.call('Flaky', 'open', 'f-3', {});
  const tasksAbout = (method: string) => lines.filter((l) => l.method === method && l.instanceId === 'f-3');
  await rt.call('Flaky', 'later', 'f-3', { method: 'crashTask', secret: SECRET });
  const crashed = (await waitFor(() => tasksAbout('crashTask')[0], { what: "the crashed task's log line" }))!;
  expect(crashed).toMatchObject({
    level: 40,
    msg: 'delayed task attempt failed; it will be retried',
    classId: 'Flaky',
    taskId: expect.any(String),
    jobId: `task-${crashed.taskId}`,
    attempt: 1,
    attempts: 5,
    error: { type: 'TypeError', message: 'task crashed on f-3' },
  });

  await rt.call('Flaky', 'later', 'f-3', { method: 'refuseTask', secret: SECRET });
  const refused = (await waitFor(() => tasksAbout('refuseTask')[0], { what: "the refused task's log line" }))!;
  expect(refused).toMatchObject({
    level: 50,
    msg: 'delayed task failed',
    attempt: 1,
    error: { code: 90401, status: 400, message: 'task refused for instance f-3' },
  });
  expect(tasksAbout('refuseTask')).toHaveLength(1);
  expect(JSON.stringify(lines)).not.toContain(SECRET);
});
