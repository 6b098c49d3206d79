import { randomUUID } from 'node:crypto';
import { DelayedError, Job, Queue, UnrecoverableError, Worker, type JobsOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { CallRequest, Dispatcher, JobSink, ScheduledTask } from '../actor/dispatcher';
import { defineActorScripts, type ScriptedRedis, type StateStore } from '../actor/state-store';
import type { CallResult, Identity } from '../actor/types';
import { ActorError, RuntimeCodes, runtimeError, unknownInstanceError } from '../errors';
import type { RedisHealth } from '../redis/client';
import { closeWithin, DEFAULT_CLOSE_TIMEOUT_MS } from './close';

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
  redisUrl: string;
  projectId: string;
  store: StateStore;
  dispatcher: Dispatcher;
  logger: Logger;
  /** how long close() waits for the worker's running jobs and connections before it closes by force */
  closeTimeoutMs?: number;
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

/**
 * Delayed tasks past their due time, not run yet: in the delayed set (score:
 * due time × 0x1000 + a counter, as BullMQ keeps it; nobody promoted them, as
 * when no worker runs) up to the scan, and in the wait list (promoted, or
 * queued without a delay, waiting for a worker) among the oldest entries up to
 * the scan, due at their `timestamp` + `delay`. A task job's id is `task-<id>`.
 * KEYS: delayed, wait. ARGV: now (ms), job key prefix, scan. Returns {due, the
 * most overdue one's due time (ms), or -1 when none}.
 */
const DUE_TASKS_LUA = `
local now = tonumber(ARGV[1])
local scan = tonumber(ARGV[3])
local due, oldest = 0, -1
local delayed = redis.call('ZRANGEBYSCORE', KEYS[1], 0, (now + 1) * 0x1000 - 1, 'WITHSCORES', 'LIMIT', 0, scan)
for i = 1, #delayed, 2 do
  if string.sub(delayed[i], 1, 5) == 'task-' then
    due = due + 1
    local at = math.floor(tonumber(delayed[i + 1]) / 0x1000)
    if oldest < 0 or at < oldest then oldest = at end
  end
end
local waiting = redis.call('LRANGE', KEYS[2], -scan, -1)
for _, id in ipairs(waiting) do
  if string.sub(id, 1, 5) == 'task-' then
    local f = redis.call('HMGET', ARGV[2] .. id, 'timestamp', 'delay')
    local at = (tonumber(f[1]) or now) + (tonumber(f[2]) or 0)
    if at <= now then
      due = due + 1
      if oldest < 0 or at < oldest then oldest = at end
    end
  end
end
return {due, oldest}
`;

/**
 * One atomic read of a job's BullMQ state and attempt count: read apart, a
 * count taken during an attempt and a state taken after it ended pair into a
 * status no job was ever in (failed after one attempt of two).
 * KEYS: job hash, completed, failed, delayed, prioritized, waiting-children,
 * active, wait, paused. ARGV: job id. Returns {state, attemptsMade, finishedOn, failedReason}.
 */
const JOB_SNAPSHOT_LUA = `
local f = redis.call('HMGET', KEYS[1], 'atm', 'finishedOn', 'failedReason')
local state = 'unknown'
local sets = {'completed', 'failed', 'delayed', 'prioritized', 'waiting-children'}
for i, name in ipairs(sets) do
  if redis.call('ZSCORE', KEYS[i + 1], ARGV[1]) then state = name break end
end
if state == 'unknown' then
  local lists = {'active', 'waiting', 'waiting'}
  for i, name in ipairs(lists) do
    if redis.call('LPOS', KEYS[i + 6], ARGV[1]) then state = name break end
  end
end
return {state, f[1] or '0', f[2] or '', f[3] or ''}
`;

const DEFAULT_ATTEMPTS = 5;
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
  readonly queueName: string;
  private readonly connection: Redis;
  readonly queue: Queue<JobData>;
  private worker?: Worker<JobData>;
  private workerConnection?: Redis;
  private sweeper?: NodeJS.Timeout;
  /** told of QUEUED_WRITE retries and final failures (the runtime's metrics) */
  observer?: JobOutcomeObserver;

  constructor(private readonly opts: JobQueueOptions) {
    this.queueName = `rt-${opts.projectId}`;
    this.connection = new Redis(opts.redisUrl, opts.redisOptions?.queue ?? { maxRetriesPerRequest: null, lazyConnect: false });
    // the MULTI that registers a job and adds it to BullMQ runs the FIFO script on this connection
    defineActorScripts(this.connection);
    this.queue = new Queue<JobData>(this.queueName, { connection: this.connection });
    this.opts.redisHealth?.watch(this.queue, 'queue');
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
  async enqueueCall(req: CallRequest, instanceId: string, upsert = false, chosenId?: string): Promise<{ jobId: string }> {
    const jobId = chosenId ?? randomUUID();
    const k = this.keys;
    const inst = k.instance(req.classId, instanceId);
    const pending = k.pendingJobs(req.classId, instanceId);
    const resultKey = k.jobResult(jobId);
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
    const multi = (await this.queue.getBackend().client).multi();
    (multi as unknown as ScriptedRedis).enqueueJob(inst, pending, resultKey, jobId, upsert ? '1' : '0', JSON.stringify(refusal));
    await new Job<JobData>(this.queue, 'call', data, opts, jobId).addJob(multi as never);
    const results = await multi.exec();
    if (!results) throw new Error(`the enqueue of job ${jobId} was aborted`);
    for (const [err] of results) if (err) throw err;
    const [seq, head] = results[0][1] as number[];
    if (seq === -1) throw missing();
    // its predecessor committed between the look and the MULTI, so nobody will hand it on: it hands itself on
    if (seq > 0 && parked && head === 1) await this.handOn(jobId);
    return { jobId };
  }

  private get parkedMs(): number {
    return this.opts.parkedMs ?? PARKED_MS;
  }

  /**
   * Moves a parked job to BullMQ's wait list, so a worker runs it now. A job
   * that is not parked (already waiting, running or gone) is left as it is.
   */
  private async handOn(jobId: string | undefined): Promise<void> {
    if (!jobId) return;
    try {
      await this.queue.getBackend().promote(jobId);
    } catch {
      // not in the delayed set: it is waiting for a worker already, or running, or ended
    }
  }

  async dispatchTasks(tasks: ScheduledTask[], entryId?: string): Promise<void> {
    await this.queueTasks(tasks, entryId, 0);
  }

  /**
   * Queues committed tasks; `elapsedMs` is how long ago they were committed
   * (0 right after the commit), so a task the sweeper hands over late is still
   * due its delay after its commit, not after the sweep.
   */
  private async queueTasks(tasks: ScheduledTask[], entryId: string | undefined, elapsedMs: number): Promise<void> {
    await Promise.all(
      tasks.map((task) => {
        const delay = Math.max(0, task.delayMs - elapsedMs);
        return this.queue.add(
          'task',
          { kind: 'task', task },
          {
            jobId: `task-${task.id}`,
            ...(delay > 0 ? { delay } : {}),
            attempts: DEFAULT_ATTEMPTS,
            backoff: { type: 'exponential', delay: 1000 },
            removeOnComplete: { age: RESULT_TTL_S },
            removeOnFail: { age: RESULT_TTL_S },
          },
        );
      }),
    );
    if (entryId) await this.opts.store.redis.xdel(this.keys.tasks, entryId);
  }

  /**
   * Hand over tasks whose commit succeeded but whose dispatch did not (crash or
   * Redis hiccup). Ages are read on Redis's clock, which stamped the entries'
   * ids at commit: each task keeps its due time, commit + delay.
   */
  async sweepTasks(olderThanMs = TASK_SWEEP_AGE_MS): Promise<number> {
    const redis = this.opts.store.redis;
    const [seconds, micros] = await redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const entries = await redis.xrange(this.keys.tasks, '-', `${now - olderThanMs}`, 'COUNT', 500);
    for (const [id, fields] of entries) {
      const json = fields[fields.indexOf('t') + 1];
      await this.queueTasks(JSON.parse(json) as ScheduledTask[], id, Math.max(0, now - Number(id.split('-')[0])));
    }
    return entries.length;
  }

  startWorker(): void {
    if (this.worker) return;
    this.workerConnection = this.connection.duplicate(this.opts.redisOptions?.worker);
    this.worker = new Worker<JobData>(this.queueName, (job, token) => this.process(job, token), {
      connection: this.workerConnection,
      concurrency: this.opts.concurrency,
      lockDuration: this.opts.lockMs,
      stalledInterval: this.opts.lockMs,
      maxStalledCount: 3,
      // after a connection error BullMQ waits this long before fetching again, and close() waits it out:
      // 1 s instead of 15 s, so jobs run again soon after Redis returns and a stop is not held up
      runRetryDelay: 1000,
    });
    this.worker.on('error', (err) => this.opts.redisHealth?.failed(err) || this.opts.logger.error({ err }, 'queue worker error'));
    this.sweeper = setInterval(() => {
      this.sweepTasks().catch((err) => this.opts.redisHealth?.failed(err) || this.opts.logger.warn({ err }, 'task sweep failed'));
    }, TASK_SWEEP_AGE_MS);
    this.sweeper.unref();
    this.sweepTasks(0).catch((err) => this.opts.logger.warn({ err }, 'task sweep failed'));
  }

  private async process(job: Job<JobData>, token?: string): Promise<unknown> {
    const data = job.data;
    if (data.kind === 'task') return this.runTask(data.task, job);
    return this.runCall(job as Job<CallJobData>, token);
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
      if (err instanceof ActorError && err.code === RuntimeCodes.ALREADY_APPLIED.code) return { status: 200, body: { alreadyApplied: true }, headers: {} };
      const final = !isRetryable(err) || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      this.logFailure('delayed task', job, { classId: task.classId, method: task.method, instanceId: task.instanceId, taskId: task.id }, err, final);
      if (!isRetryable(err)) throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
      throw err;
    }
  }

  private async runCall(job: Job<CallJobData>, token?: string): Promise<unknown> {
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
        await this.handOn(head);
        return this.storedOutcome(jobId, place.resultJson);
      }
      // a head whose BullMQ job ended or vanished without its outcome (failed by BullMQ after too many
      // stalls, removed by hand) would hold the instance's queue for ever: it is ended as lost
      if (await this.endIfLost(d, place.head)) continue;
      await job.moveToDelayed(Date.now() + this.parkedMs, token);
      // the job ahead may have committed while this one was parked, handing on to nobody
      if ((await store.jobPlace(d.classId, d.instanceId, jobId)).kind === 'head') await this.handOn(jobId);
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
      this.logFailure('queued write', job, { classId: d.classId, method: d.method, instanceId: d.instanceId, requestId: d.requestId }, err, !isRetryable(err) || lastAttempt);
      if (!isRetryable(err) || lastAttempt) {
        const outcome: StoredOutcome =
          err instanceof ActorError
            ? { status: err.status, body: err.toBody(), headers: {}, failed: true }
            : { status: 500, body: { code: 1000, message: 'Internal error' }, headers: {}, failed: true };
        await this.handOn((await store.finishJob(d.classId, d.instanceId, jobId, JSON.stringify(outcome), RESULT_TTL_S)).next);
        this.observer?.queuedWriteFailed(d.classId, d.method);
        if (!isRetryable(err)) throw new UnrecoverableError(err instanceof Error ? err.message : String(err));
      }
      throw err;
    }
    await this.handOn(running.next);
    return result;
  }

  /**
   * Ends the head `head` of an instance's queue as lost when its BullMQ job has
   * ended or is gone while it is still pending (registration and add are one
   * MULTI, so a pending job BullMQ does not hold is never one being added), and
   * hands on to its successor. True when it did.
   */
  private async endIfLost(d: CallJobData, head: string): Promise<boolean> {
    const job = await this.queue.getJob(head);
    const state = job ? await job.getState() : 'unknown';
    if (state !== 'completed' && state !== 'failed' && state !== 'unknown') return false;
    const reason = job?.failedReason ? `: ${job.failedReason}` : '';
    const outcome: StoredOutcome = { status: 500, body: { code: 1000, message: `Job ${head} ended without its outcome${reason}` }, headers: {}, failed: true };
    const { ended, next } = await this.opts.store.finishJob(d.classId, d.instanceId, head, JSON.stringify(outcome), RESULT_TTL_S);
    // not ended: it committed between the look at the queue and the look at BullMQ, and was no loss
    if (ended) this.opts.logger.error({ classId: d.classId, instanceId: d.instanceId, jobId: head, state }, 'queued write ended without its outcome; the next job of its instance runs');
    await this.handOn(next);
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
  private logFailure(what: 'queued write' | 'delayed task', job: Job<JobData>, about: Record<string, unknown>, err: unknown, final: boolean): void {
    // an attempt that Redis's outage failed and that will be retried: the outage's own line tells it
    if (!final && this.opts.redisHealth?.failed(err)) return;
    const fields = { ...about, jobId: job.id, attempt: job.attemptsMade + 1, attempts: job.opts.attempts ?? 1, error: errorForLog(err) };
    if (final) this.opts.logger.error(fields, `${what} failed`);
    else this.opts.logger.warn(fields, `${what} attempt failed; it will be retried`);
  }

  /** Delayed tasks past their due time and not run yet, and how late the most overdue one is (read when metrics are scraped). */
  async dueTasks(): Promise<{ due: number; lateSeconds: number }> {
    const now = Date.now();
    const [due, oldest] = (await this.connection.eval(
      DUE_TASKS_LUA,
      2,
      this.queue.keys.delayed,
      this.queue.keys.wait,
      now,
      this.queue.toKey(''),
      DUE_TASK_SCAN,
    )) as [number, number];
    return { due, lateSeconds: oldest < 0 ? 0 : Math.max(0, (now - oldest) / 1000) };
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
    const job = await this.queue.getJob(jobId);
    if (!job || job.data.kind !== 'call') throw runtimeError('UNKNOWN_JOB', `No job '${jobId}'`);
    const d = job.data;
    const resultKey = this.keys.jobResult(jobId);
    // the outcome first: it is stored before BullMQ ends the job, and once it is there no attempt starts
    // again, so the attempt count of the snapshot taken after it is final
    let raw = await this.opts.store.redis.get(resultKey);
    const snap = await this.snapshot(jobId);
    if (!raw && (snap.state === 'completed' || snap.state === 'failed')) raw = await this.opts.store.redis.get(resultKey);
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
    else if (!outcome && state === 'failed') out.error = { status: 500, body: { code: 1000, message: snap.failedReason } };
    return { status: out, identity: d.identity };
  }

  /** The job's BullMQ state and attempt count, read in one step (JOB_SNAPSHOT_LUA). */
  private async snapshot(jobId: string): Promise<{ state: string; attemptsMade: number; finishedOn?: number; failedReason?: string }> {
    const k = this.queue.keys;
    const keys = [this.queue.toKey(jobId), k.completed, k.failed, k.delayed, k.prioritized, k['waiting-children'], k.active, k.wait, k.paused];
    const [state, atm, finishedOn, failedReason] = (await this.connection.eval(JOB_SNAPSHOT_LUA, keys.length, ...keys, jobId)) as string[];
    return { state, attemptsMade: Number(atm) || 0, finishedOn: finishedOn ? Number(finishedOn) : undefined, failedReason: failedReason || undefined };
  }

  /** Stops the worker (its jobs finish or are handed back), runs `beforeQueueClose` (work the jobs started), then closes the queue. */
  async close(beforeQueueClose?: () => Promise<void>): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await closeWithin('queue worker', this.worker, this.opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, this.opts.logger);
    await beforeQueueClose?.();
    await closeWithin('queue', this.queue, this.opts.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS, this.opts.logger);
    this.workerConnection?.disconnect();
    this.connection.disconnect();
  }
}
