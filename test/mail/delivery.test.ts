/**
 * The message queue on real Redis and BullMQ, with the real SMTP adapter
 * against a real SMTP server: queued once per message id, sent once per
 * message id, retried with backoff, dead-lettered when refused for good or out
 * of attempts; SMS kept in the outbox with masked numbers in the log.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Effect } from '../../runtime/actor/effects';
import { MessageDelivery } from '../../runtime/mail/delivery';
import type { OutboundMail, OutboundSms } from '../../runtime/mail/message';
import { SmsOutboxTransport } from '../../runtime/mail/sms-outbox';
import { SmtpMailTransport } from '../../runtime/mail/smtp-transport';
import { createLogger } from '../../runtime/logger';
import { waitFor } from '../support/harness';
import { redisUrl, uniqueProjectId } from '../support/redis';
import { startSmtpSink, type SmtpSink } from './smtp-sink';

const dataDir = path.join(os.tmpdir(), `mail-delivery-${randomUUID()}`);
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(() => sink.close());
beforeEach(() => {
  sink.policy = () => 'accept';
});

const open: MessageDelivery[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((d) => d.close()));
});

function delivery(
  projectId: string,
  opts: { attempts?: number; worker?: boolean; log?: string[] } = {},
): MessageDelivery {
  const lines = opts.log;
  const logger = createLogger('info', [], { write: (line: string) => void lines?.push(line) });
  const d = new MessageDelivery({
    redis: { kind: 'single', url: redisUrl() },
    projectId,
    mail: new SmtpMailTransport({ url: sink.url, projectId, defaultFrom: 'service@example.com' }),
    sms: new SmsOutboxTransport(path.join(dataDir, projectId, 'sms'), logger),
    logger,
    attempts: opts.attempts ?? 5,
    backoffMs: 20,
    concurrency: 4,
    lockMs: 3000,
  });
  open.push(d);
  if (opts.worker !== false) d.startWorker();
  return d;
}

function mailEffect(extra: Partial<OutboundMail> = {}): Effect {
  const id = randomUUID();
  const body: OutboundMail = { id, to: ['anna@example.com'], subject: `m ${id}`, html: '<p>x</p>', ...extra };
  return {
    id,
    port: 'mail',
    classId: '@mail',
    method: 'send',
    instanceId: id,
    body,
    identity: { type: 'class', classId: 'Mailer', instanceId: 'i1' },
  };
}

async function finished(
  d: MessageDelivery,
  id: string,
): Promise<{ state: string; attemptsMade: number; returnvalue: unknown }> {
  return (await waitFor(
    async () => {
      const state = await d.queue.getJobState(id);
      if (state !== 'completed' && state !== 'failed') return undefined;
      // read after its state: a job read before may be an attempt behind
      const job = (await d.queue.getJob(id))!;
      return { state, attemptsMade: job.attemptsMade, returnvalue: job.returnvalue };
    },
    { what: `job ${id} finished` },
  ))!;
}

test('a message handed over twice is queued and sent once', async () => {
  const projectId = uniqueProjectId('md');
  const d = delivery(projectId);
  const e = mailEffect();
  await Promise.all([d.hand(e), d.hand(e)]);
  await d.hand(e);
  expect(await finished(d, e.id)).toMatchObject({ state: 'completed', returnvalue: { sent: true } });
  await d.hand(e); // after it completed: BullMQ keeps the job, so it is not queued again
  expect(await d.queue.getJobCounts('wait', 'active', 'delayed')).toEqual({ wait: 0, active: 0, delayed: 0 });
  expect(sink.acceptedWithId(`<${e.id}@${projectId}>`)).toHaveLength(1);
  expect(await d.wasSent(e.id)).toBe(true);
});

test('a message recorded as sent is not sent again, even when its job is queued anew', async () => {
  const projectId = uniqueProjectId('md');
  const d = delivery(projectId);
  const e = mailEffect();
  await d.hand(e);
  await finished(d, e.id);
  const before = sink.dataCount();
  // the job is gone (removed, or its retention passed) but the record of the send is not: queued again, skipped
  await (await d.queue.getJob(e.id))!.remove();
  await d.hand(e);
  expect(await finished(d, e.id)).toMatchObject({ state: 'completed', returnvalue: { sent: false } });
  expect(sink.dataCount()).toBe(before);
  expect(sink.acceptedWithId(`<${e.id}@${projectId}>`)).toHaveLength(1);
});

test('nothing is sent without a worker: API-only processes only queue', async () => {
  const projectId = uniqueProjectId('md');
  const d = delivery(projectId, { worker: false });
  const e = mailEffect();
  await d.hand(e);
  expect(await (await d.queue.getJob(e.id))!.getState()).toBe('waiting');
  const w = delivery(projectId);
  expect(await finished(w, e.id)).toMatchObject({ state: 'completed' });
  expect(sink.acceptedWithId(`<${e.id}@${projectId}>`)).toHaveLength(1);
});

test('a temporary refusal is retried with backoff until the server accepts', async () => {
  const projectId = uniqueProjectId('md');
  const d = delivery(projectId);
  const e = mailEffect();
  let tries = 0;
  sink.policy = (m) =>
    m.messageId === `<${e.id}@${projectId}>` && ++tries <= 2 ? { code: 451, message: 'greylisted' } : 'accept';
  await d.hand(e);
  expect(await finished(d, e.id)).toMatchObject({ state: 'completed', attemptsMade: 3 });
  expect(tries).toBe(3);
  expect(sink.acceptedWithId(`<${e.id}@${projectId}>`)).toHaveLength(1);
  expect(await d.deadLetters()).toEqual([]);
});

test('a permanent refusal is dead-lettered at once, with the reason, and logged', async () => {
  const projectId = uniqueProjectId('md');
  const log: string[] = [];
  const d = delivery(projectId, { log });
  const e = mailEffect({ to: ['gone@example.com'] });
  sink.policy = (m) => (m.messageId === `<${e.id}@${projectId}>` ? { code: 550, message: 'no such user' } : 'accept');
  await d.hand(e);
  expect(await finished(d, e.id)).toMatchObject({ state: 'failed', attemptsMade: 1 });
  const [letter, ...more] = await d.deadLetters();
  expect(more).toEqual([]);
  // what /metrics reads as runtime_dead_letters{kind="message"}
  expect(await d.deadLetterCount()).toBe(1);
  expect(letter).toMatchObject({
    id: e.id,
    port: 'mail',
    attempts: 1,
    from: { classId: 'Mailer', instanceId: 'i1' },
    message: { to: ['gone@example.com'] },
  });
  expect(letter!.reason).toMatch(/^refused: .*no such user/);
  const line = log.map((l) => JSON.parse(l)).find((l) => l.msg === 'message dead-lettered');
  expect(line).toMatchObject({ messageId: e.id, to: ['g***@example.com'] });
  expect(JSON.stringify(line)).not.toContain('gone@example.com');
});

test('a message still failing after its attempts is dead-lettered', async () => {
  const projectId = uniqueProjectId('md');
  const d = delivery(projectId, { attempts: 3 });
  const e = mailEffect();
  sink.policy = (m) => (m.messageId === `<${e.id}@${projectId}>` ? { code: 421, message: 'busy' } : 'accept');
  await d.hand(e);
  expect(await finished(d, e.id)).toMatchObject({ state: 'failed', attemptsMade: 3 });
  const letters = await d.deadLetters();
  expect(letters.map((l) => l.id)).toEqual([e.id]);
  expect(letters[0]!.reason).toMatch(/still failing after 3 attempts/);
  expect(await d.wasSent(e.id)).toBe(false);
});

test('an SMS is kept in the outbox file and logged with masked numbers', async () => {
  const projectId = uniqueProjectId('md');
  const log: string[] = [];
  const d = delivery(projectId, { log });
  const id = randomUUID();
  const body: OutboundSms = { id, to: ['+4479001234567'], text: 'Your code is 424242' };
  await d.hand({
    id,
    port: 'sms',
    classId: '@sms',
    method: 'send',
    instanceId: id,
    body,
    identity: { type: 'system' },
  });
  expect(await finished(d, id)).toMatchObject({ state: 'completed' });
  const lines = (await fs.readFile(path.join(dataDir, projectId, 'sms', 'outbox.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toEqual([{ id, time: expect.any(String), to: ['+4479001234567'], text: 'Your code is 424242' }]);
  const all = log.join('');
  expect(all).toContain('***********567');
  expect(all).not.toContain('4479001234567');
  expect(all).not.toContain('424242');
});
