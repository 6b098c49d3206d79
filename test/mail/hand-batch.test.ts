/**
 * Handing a fan-out's messages to the delivery queue (runtime/mail/delivery.ts):
 * thousands handed over at once are queued in batches, each message once,
 * and handing them over again (a redelivered outbox entry) queues nothing new.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Effect } from '../../runtime/actor/effects';
import { MessageDelivery } from '../../runtime/mail/delivery';
import { EmbeddedMailTransport } from '../../runtime/mail/eml-transport';
import type { OutboundMail } from '../../runtime/mail/message';
import { SmsOutboxTransport } from '../../runtime/mail/sms-outbox';
import { createLogger } from '../../runtime/logger';
import { redisUrl, uniqueProjectId } from '../support/redis';

const dataDir = path.join(os.tmpdir(), `mail-hand-${randomUUID()}`);
let d: MessageDelivery;

beforeAll(() => {
  const projectId = uniqueProjectId('mh');
  const logger = createLogger('silent');
  // no worker: what the queue holds is what was handed over
  d = new MessageDelivery({
    redis: { kind: 'single', url: redisUrl() },
    projectId,
    mail: new EmbeddedMailTransport(path.join(dataDir, 'mail'), { projectId, defaultFrom: 'service@example.com' }),
    sms: new SmsOutboxTransport(path.join(dataDir, 'sms'), logger),
    logger,
    attempts: 3,
    backoffMs: 20,
    concurrency: 4,
    lockMs: 3000,
  });
});
afterAll(async () => {
  await d.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

function mailEffect(i: number): Effect {
  const id = randomUUID();
  const body: OutboundMail = { id, to: [`member${i}@example.com`], subject: `m ${i}`, html: '<p>x</p>' };
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

test('2 500 messages handed over at once are queued once each; handed over again, nothing new is queued', async () => {
  const effects = Array.from({ length: 2500 }, (_, i) => mailEffect(i));
  await Promise.all(effects.map((e) => d.hand(e)));
  expect(await d.queue.getWaitingCount()).toBe(2500);
  const sample = [effects[0]!, effects[999]!, effects[1000]!, effects[2499]!];
  for (const e of sample) expect((await d.queue.getJob(e.id))?.data.message).toEqual(e.body);

  const more = mailEffect(2500);
  await Promise.all([...effects, more].map((e) => d.hand(e)));
  expect(await d.queue.getWaitingCount()).toBe(2501);
});

test('an effect that is not a message is refused, and the others handed over with it are queued', async () => {
  const before = await d.queue.getWaitingCount();
  const good = mailEffect(1);
  const notMessage: Effect = { ...mailEffect(2), port: undefined };
  const [a, b] = await Promise.allSettled([d.hand(good), d.hand(notMessage)]);
  expect(a.status).toBe('fulfilled');
  expect(b.status).toBe('rejected');
  expect(await d.queue.getWaitingCount()).toBe(before + 1);
});
