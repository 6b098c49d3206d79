/**
 * Delivery of committed mails and SMS, never inside the request:
 *
 *  1. `ctx.mail.send` / `ctx.sms.send` make the message a committed effect of
 *     the handler's change (outbound.ts): written with the state in one Lua
 *     step, or not at all.
 *  2. After the commit the effect applier hands it to this BullMQ queue with
 *     the message id as job id, so a redelivered outbox entry (a crash between
 *     commit and hand-over, the sweeper) does not queue it twice. Messages
 *     handed over together (a fan-out's mails) are queued in batches of up to
 *     HAND_BATCH jobs, one Redis round trip each (Queue.addBulk).
 *  3. A worker (processes with the `worker` role) sends it through the
 *     port's transport, retrying with exponential backoff (MAIL_ATTEMPTS,
 *     MAIL_BACKOFF_MS). Right after the transport accepted it, the worker
 *     records `sent` for the message id; a delivery that finds the record
 *     (a job redelivered after its worker died, queued again after its job
 *     was removed) does not send again.
 *  4. A message the transport refuses for good (an SMTP 5xx for the message
 *     or its recipients) or that runs out of attempts goes to the dead-letter
 *     list `rt:<project>:msg:dead` (newest first, the last 10 000) and to the log.
 *
 * The queue's keys (BullMQ's) share the hash tag `rt:{<project>:msg}` (its
 * prefix), so BullMQ's scripts and transactions run in one slot of a Redis
 * Cluster. The records of sent messages and the dead-letter list are one key
 * per command (the list's LPUSH and LTRIM are one MULTI on the one key), each
 * in a slot of its own.
 *
 * The one window left: the transport accepted the message and the worker
 * died before recording it. The job is then run again by another worker after
 * JOB_LOCK_MS and the receiver gets the message twice, with the same
 * Message-ID (`<id@PROJECT_ID>`), which mail clients and many servers use to
 * recognise the copy. A transport cannot close it: SMTP has no way to ask a
 * server whether it accepted a message.
 */
import { Queue, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Effect } from '../actor/effects';
import type { RedisHealth } from '../redis/client';
import { connect, duplicate, type RedisConnection, type RedisTarget } from '../redis/connection';
import { maskAddress, maskPhone, MESSAGE_ID, type OutboundMail, type OutboundPort, type OutboundSms } from './message';
import { PermanentDeliveryError, type MailTransport, type SmsTransport } from './transport';
import { closeWithin, DEFAULT_CLOSE_TIMEOUT_MS } from '../queue/close';

export interface MessageJob {
  port: OutboundPort;
  message: OutboundMail | OutboundSms;
  /** the class and instance whose change sent it (for the log and the dead letter) */
  from?: { classId?: string; instanceId?: string };
  /** queued again from its dead letter by an operator (its failed job was gone) */
  requeued?: boolean;
}

export interface DeadLetter extends MessageJob {
  id: string;
  reason: string;
  attempts: number;
  time: string;
}

/** Told of each delivery's outcome (runtime/metrics.ts): called in the worker that sent, or gave up on, the message. */
export interface DeliveryObserver {
  /** accepted by the transport, `seconds` after it was handed to the queue */
  messageSent(port: OutboundPort, seconds: number): void;
  /** an attempt beyond the first starts */
  messageRetried(port: OutboundPort): void;
  /** given up on: dead-lettered */
  messageFailed(port: OutboundPort): void;
}

export interface MessageDeliveryOptions {
  /** the Redis (server or cluster) the queue lives in */
  redis: RedisTarget;
  projectId: string;
  mail: MailTransport;
  sms: SmsTransport;
  logger: Logger;
  /** how long close() waits for the worker's running sends and connections before it closes by force */
  closeTimeoutMs?: number;
  /** tries per message before it is dead-lettered */
  attempts: number;
  /** first retry delay, doubled for each further try */
  backoffMs: number;
  /** messages sent at once per worker process */
  concurrency: number;
  /** BullMQ job lock: how soon a dead worker's message is taken over */
  lockMs: number;
  /** the connection that queues (with a command time-out) and the worker's overrides of it (BullMQ's blocking settings) */
  redisOptions?: { queue: RedisOptions; worker: RedisOptions };
  redisHealth?: RedisHealth;
}

