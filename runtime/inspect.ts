/**
 * What an operator sees of an instance and of the queues (`cli inspect`,
 * `cli status`, `cli retry`). Read-only except retryFailedJob. Generic: it
 * knows the runtime's key layout, never a class.
 */
import type { Job } from 'bullmq';
import type { Effect } from './actor/effects';
import { loadState, versionOf } from './actor/state-versions';
import { maskedFields, maskFields } from './masking';
import type { Runtime } from './runtime';
import type { ProjectorLag } from './stream/projector';
import { askProjectors } from './stream/projector-control';

/** delayed jobs looked at for an instance's due tasks: enough for an operator's look, bounded */
const DELAYED_SCAN = 1000;
/** effect-stream entries looked at for effects targeting an instance */
const EFFECT_SCAN = 1000;
const FAILED_SHOWN = 20;
/** how long status waits for the running projectors of an embedded store to tell their lag */
const LAG_ANSWER_MS = 5000;

export class InspectError extends Error {}

// the masking `cli inspect` applies, for those that show an instance as it does
export { maskedFields, maskFields };

interface JobSummary {
  id: string;
  method?: string;
  state: string;
  attemptsMade: number;
  createdAt: number;
  failedReason?: string;
}

async function summary(job: Job | undefined, id: string): Promise<JobSummary> {
  if (!job) return { id, state: 'unknown', attemptsMade: 0, createdAt: 0 };
  const data = job.data as { kind: string; method?: string; task?: { method: string } };
  return {
    id,
    method: data.method ?? data.task?.method,
    state: await job.getState(),
    attemptsMade: job.attemptsMade,
    createdAt: job.timestamp,
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
  };
}

/** `ref`: an instance id, or `name!value` of one of its lookup keys. */
export async function inspectInstance(rt: Runtime, classId: string, ref: string) {
  const cls = rt.registry.get(classId);
  if (!cls) throw new InspectError(`unknown class ${classId}`);
  const { store } = rt;
  let instanceId = ref;
  const bang = ref.indexOf('!');
  if (bang > 0) {
    const found = await store.resolveLookup(classId, ref.slice(0, bang), ref.slice(bang + 1));
    if (!found) throw new InspectError(`no ${classId} instance with lookup key ${ref}`);
    instanceId = found;
  }
  const stored = await store.read(classId, instanceId);
  if (!stored) throw new InspectError(`no ${classId} instance ${instanceId}`);

  const pendingIds = await store.redis.zrange(store.keys.pendingJobs(classId, instanceId), '0', '-1');
  const pendingJobs = await Promise.all(pendingIds.map(async (id) => summary(await rt.jobs.getJob(id), id)));

  // delayed tasks for the instance wait in its bucket's queue
  const delayed = await rt.jobs.queueOf(classId, instanceId).getDelayed(0, DELAYED_SCAN - 1);
  const dueTasks = delayed
    .filter((j) => {
      const t = (j.data as { kind: string; task?: { classId: string; instanceId?: string } }).task;
      return j.data.kind === 'task' && t?.classId === classId && t.instanceId === instanceId;
    })
    .map((j) => {
      const t = (j.data as { task: { id: string; method: string } }).task;
      return { id: t.id, method: t.method, dueAt: new Date(j.timestamp + (j.opts.delay ?? 0)).toISOString() };
    });

  // an effect on the instance may come from a change in any bucket
  const entries: [string, string[]][] = [];
  for (const b of store.keys.all) {
    if (entries.length >= EFFECT_SCAN) break;
    entries.push(...(await store.redis.xrange(b.effects, '-', '+', 'COUNT', EFFECT_SCAN - entries.length)));
  }
  const pendingEffects: { entry: string; id: string; method: string }[] = [];
  for (const [entry, f] of entries) {
    const effects = JSON.parse(f[f.indexOf('f') + 1] ?? '[]') as Effect[];
    for (const e of effects)
      if (!e.port && e.classId === classId && e.instanceId === instanceId)
        pendingEffects.push({ entry, id: e.id, method: e.method });
  }

  const fields = maskedFields(cls.options.sensitiveFields);
  return {
    classId,
    instanceId,
    version: stored.version,
    lookups: stored.lookups,
    // as the class's code reads it (migrated); stateVersion: as it is stored
    stateVersion: versionOf(JSON.parse(stored.stateJson || '{}') as { v?: unknown }),
    state: maskFields(loadState(classId, cls.options.state, stored.stateJson), fields),
    pendingJobs,
    dueTasks,
    ...(delayed.length >= DELAYED_SCAN ? { dueTasksScanned: DELAYED_SCAN } : {}),
    pendingEffects,
    ...(entries.length >= EFFECT_SCAN ? { effectEntriesScanned: EFFECT_SCAN } : {}),
  };
}

