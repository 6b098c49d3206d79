/**
 * A call as the dispatcher receives it (from HTTP, a class, a queued job, a
 * task, an effect), what it names (instance ids, lookups) and what it leaves
 * for the queue layer (scheduled tasks): the vocabulary the dispatcher, the
 * handler context and the queue share.
 */
import type { StreamEntry } from './state-store';
import type { CallResult, RequestInfo } from '../types/calls';
import type { Identity } from '../types/identity';

export type CallOrigin = 'http' | 'class' | 'queue' | 'task' | 'system' | 'effect';

/** An instance held by a call further up the chain (for re-entrancy checks). */
export interface Frame {
  classId: string;
  instanceId?: string;
  exclusive: boolean;
}

export interface CallRequest {
  classId: string;
  method: string;
  /** an instance id or a lookup `name!value` */
  instanceId?: string;
  body?: unknown;
  headers?: Record<string, string | string[] | undefined>;
  query?: Record<string, unknown>;
  identity: Identity;
  origin: CallOrigin;
  requestId?: string;
  ip?: string;
  chain?: Frame[];
  /**
   * set when a worker runs a QUEUED_WRITE job; its commit fills in `next`, the
   * job that heads the instance's queue after it, for the worker to hand on
   */
  job?: { id: string; next?: string };
  /**
   * The delivery this call applies (a delayed task, a committed effect): its id
   * is recorded by the commit it causes, which is refused when it was recorded
   * before (ALREADY_APPLIED), so a redelivery never applies twice.
   */
  delivery?: { id: string; finishesEntry?: string };
  /** the job id to queue a QUEUED_WRITE under (committed enqueues choose it up front) */
  jobId?: string;
}

/** Runs one call end to end (the dispatcher, as the handler context and the effect applier see it). */
export type CallRunner = (req: CallRequest) => Promise<CallResult>;

export interface ScheduledTask {
  id: string;
  classId: string;
  method: string;
  instanceId?: string;
  body?: unknown;
  delayMs: number;
  identity: Identity;
  /** a committed enqueue: the task queues QUEUED_WRITE job `id` */
  enqueue?: boolean;
}

/** What the dispatcher needs from the queue layer (BullMQ). */
export interface JobSink {
  enqueueCall(req: CallRequest, instanceId: string, upsert: boolean, jobId?: string): Promise<{ jobId: string }>;
  /** hand committed tasks to the delayed queue; `entry` is their task-outbox entry */
  dispatchTasks(tasks: ScheduledTask[], entry?: StreamEntry): Promise<void>;
}

/** What may name an instance (path segment, effect target). */
export const INSTANCE_ID = /^[A-Za-z0-9_.@+\-=]{1,200}$/;
/** What may name a lookup key (`name!value`). */
export const LOOKUP_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** What a handler sees of the request (ctx.request, an INIT's instanceId hook) */
export function requestInfoOf(projectId: string, req: CallRequest, instanceId: string | undefined): RequestInfo {
  return {
    body: req.body === undefined ? {} : req.body,
    headers: req.headers ?? {},
    query: req.query ?? {},
    path: { projectId, classId: req.classId, method: req.method, instanceId },
    ip: req.ip,
    requestId: req.requestId,
  };
}