/** how long the record of a sent message, and a failed job, are kept */
export const SENT_RECORD_TTL_S = 7 * 24 * 3600;
/**
 * how long a sent message's job (which holds the whole message) is kept: its id
 * keeps a redelivered outbox entry from queuing it again meanwhile; later the
 * record of the send stops it, at a few bytes instead of the message
 */
const COMPLETED_JOB_TTL_S = 24 * 3600;
const DEAD_LETTERS_KEPT = 10_000;
/** messages queued in one addBulk at most (a fan-out hands thousands over at once) */
const HAND_BATCH = 1000;

interface Handed {
  job: { name: OutboundPort; data: MessageJob; opts: JobsOptions };
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class MessageDelivery {
  readonly queueName: string;
  /** BullMQ's key prefix of the queue: the project's message hash tag, `rt:{<project>:msg}` */
  readonly queuePrefix: string;
  readonly queue: Queue<MessageJob>;
  private readonly connection: RedisConnection;
  private worker?: Worker<MessageJob>;
  private workerConnection?: RedisConnection;
  /** the worker's records of sent messages: waits for Redis rather than failing a send it made */
  private records?: RedisConnection;
  private readonly base: string;
  /** messages handed over since the last batch was queued */
  private handed: Handed[] = [];
  /** told of sends, retries and dead letters (the runtime's metrics) */
  observer?: DeliveryObserver;

  constructor(private readonly opts: MessageDeliveryOptions) {
    // the name as before the queue had a prefix of its own (the QUEUED_WRITE queues' are their buckets' tags)
    this.queueName = `msg-${opts.projectId}`;
    this.queuePrefix = `rt:{${opts.projectId}:msg}`;
    this.base = `rt:${opts.projectId}:msg`;
    this.connection = connect(opts.redis, opts.redisOptions?.queue ?? { maxRetriesPerRequest: null });
    this.queue = new Queue<MessageJob>(this.queueName, { connection: this.connection, prefix: this.queuePrefix });
    opts.redisHealth?.watch(this.queue, 'message queue');
  }

  /** Redis key of the record that message `id` was sent */
  sentKey(id: string): string {
    return `${this.base}:sent:${id}`;
  }

  /** Redis list of dead letters, newest first */
  get deadKey(): string {
    return `${this.base}:dead`;
  }

  /**
   * The dead letter of message `id` as it stands in the list (its exact
   * JSON, which LREM needs), kept while the letter is: a message sent after
   * all (retried from the console or the CLI) takes its letter out of the list.
   */
  deadMarkKey(id: string): string {
    return `${this.base}:dead:${id}`;
  }

  /**
   * Queues a committed message (an effect with `port`); queuing it again while
   * its job is kept does nothing. Resolves once it is queued: messages handed
   * over in the same turn of the event loop are queued together (addBulk; one
   * that fails fails its batch, and the effect applier hands each over again).
   */
  hand(effect: Effect): Promise<void> {
    if (!effect.port) return Promise.reject(new Error(`effect ${effect.id} is not a message`));
    const data: MessageJob = {
      port: effect.port,
      message: effect.body as OutboundMail | OutboundSms,
      from: { classId: effect.identity.classId, instanceId: effect.identity.instanceId },
    };
    const opts: JobsOptions = {
      jobId: effect.id,
      attempts: this.opts.attempts,
      backoff: { type: 'exponential', delay: this.opts.backoffMs },
      removeOnComplete: { age: COMPLETED_JOB_TTL_S },
      removeOnFail: { age: SENT_RECORD_TTL_S },
    };
    return new Promise<void>((resolve, reject) => {
      if (!this.handed.length) setImmediate(() => this.queueHanded());
      this.handed.push({ job: { name: effect.port!, data, opts }, resolve, reject });
      if (this.handed.length >= HAND_BATCH) this.queueHanded();
    });
  }

  /** Queues the messages handed over so far in one addBulk. */
  private queueHanded(): void {
    const batch = this.handed;
    if (!batch.length) return;
    this.handed = [];
    this.queue.addBulk(batch.map((h) => h.job)).then(
      () => batch.forEach((h) => h.resolve()),
      (err: unknown) => batch.forEach((h) => h.reject(err)),
    );
  }

  startWorker(): void {
    if (this.worker) return;
    this.workerConnection = duplicate(this.connection, this.opts.redisOptions?.worker);
    this.records = duplicate(this.connection, this.opts.redisOptions?.worker);
    this.worker = new Worker<MessageJob>(this.queueName, (job) => this.process(job), {
      connection: this.workerConnection,
      prefix: this.queuePrefix,
      concurrency: this.opts.concurrency,
      lockDuration: this.opts.lockMs,
      stalledInterval: this.opts.lockMs,
      maxStalledCount: 3,
      runRetryDelay: 1000,
    });
    this.worker.on(
      'error',
      (err) => this.opts.redisHealth?.failed(err) || this.opts.logger.error({ err }, 'message worker error'),
    );
  }

  private async process(job: Job<MessageJob>): Promise<{ sent: boolean }> {
    const id = job.id!;
    const { port, message } = job.data;
    if (!MESSAGE_ID.test(id) || message.id !== id)
      throw new UnrecoverableError(`job ${id} does not carry message ${message.id}`);
    const records = this.records!;
    // an attempt after a failed one (a retry from the backoff, or by an operator after it was given up on)
    if (job.attemptsMade > 0) this.observer?.messageRetried(port);
    if ((await records.exists(this.sentKey(id))) === 1) {
      this.opts.logger.info({ messageId: id, port }, 'message sent before: not sent again');
      return { sent: false };
    }
    try {
      if (port === 'mail') await this.opts.mail.send(message as OutboundMail);
      else await this.opts.sms.send(message as OutboundSms);
    } catch (err) {
      const permanent = err instanceof PermanentDeliveryError;
      const attempts = job.attemptsMade + 1;
      if (permanent || attempts >= (job.opts.attempts ?? 1)) {
        const reason = permanent
          ? `refused: ${(err as Error).message}`
          : `still failing after ${attempts} attempts: ${(err as Error).message}`;
        await this.deadLetter(id, job.data, reason, attempts);
        this.observer?.messageFailed(port);
        throw new UnrecoverableError(reason);
      }
      this.opts.logger.warn(
        { messageId: id, port, attempt: attempts, err: (err as Error).message },
        'message not delivered yet; retried',
      );
      throw err;
    }
    // accepted: recorded at once, so no later delivery of this id sends it again
    await records.set(this.sentKey(id), String(Date.now()), 'EX', SENT_RECORD_TTL_S);
    this.observer?.messageSent(port, Math.max(0, (Date.now() - job.timestamp) / 1000));
    // only a message that failed an attempt may have a dead letter: a first-time send pays nothing for it
    if (job.attemptsMade > 0 || job.data.requeued)
      await this.dropDeadLetter(id).catch((err: Error) =>
        this.opts.logger.warn(
          { messageId: id, err: err.message },
          'the dead letter of a message sent after all was not removed',
        ),
      );
    this.opts.logger.info(
      {
        messageId: id,
        port,
        to: recipientsForLog(job.data),
        transport: port === 'mail' ? this.opts.mail.kind : this.opts.sms.kind,
      },
      'message sent',
    );
    return { sent: true };
  }

  private async deadLetter(id: string, data: MessageJob, reason: string, attempts: number): Promise<void> {
    const letter: DeadLetter = { id, ...data, reason, attempts, time: new Date().toISOString() };
    const json = JSON.stringify(letter);
    await this.records!.multi()
      .lpush(this.deadKey, json)
      .ltrim(this.deadKey, 0, DEAD_LETTERS_KEPT - 1)
      .exec();
    // a letter trimmed off the list leaves a marker that points at nothing: it expires with the failed job
    await this.records!.set(this.deadMarkKey(id), json, 'EX', SENT_RECORD_TTL_S);
    this.opts.logger.error(
      { messageId: id, port: data.port, to: recipientsForLog(data), from: data.from, attempts, reason },
      'message dead-lettered',
    );
  }

  /** The newest dead letters first. */
  async deadLetters(limit = 100): Promise<DeadLetter[]> {
    const rows = await this.connection.lrange(this.deadKey, 0, Math.max(0, limit - 1));
    return rows.map((r) => JSON.parse(r) as DeadLetter);
  }

  /** How many dead letters are kept (the newest DEAD_LETTERS_KEPT). */
  async deadLetterCount(): Promise<number> {
    return this.connection.llen(this.deadKey);
  }

  /** Takes the dead letter of message `id` out of the list (true when there was one). */
  async dropDeadLetter(id: string): Promise<boolean> {
    const redis = this.records ?? this.connection;
    const json = await redis.get(this.deadMarkKey(id));
    if (json === null) return false;
    const removed = await redis.lrem(this.deadKey, 0, json);
    await redis.del(this.deadMarkKey(id));
    return removed > 0;
  }

  /**
   * Sends dead letter `id` again (`cli dead-letters:retry`): its failed job
   * is retried, or queued again with the letter's message when the job was
   * removed meanwhile. The letter leaves the list once the message is sent;
   * a message that fails again is dead-lettered again. False: no such letter.
   */
  async retryDeadLetter(id: string): Promise<boolean> {
    if (!MESSAGE_ID.test(id)) return false;
    const json = await this.connection.get(this.deadMarkKey(id));
    const letter = json
      ? (JSON.parse(json) as DeadLetter)
      : (await this.deadLetters(DEAD_LETTERS_KEPT)).find((l) => l.id === id);
    if (!letter) return false;
    if (!json) await this.connection.set(this.deadMarkKey(id), JSON.stringify(letter), 'EX', SENT_RECORD_TTL_S);
    const job = await this.queue.getJob(id);
    const state = job ? await job.getState() : 'unknown';
    if (job && state === 'failed') await job.retry('failed');
    else if (!job) {
      await this.queue.add(
        letter.port,
        { port: letter.port, message: letter.message, from: letter.from, requeued: true },
        {
          jobId: id,
          attempts: this.opts.attempts,
          backoff: { type: 'exponential', delay: this.opts.backoffMs },
          removeOnComplete: { age: COMPLETED_JOB_TTL_S },
          removeOnFail: { age: SENT_RECORD_TTL_S },
        },
      );
    }
    // a job still waiting or running is left to finish: its outcome decides the letter
    return true;
  }

  /** Was message `id` sent (by any worker)? */
  async wasSent(id: string): Promise<boolean> {
    return (await this.connection.exists(this.sentKey(id))) === 1;
  }

  async close(): Promise<void> {
    await closeWithin(
      'message worker',
      this.worker,
      this.opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS,
      this.opts.logger,
    );
    await closeWithin(
      'message queue',
      this.queue,
      this.opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS,
      this.opts.logger,
    );
    await Promise.all([this.opts.mail.close(), this.opts.sms.close()]);
    this.workerConnection?.disconnect();
    this.records?.disconnect();
    this.connection.disconnect();
  }
}

/** Recipients as the log shows them: mail addresses and phone numbers masked. */
function recipientsForLog(data: MessageJob): string[] {
  if (data.port === 'sms') return (data.message as OutboundSms).to.map(maskPhone);
  const m = data.message as OutboundMail;
  return [...m.to, ...(m.cc ?? []), ...(m.bcc ?? [])].map(maskAddress);
}
