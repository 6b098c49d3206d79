import { randomUUID } from 'node:crypto';
import { DelayedError, Job, Queue, UnrecoverableError, Worker, type JobsOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { CallRequest, JobSink, ScheduledTask } from '../actor/call-request';
import type { Dispatcher } from '../actor/dispatcher';
import { defineActorScripts, type ScriptedRedis, type StateStore, type StreamEntry } from '../actor/state-store';
import type { CallResult } from '../types/calls';
import type { Identity } from '../types/identity';
import { ActorError, RuntimeCodes, runtimeError, unknownInstanceError } from '../errors';
import type { RedisHealth } from '../redis/client';
import { connect, duplicate, type RedisConnection, type RedisTarget } from '../redis/connection';
import { closeWithin, DEFAULT_CLOSE_TIMEOUT_MS } from './close';
import { luaSource } from '../actor/lua-source';

interface CallJobData {
  kind: 'call';
  classId: string;
  method: string;
  instanceId: string;
  body: unknown;
  identity: Identity;
  requestId?: string;
}

interface TaskJobData {
  kind: 'task';
  task: ScheduledTask;
}

type JobData = CallJobData | TaskJobData;

/** What a caller sees of a QUEUED_WRITE job. */
export interface JobStatus {
  jobId: string;
  classId: string;
  method: string;
  instanceId: string;
  /** queued | running | retrying | completed | failed */
  status: string;
  attemptsMade: number;
  result?: { status: number; body: unknown };
  error?: { status: number; body: unknown };
  createdAt: number;
  finishedAt?: number;
}

interface StoredOutcome extends CallResult {
  failed?: boolean;
}

export interface JobQueueOptions {
  /** the Redis (server or cluster) the queues live in: the state store's */
  redis: RedisTarget;
  projectId: string;
  store: StateStore;
  dispatcher: Dispatcher;
  logger: Logger;
  /** how long close() waits for the worker's running jobs and connections before it closes by force */
  closeTimeoutMs?: number;
  /** jobs a worker process runs at once, spread over the bucket queues (at least one each) */
  concurrency: number;
  lockMs: number;
  attempts?: (classId: string, method: string) => number | undefined;
  /** the queue connection (enqueues: with a command time-out) and the worker's overrides of it (BullMQ's blocking settings) */
  redisOptions?: { queue: RedisOptions; worker: RedisOptions };
  /** told of Redis outages (one log line each) instead of logging every failed attempt */
  redisHealth?: RedisHealth;
  /** how long a job waiting behind another sleeps before it looks again (default PARKED_MS) */
  parkedMs?: number;
}

/** Told of QUEUED_WRITE retries and final failures (runtime/metrics.ts). */
export interface JobOutcomeObserver {
  queuedWriteRetried(classId: string, method: string): void;
  queuedWriteFailed(classId: string, method: string): void;
}

/** jobs looked at in each of the delayed set and the wait list for due tasks: bounded, as a scrape must be */
export const DUE_TASK_SCAN = 1000;

const DEFAULT_ATTEMPTS = 5;
/** BullMQ's name of the QUEUED_WRITE queue, in each bucket (prefix `rt:{<project>:<b>}`) */
const QUEUE_NAME = 'jobs';
/**
 * A job queued behind another of its instance waits in BullMQ's delayed set
 * until its predecessor's commit hands it on (promotes it). This long only in
 * case that hand-over never came (the predecessor's worker died between its
 * commit and the promotion): then it wakes, finds itself at the head, and runs.
 */
export const PARKED_MS = 30_000;
const RESULT_TTL_S = 7 * 24 * 3600;
const TASK_SWEEP_AGE_MS = 30_000;

export function isRetryable(err: unknown): boolean {
  if (!(err instanceof ActorError)) return true;
  if (err.retryable) return true;
  return err.status >= 500 && err.code !== 'UNKNOWN_INSTANCE';
}

/** What a log line tells of a job's error: what names it, never its details (they may echo the body). */
function errorForLog(err: unknown): Record<string, unknown> {
  if (err instanceof ActorError) return { type: err.name, code: err.code, status: err.status, message: err.message };
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { type: typeof err, message: String(err) };
}

/**
 * QUEUED_WRITE calls and delayed tasks on BullMQ.
 *
 * FIFO per instance: each job is registered, with a sequence number, in its
 * instance's pending set (atomically with the sequence counter) before it is
 * queued. A worker runs a job only when it heads that set; otherwise the job is
 * pushed back a little (DelayedError) so no worker slot is held while waiting.
 * A retried job keeps its place at the head, so later jobs wait for it.
 *
 * Applied once: the commit of a job's state change also removes it from the
 * pending set and stores its result, in one Lua step. A redelivered job (its
 * worker died after the commit) is no longer pending and returns the stored
 * result without running again.
 */
export class JobQueue implements JobSink {
  /** BullMQ's name of each bucket's queue (its prefix is the bucket's hash tag) */
  readonly queueName = QUEUE_NAME;
  private readonly connection: RedisConnection;
  /** one queue per bucket: a job lives in its instance's bucket, so its registration and its add are one MULTI in one slot */
  readonly queues: Queue<JobData>[];
  private workers: Worker<JobData>[] = [];
  private workerConnection?: RedisConnection;
  private sweeper?: NodeJS.Timeout;
  /** told of QUEUED_WRITE retries and final failures (the runtime's metrics) */
  observer?: JobOutcomeObserver;

  constructor(private readonly opts: JobQueueOptions) {
    this.connection = connect(
      opts.redis,
      opts.redisOptions?.queue ?? { maxRetriesPerRequest: null, lazyConnect: false },
    );
    // the MULTI that registers a job and adds it to BullMQ runs the FIFO script on this connection
    defineActorScripts(this.connection);
    this.queues = opts.store.keys.all.map(
      (b) => new Queue<JobData>(QUEUE_NAME, { connection: this.connection, prefix: b.queuePrefix }),
    );
    for (const q of this.queues) this.opts.redisHealth?.watch(q, 'queue');
  }

  /** bucket 0's queue (the only one with one bucket) */
  get queue(): Queue<JobData> {
    return this.queues[0];
  }

  /** the queue of instance `classId`/`instanceId`'s bucket */
  queueOf(classId: string, instanceId: string): Queue<JobData> {
    return this.queues[this.keys.bucketOf(classId, instanceId)];
  }

  /** the queue job `jobId` is in (undefined: its id names no bucket of this project) */
  queueOfJob(jobId: string): Queue<JobData> | undefined {
    const b = this.keys.bucketOfJob(jobId);
    return b === undefined ? undefined : this.queues[b];
  }

  /** job `jobId`, from its bucket's queue */
  async getJob(jobId: string): Promise<Job<JobData> | undefined> {
    return (await this.queueOfJob(jobId)?.getJob(jobId)) ?? undefined;
  }

  private get keys() {
    return this.opts.store.keys;
  }

  /**
   * Queues a QUEUED_WRITE. Its registration in the instance's FIFO and BullMQ's
   * add of it are one MULTI, so no worker ever sees a registered job BullMQ does
   * not know (which it would take for dead), nor a BullMQ job that is not
   * registered. A job behind others is added parked (delayed by PARKED_MS) and
   * handed on by its predecessor's commit; one at the head is added ready.
   */
  async enqueueCall(
    req: CallRequest,
    instanceId: string,
    upsert = false,
    chosenId?: string,
  ): Promise<{ jobId: string }> {
    const k = this.keys;
    const bucket = k.bucketOf(req.classId, instanceId);
    const queue = this.queues[bucket];
    const jobId = k.jobId(req.classId, instanceId, chosenId ?? randomUUID());
    const inst = k.instance(req.classId, instanceId);
    const pending = k.pendingJobs(req.classId, instanceId);
    const resultKey = k.jobResult(req.classId, instanceId, jobId);
    // a look before the atomic step: a missing instance or a finished job is answered without touching
    // BullMQ, and a job that will wait behind others is added parked instead of being picked up to be put back
    const ahead = await this.connection.pipeline().hexists(inst, 'v').exists(resultKey).zcard(pending).exec();
    const [exists, done, depth] = (ahead ?? []).map(([err, v]) => {
      if (err) throw err;
      return Number(v);
    });
    const missing = () => unknownInstanceError(this.opts.projectId, req.classId, req.instanceId ?? instanceId);
    if (!upsert && !exists) throw missing();
    // a job id chosen up front (a task's, a committed enqueue's) that already ran: delivered again, not run again
    if (done) return { jobId };
    const parked = depth > 0;
    const data: CallJobData = {
      kind: 'call',
      classId: req.classId,
      method: req.method,
      instanceId,
      body: req.body ?? {},
      identity: req.identity,
      requestId: req.requestId,
    };
    const opts: JobsOptions = {
      jobId,
      attempts: this.opts.attempts?.(req.classId, req.method) ?? DEFAULT_ATTEMPTS,
      backoff: { type: 'exponential', delay: 500 },
      removeOnComplete: { age: RESULT_TTL_S },
      removeOnFail: { age: RESULT_TTL_S },
      ...(parked ? { delay: this.parkedMs } : {}),
    };
    // an instance removed since the look: the job ends at once on this refusal, which the caller is answered too
    const refusal: StoredOutcome = { status: 500, body: missing().toBody(), headers: {}, failed: true };
    // the instance's keys and its bucket queue's keys share one hash tag: one MULTI on a cluster too
    const multi = (await queue.getBackend().client).multi();
    // queued on the MULTI: its answer comes from exec
    void (multi as unknown as ScriptedRedis).enqueueJob(
      inst,
      pending,
      resultKey,
      jobId,
      upsert ? '1' : '0',
      JSON.stringify(refusal),
    );
    await new Job<JobData>(queue, 'call', data, opts, jobId).addJob(multi);
    const results = await multi.exec();
    if (!results) throw new Error(`the enqueue of job ${jobId} was aborted`);
    for (const [err] of results) if (err) throw err;
    const [seq, head] = results[0][1] as number[];
    if (seq === -1) throw missing();
    await this.confirmed(inst);
    // its predecessor committed between the look and the MULTI, so nobody will hand it on: it hands itself on
    if (seq > 0 && parked && head === 1) await this.handOn(queue, jobId);
    return { jobId };
  }

  /**
   * With REDIS_WAIT_REPLICAS, a queued job is acknowledged (202) only once a
   * replica has it: WAIT on the node of `key` (the enqueue's slot).
   */
  private async confirmed(key: string): Promise<void> {
    const n = this.opts.store.waitReplicas;
    if (n <= 0) return;
    const out = await this.connection.pipeline().exists(key).call('WAIT', n, this.opts.store.waitTimeoutMs).exec();
    if (Number(out?.[1]?.[1] ?? 0) < n) {
      throw runtimeError(
        'REPLICA_UNCONFIRMED',
        'The job was queued, but no Redis replica confirmed it in time: it stands unless its master fails first; do not retry blindly',
      );
    }
  }

  private get parkedMs(): number {
    return this.opts.parkedMs ?? PARKED_MS;
  }

  /**
   * Moves a parked job to BullMQ's wait list, so a worker runs it now. A job
   * that is not parked (already waiting, running or gone) is left as it is.
   */
  private async handOn(queue: Queue<JobData>, jobId: string | undefined): Promise<void> {
    if (!jobId) return;
    try {
      await queue.getBackend().promote(jobId);
    } catch {
      // not in the delayed set: it is waiting for a worker already, or running, or ended
    }
  }

  async dispatchTasks(tasks: ScheduledTask[], entry?: StreamEntry): Promise<void> {
    await this.queueTasks(tasks, entry, 0);
  }

  /**
   * Queues committed tasks, each in the queue of its target's bucket;
   * `elapsedMs` is how long ago they were committed (0 right after the
   * commit), so a task the sweeper hands over late is still due its delay
   * after its commit, not after the sweep.
   */
  private async queueTasks(tasks: ScheduledTask[], entry: StreamEntry | undefined, elapsedMs: number): Promise<void> {
    await Promise.all(
      tasks.map((task) => {
        const delay = Math.max(0, task.delayMs - elapsedMs);
        // a task without an instance (a STATIC target) goes by its class alone
        const bucket = this.keys.bucketOf(task.classId, task.instanceId ?? '');
        return this.queues[bucket].add(
          'task',
          { kind: 'task', task },
          {
            jobId: this.keys.jobId(task.classId, task.instanceId ?? '', `task-${task.id}`),
            ...(delay > 0 ? { delay } : {}),
            attempts: DEFAULT_ATTEMPTS,
            backoff: { type: 'exponential', delay: 1000 },
            removeOnComplete: { age: RESULT_TTL_S },
            removeOnFail: { age: RESULT_TTL_S },
          },
        );
      }),
    );
    if (entry) await this.opts.store.redis.xdel(this.keys.bucket(entry.bucket).tasks, entry.id);
  }

  /**
   * Hand over tasks whose commit succeeded but whose dispatch did not (crash or
   * Redis hiccup), from every bucket's task stream. Ages are read on Redis's
   * clock, which stamped the entries' ids at commit: each task keeps its due
   * time, commit + delay.
   */
  async sweepTasks(olderThanMs = TASK_SWEEP_AGE_MS): Promise<number> {
    const redis = this.opts.store.redis;
    let swept = 0;
    for (const b of this.keys.all) {
      // the clock of the node that holds the bucket's stream: the one that stamped its ids
      const replies = (await redis.pipeline().exists(b.tasks).time().exec()) ?? [];
      const [timeErr, time] = replies[1] ?? [new Error('TIME got no answer'), undefined];
      if (timeErr) throw timeErr;
      const [seconds, micros] = time as [string, string];
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      const entries = await redis.xrange(b.tasks, '-', `${now - olderThanMs}`, 'COUNT', 500);
      for (const [id, fields] of entries) {
        const json = fields[fields.indexOf('t') + 1];
        await this.queueTasks(
          JSON.parse(json) as ScheduledTask[],
          { bucket: b.bucket, id },
          Math.max(0, now - Number(id.split('-')[0])),
        );
      }
      swept += entries.length;
    }
    return swept;
  }

  startWorker(): void {
    if (this.workers.length) return;
    this.workerConnection = duplicate(this.connection, this.opts.redisOptions?.worker);
    // the process's concurrency spread over the buckets' queues, at least one job each
    const each = Math.max(1, Math.ceil(this.opts.concurrency / this.queues.length));
    this.workers = this.queues.map(
      (q) =>
        new Worker<JobData>(QUEUE_NAME, (job, token) => this.process(q, job, token), {
          connection: this.workerConnection!,
          prefix: q.opts.prefix,
          concurrency: each,
          lockDuration: this.opts.lockMs,
          stalledInterval: this.opts.lockMs,
          maxStalledCount: 3,
          // after a connection error BullMQ waits this long before fetching again, and close() waits it out:
          // 1 s instead of 15 s, so jobs run again soon after Redis returns and a stop is not held up
          runRetryDelay: 1000,
        }),
    );
    for (const w of this.workers)
      w.on(
        'error',
        (err) => this.opts.redisHealth?.failed(err) || this.opts.logger.error({ err }, 'queue worker error'),
      );
    this.sweeper = setInterval(() => {
      this.sweepTasks().catch(
        (err) => this.opts.redisHealth?.failed(err) || this.opts.logger.warn({ err }, 'task sweep failed'),
      );
    }, TASK_SWEEP_AGE_MS);
    this.sweeper.unref();
    this.sweepTasks(0).catch((err) => this.opts.logger.warn({ err }, 'task sweep failed'));
  }

  private async process(queue: Queue<JobData>, job: Job<JobData>, token?: string): Promise<unknown> {
    const data = job.data;
    if (data.kind === 'task') return this.runTask(data.task, job);
    return this.runCall(queue, job as Job<CallJobData>, token);
  }

  /**
   * A delayed task (or committed enqueue), effectively once: the task's id is
   * its delivery id, which the commit it causes records (a redelivered task
   * finds it and writes nothing: ALREADY_APPLIED), and the id of the job it
   * queues for a QUEUED_WRITE (queued once, run once).
   */
  private async runTask(task: ScheduledTask, job: Job<JobData>): Promise<CallResult> {
    try {
      return await this.opts.dispatcher.call({
        classId: task.classId,
        method: task.method,
        instanceId: task.instanceId,
        body: task.body,
        identity: task.identity,
        origin: 'task',
        requestId: `task-${task.id}`,
        delivery: { id: task.id },
        jobId: task.id,
      });
    } catch (err) {
      if (err instanceof ActorError && err.code === RuntimeCodes.ALREADY_APPLIED.code)
        return { status: 200, body: { alreadyApplied: true }, headers: {} };
      const final = !isRetryable(err) || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      this.logFailure(
        'delayed task',
        job,
        { classId: task.classId, method: task.method, instanceId: task.instanceId, taskId: task.id },
        err,
        final,
      );
      if (!isRetryable(err)) throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  private async runCall(queue: Queue<JobData>, job: Job<CallJobData>, token?: string): Promise<unknown> {
    const d = job.data;
    const store = this.opts.store;
    const jobId = job.id!;
    for (;;) {
      const place = await store.jobPlace(d.classId, d.instanceId, jobId);
      if (place.kind === 'head') break;
      if (place.kind === 'done') {
        // applied (or failed for good) before: a redelivery does not apply twice, and hands the instance on
        // in case the worker that committed it died before it did
        const [head] = await store.redis.zrange(this.keys.pendingJobs(d.classId, d.instanceId), '0', '0');
        await this.handOn(queue, head);
        return this.storedOutcome(jobId, place.resultJson);
      }
      // a head whose BullMQ job ended or vanished without its outcome (failed by BullMQ after too many
      // stalls, removed by hand) would hold the instance's queue for ever: it is ended as lost
      if (await this.endIfLost(queue, d, place.head)) continue;
      await job.moveToDelayed(Date.now() + this.parkedMs, token);
      // the job ahead may have committed while this one was parked, handing on to nobody
      if ((await store.jobPlace(d.classId, d.instanceId, jobId)).kind === 'head') await this.handOn(queue, jobId);
      throw new DelayedError();
    }
    // an attempt after a failed one (BullMQ counts a pushed-back turn above as no attempt)
    if (job.attemptsMade > 0) this.observer?.queuedWriteRetried(d.classId, d.method);
    const running: { id: string; next?: string } = { id: jobId };
    let result: CallResult;
    try {
      result = await this.opts.dispatcher.call({
        classId: d.classId,
        method: d.method,
        instanceId: d.instanceId,
        body: d.body,
        identity: d.identity,
        origin: 'queue',
        requestId: d.requestId ?? `job-${jobId}`,
        job: running,
      });
    } catch (err) {
      // run before (a stalled worker's job handed to another, or a redelivery): its result is stored
      if (err instanceof ActorError && err.code === RuntimeCodes.ALREADY_APPLIED.code) {
        const place = await store.jobPlace(d.classId, d.instanceId, jobId);
        return this.storedOutcome(jobId, place.kind === 'done' ? place.resultJson : undefined);
      }
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      this.logFailure(
        'queued write',
        job,
        { classId: d.classId, method: d.method, instanceId: d.instanceId, requestId: d.requestId },
        err,
        !isRetryable(err) || lastAttempt,
      );
      if (!isRetryable(err) || lastAttempt) {
        const outcome: StoredOutcome =
          err instanceof ActorError
            ? { status: err.status, body: err.toBody(), headers: {}, failed: true }
            : { status: 500, body: { code: 1000, message: 'Internal error' }, headers: {}, failed: true };
        await this.handOn(
          queue,
          (await store.finishJob(d.classId, d.instanceId, jobId, JSON.stringify(outcome), RESULT_TTL_S)).next,
        );
        this.observer?.queuedWriteFailed(d.classId, d.method);
        if (!isRetryable(err)) throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
      }
      throw err;
    }
    await this.handOn(queue, running.next);
    return result;
  }

  /**
   * Ends the head `head` of an instance's queue as lost when its BullMQ job has
   * ended or is gone while it is still pending (registration and add are one
   * MULTI, so a pending job BullMQ does not hold is never one being added), and
   * hands on to its successor. True when it did.
   */
  private async endIfLost(queue: Queue<JobData>, d: CallJobData, head: string): Promise<boolean> {
    const job = await queue.getJob(head);
    const state = job ? await job.getState() : 'unknown';
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
    const reason = job?.failedReason ? `: ${job.failedReason}` : '';
    const outcome: StoredOutcome = {
      status: 500,
      body: { code: 1000, message: `Job ${head} ended without its outcome${reason}` },
      headers: {},
      failed: true,
    };
    const { ended, next } = await this.opts.store.finishJob(
      d.classId,
      d.instanceId,
      head,
      JSON.stringify(outcome),
      RESULT_TTL_S,
    );
    // not ended: it committed between the look at the queue and the look at BullMQ, and was no loss
    if (ended)
      this.opts.logger.error(
        { classId: d.classId, instanceId: d.instanceId, jobId: head, state },
        'queued write ended without its outcome; the next job of its instance runs',
      );
    await this.handOn(queue, next);
    return true;
  }

  /**
   * One line per failed attempt of a QUEUED_WRITE job or a delayed task: warn
   * when it will be tried again (unless Redis is out: one line tells of the
   * outage), error when it is the last. The job's body is not logged (it
   * may carry a class's sensitive fields), nor an error's details: only what
   * names the error (its code, status and message, the stack of an
   * unexpected one).
   */
  private logFailure(
    what: 'queued write' | 'delayed task',
    job: Job<JobData>,
    about: Record<string, unknown>,
    err: unknown,
    final: boolean,
  ): void {
    // an attempt that Redis's outage failed and that will be retried: the outage's own line tells it
    if (!final && this.opts.redisHealth?.failed(err)) return;
    const fields = {
      ...about,
      jobId: job.id,
      attempt: job.attemptsMade + 1,
      attempts: job.opts.attempts ?? 1,
      error: errorForLog(err),
    };
    if (final) this.opts.logger.error(fields, `${what} failed`);
    else this.opts.logger.warn(fields, `${what} attempt failed; it will be retried`);
  }

  /**
   * Delayed tasks past their due time and not run yet, and how late the most
   * overdue one is (read when metrics are scraped): in each bucket's delayed
   * set (score: due time × 0x1000 + a counter, as BullMQ keeps it; nobody
   * promoted them, as when no worker runs) up to DUE_TASK_SCAN, and among the
   * oldest DUE_TASK_SCAN of its wait list (promoted, or queued without a
   * delay, waiting for a worker), due at their `timestamp` + `delay`.
   */
  async dueTasks(): Promise<{ due: number; lateSeconds: number }> {
    const now = Date.now();
    let due = 0;
    let oldest = -1;
    const seen = (at: number) => {
      due += 1;
      if (oldest < 0 || at < oldest) oldest = at;
    };
    for (const q of this.queues) {
      const delayed = await this.connection.zrangebyscore(
        q.keys.delayed,
        0,
        (now + 1) * 0x1000 - 1,
        'WITHSCORES',
        'LIMIT',
        0,
        DUE_TASK_SCAN,
      );
      for (let i = 0; i < delayed.length; i += 2)
        if (isTaskJob(delayed[i])) seen(Math.floor(Number(delayed[i + 1]) / 0x1000));
      const waiting = (await this.connection.lrange(q.keys.wait, -DUE_TASK_SCAN, -1)).filter(isTaskJob);
      if (!waiting.length) continue;
      const p = this.connection.pipeline();
      for (const id of waiting) p.hmget(q.toKey(id), 'timestamp', 'delay');
      for (const [err, f] of (await p.exec()) ?? []) {
        if (err) continue;
        const [timestamp, delay] = f as (string | null)[];
        const at = (Number(timestamp) || now) + (Number(delay) || 0);
        if (at <= now) seen(at);
      }
    }
    return { due, lateSeconds: oldest < 0 ? 0 : Math.max(0, (now - oldest) / 1000) };
  }

  /**
   * Makes a failed QUEUED_WRITE call runnable again before BullMQ retries it
   * (`cli retry`, the operator console): its stored failure is dropped and it
   * heads its instance's queue again. Without this a retried job finds its
   * outcome stored and ends at once as failed (applied-once). A failure
   * committed nothing, so running it again applies it at most once still.
   * Delayed tasks need nothing: their delivery id guards them.
   */
  async reopenFailed(job: Job): Promise<void> {
    const d = job.data as JobData;
    if (d.kind !== 'call') return;
    const { keys, redis } = this.opts.store;
    await redis
      .multi()
      .del(keys.jobResult(d.classId, d.instanceId, job.id!))
      .zadd(keys.pendingJobs(d.classId, d.instanceId), 'NX', 0, job.id!)
      .exec();
  }

  /** A job's stored outcome: a job that is no longer pending always has one (commit and finish store it). */
  private storedOutcome(jobId: string, raw: string | undefined): CallResult {
    if (!raw) throw new UnrecoverableError(`job ${jobId} is no longer pending and has no stored outcome`);
    const outcome = JSON.parse(raw) as StoredOutcome;
    if (outcome.failed) throw new UnrecoverableError(`job ${jobId} already failed`);
    return outcome;
  }

  /** The job's state and outcome, for its caller. */
  async status(jobId: string): Promise<{ status: JobStatus; identity: Identity }> {
    const queue = this.queueOfJob(jobId);
    const job = await queue?.getJob(jobId);
    if (!queue || !job || job.data.kind !== 'call') throw runtimeError('UNKNOWN_JOB', `No job '${jobId}'`);
    const d = job.data;
    const resultKey = this.keys.jobResult(d.classId, d.instanceId, jobId);
    // the outcome first: it is stored before BullMQ ends the job, and once it is there no attempt starts
    // again, so the attempt count of the snapshot taken after it is final
    let raw = await this.opts.store.redis.get(resultKey);
    const snap = await this.snapshot(queue, jobId);
    if (!raw && (snap.state === 'completed' || snap.state === 'failed'))
      raw = await this.opts.store.redis.get(resultKey);
    const outcome = raw ? (JSON.parse(raw) as StoredOutcome) : undefined;
    const { state, attemptsMade } = snap;
    let status: string;
    if (outcome) status = outcome.failed ? 'failed' : 'completed';
    else if (state === 'active') status = 'running';
    else if (state === 'failed') status = 'failed';
    else if (state === 'completed') status = 'completed';
    else status = attemptsMade > 0 ? 'retrying' : 'queued';
    const out: JobStatus = {
      jobId,
      classId: d.classId,
      method: d.method,
      instanceId: d.instanceId,
      status,
      // a running attempt counts (BullMQ counts it only once the attempt ends)
      attemptsMade: attemptsMade + (state === 'active' ? 1 : 0),
      createdAt: job.timestamp,
      finishedAt: snap.finishedOn,
    };
    if (outcome && !outcome.failed) out.result = { status: outcome.status, body: outcome.body };
    if (outcome?.failed) out.error = { status: outcome.status, body: outcome.body };
    else if (!outcome && state === 'failed')
      out.error = { status: 500, body: { code: 1000, message: snap.failedReason } };
    return { status: out, identity: d.identity };
  }

  /** The job's BullMQ state and attempt count, read in one step (JOB_SNAPSHOT_LUA). */
  private async snapshot(
    queue: Queue<JobData>,
    jobId: string,
  ): Promise<{ state: string; attemptsMade: number; finishedOn?: number; failedReason?: string }> {
    const k = queue.keys;
    const keys = [
      queue.toKey(jobId),
      k.completed,
      k.failed,
      k.delayed,
      k.prioritized,
      k['waiting-children'],
      k.active,
      k.wait,
      k.paused,
    ];
    const [state, atm, finishedOn, failedReason] = (await this.connection.eval(
      luaSource('jobSnapshot'),
      keys.length,
      ...keys,
      jobId,
    )) as string[];
    return {
      state,
      attemptsMade: Number(atm) || 0,
      finishedOn: finishedOn ? Number(finishedOn) : undefined,
      failedReason: failedReason || undefined,
    };
  }

  /** Stops the workers (their jobs finish or are handed back), runs `beforeQueueClose` (work the jobs started), then closes the queues. */
  async close(beforeQueueClose?: () => Promise<void>): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    const timeout = this.opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    await Promise.all(this.workers.map((w) => closeWithin('queue worker', w, timeout, this.opts.logger)));
    await beforeQueueClose?.();
    await Promise.all(this.queues.map((q) => closeWithin('queue', q, timeout, this.opts.logger)));
    this.workerConnection?.disconnect();
    this.connection.disconnect();
  }
}

/** a delayed task's job id: `task-<id>`, after its bucket (`<b>.`) when there are several */
function isTaskJob(jobId: string): boolean {
  return /^(\d+\.)?task-/.test(jobId);
}