/**
 * The projector lag (Projector.backlog, which /metrics reads too): with a
 * shared store the outbox's backlog, read here; with the embedded store each
 * running projector process's own, asked of them (none running: an empty list
 * and a note saying so).
 */
export async function projectorStatus(rt: Runtime, answerMs = LAG_ANSWER_MS) {
  const store = rt.documents.kind;
  if (rt.documents.shared) return { store, ...(await rt.projector.backlog({ byCollection: true })) };
  const answer = await askProjectors(rt.redis, rt.store.keys.base, { command: 'lag' }, { idleMs: answerMs });
  const processes = [...answer.reports.values()]
    .filter((r) => r.state === 'done')
    .map((r) => ({ process: r.process, ...(r.result as ProjectorLag) }));
  return {
    store,
    processes,
    ...(answer.receivers === 0
      ? { note: 'no running projector process: the embedded store is rebuilt when one starts' }
      : {}),
    ...(answer.unfinished ? { unanswered: answer.unfinished } : {}),
  };
}

/** Queue depths, the oldest waiting job's age, the last failed jobs, the committed effects not yet applied and the projector lag. */
export async function queueStatus(rt: Runtime) {
  const queues = rt.jobs.queues;
  const depths = { waiting: 0, active: 0, delayed: 0, failed: 0 };
  let oldestAt: number | undefined;
  const failed: Job[] = [];
  for (const q of queues) {
    const counts = await q.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized');
    depths.waiting += counts.waiting + (counts.prioritized ?? 0);
    depths.active += counts.active;
    depths.delayed += counts.delayed;
    depths.failed += counts.failed;
    // BullMQ lists waiting jobs newest first: the oldest is the last
    const [oldest] = await q.getWaiting(-1, -1);
    if (oldest && (oldestAt === undefined || oldest.timestamp < oldestAt)) oldestAt = oldest.timestamp;
    failed.push(...(await q.getFailed(0, FAILED_SHOWN - 1)));
  }
  // the latest failures across the buckets' queues
  failed.sort((a, b) => (b.finishedOn ?? 0) - (a.finishedOn ?? 0));
  let effectsPending = 0;
  for (const b of rt.store.keys.all) effectsPending += await rt.store.redis.xlen(b.effects);
  return {
    queue: rt.jobs.queueName,
    ...(queues.length > 1 ? { buckets: queues.length } : {}),
    depths,
    oldestWaitingAgeMs: oldestAt !== undefined ? Date.now() - oldestAt : null,
    failedJobs: failed.slice(0, FAILED_SHOWN).map((j) => {
      const d = j.data as {
        kind: string;
        classId?: string;
        method?: string;
        instanceId?: string;
        task?: { classId: string; method: string; instanceId?: string };
      };
      return {
        id: j.id,
        classId: d.classId ?? d.task?.classId,
        method: d.method ?? d.task?.method,
        instanceId: d.instanceId ?? d.task?.instanceId,
        reason: j.failedReason,
        attemptsMade: j.attemptsMade,
        failedAt: j.finishedOn ? new Date(j.finishedOn).toISOString() : null,
      };
    }),
    effectsPending,
    projector: await projectorStatus(rt),
  };
}

/**
 * Retries a failed job. A QUEUED_WRITE call that failed for good left its
 * instance's pending set and stored a failed result (so a redelivery would not
 * run it): both are undone first, with its first sequence number, so it runs
 * again in its place in the instance's FIFO.
 */
export async function retryFailedJob(
  rt: Runtime,
  jobId: string,
): Promise<{ retried: string; classId?: string; method?: string }> {
  const job = await rt.jobs.getJob(jobId);
  if (!job) throw new InspectError(`no job ${jobId}`);
  const state = await job.getState();
  if (state !== 'failed') throw new InspectError(`job ${jobId} is ${state}, not failed`);
  const d = job.data as {
    kind: string;
    classId?: string;
    method?: string;
    instanceId?: string;
    seq?: number;
    task?: { classId: string; method: string };
  };
  // the same as the operator console's retry: its stored failure dropped, back at the head of its instance's queue
  await rt.jobs.reopenFailed(job);
  await job.retry('failed');
  return { retried: jobId, classId: d.classId ?? d.task?.classId, method: d.method ?? d.task?.method };
}
