/**
 * A worker killed in the middle of sending a mail: the SMTP server holds its
 * answer to DATA until the worker process is SIGKILLed, so the mail is not
 * accepted; another worker takes the job over once its lock expires
 * (JOB_LOCK_MS) and the mail arrives exactly once. Real processes, real
 * Redis, real SMTP.
 */
import * as path from 'node:path';
import { EXAMPLE_CLASS_DIR, startTestRuntime, TEST_API_KEY, waitFor, type TestRuntime } from '../support/harness';
import { spawnRuntime, type RuntimeProcess } from '../support/process';
import { uniqueProjectId } from '../support/redis';
import { startSmtpSink, type SmtpSink } from './smtp-sink';

const CLASS_DIRS = `${EXAMPLE_CLASS_DIR},${path.join(__dirname, 'fixtures')}`;
const key = { 'x-api-key': TEST_API_KEY };

const running: RuntimeProcess[] = [];
let api: TestRuntime | undefined;
let sink: SmtpSink | undefined;

afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.kill()));
  await api?.stop();
  await sink?.close();
});

test('a worker killed mid-send: another worker delivers the mail exactly once', async () => {
  sink = await startSmtpSink();
  const projectId = uniqueProjectId('mk');
  const env = { CLASS_DIRS, SMTP_URL: sink.url, MAIL_BACKOFF_MS: '50' };
  api = await startTestRuntime({ projectId, env: { ...env, ROLES: 'api' } });
  const first = await spawnRuntime(projectId, { ...env, ROLES: 'worker' });
  running.push(first);

  const subject = `held ${projectId}`;
  // the first DATA of this mail is held unanswered; any later one is accepted
  sink.policy = (m) => (m.parsed.subject === subject && sink!.held.length === 0 ? 'hold' : 'accept');

  expect((await api.post(`/${projectId}/CALL/Mailer/open/box`, {}, key)).status).toBe(200);
  const res = await api.post(
    `/${projectId}/CALL/Mailer/notify/box`,
    { mail: { to: ['anna@example.com'], subject, html: '<p>once</p>' } },
    key,
  );
  expect(res.status).toBe(200);
  const messageId = `<${res.body.id}@${projectId}>`;

  const held = (await waitFor(() => sink!.held.find((h) => h.mail.messageId === messageId), {
    what: 'the first worker sending the mail',
  }))!;
  await first.kill();
  // its connection went with it: the held DATA can no longer be answered to it
  await waitFor(() => held.abandoned, { what: 'the killed worker’s SMTP connection closed' });
  expect(sink.acceptedWithId(messageId)).toEqual([]);

  running.push(await spawnRuntime(projectId, { ...env, ROLES: 'worker' }));
  await waitFor(() => sink!.acceptedWithId(messageId).length > 0, {
    timeoutMs: 30_000,
    what: 'the second worker delivering the mail',
  });
  await waitFor(async () => (await api!.rt.messages.queue.getJobState(res.body.id)) === 'completed', {
    what: 'the mail job completed',
  });
  expect(await api.rt.messages.wasSent(res.body.id)).toBe(true);

  const accepted = sink.acceptedWithId(messageId);
  expect(accepted).toHaveLength(1);
  expect(accepted[0]!.parsed.html).toContain('<p>once</p>');
  // two DATA commands for it in all: the held one, and the second worker's
  expect(sink.held).toHaveLength(1);
});
