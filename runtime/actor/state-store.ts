import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Redis } from 'ioredis';
import type { InstanceState } from './types';
import { ActorError, RuntimeCodes } from '../errors';

/** Redis key layout of one project (the fixed keys made once, not per call). */
export class Keys {
  readonly base: string;
  readonly outbox: string;
  readonly tasks: string;
  /** committed effects not yet applied (an entry per commit) */
  readonly effects: string;
  /** effects that could not be applied (refused by their target, or out of attempts) */
  readonly effectsDead: string;
  /** attempts made per effect entry */
  readonly effectAttempts: string;
  readonly events: string;
  readonly apiKeys: string;
  readonly roles: string;
  /** the job-result and delivery-marker keys a commit names when it has no job or delivery */
  readonly noJobResult: string;
  readonly noDelivery: string;

  constructor(readonly projectId: string) {
    const base = `rt:${projectId}`;
    this.base = base;
    this.outbox = `${base}:outbox`;
    this.tasks = `${base}:tasks`;
    this.effects = `${base}:effects`;
    this.effectsDead = `${base}:effects:dead`;
    this.effectAttempts = `${base}:effects:attempts`;
    this.events = `${base}:events`;
    this.apiKeys = `${base}:apikeys`;
    this.roles = `${base}:roles`;
    this.noJobResult = this.jobResult('-');
    this.noDelivery = this.delivered('-');
  }
  instance(classId: string, id: string): string {
    return `${this.base}:i:${classId}:${id}`;
  }
  instancePattern(classId: string): string {
    return `${this.base}:i:${classId}:*`;
  }
  lease(classId: string, id: string): string {
    return `${this.base}:l:${classId}:${id}`;
  }
  /** processes waiting for an instance's lease: waiter token -> until when it waits (ms) */
  leaseWaiters(classId: string, id: string): string {
    return `${this.base}:lw:${classId}:${id}`;
  }
  /** the list a released lease pushes a wake-up to; its waiters block on it (BLPOP wakes the longest waiter) */
  leaseWake(classId: string, id: string): string {
    return `${this.base}:lq:${classId}:${id}`;
  }
  lookup(classId: string, name: string, value: string): string {
    return `${this.base}:k:${classId}:${name}:${value}`;
  }
  /** the lookup name and value of a lookup key of `classId` (names hold no ':'; values may) */
  parseLookup(classId: string, key: string): { name: string; value: string } {
    const rest = key.slice(`${this.base}:k:${classId}:`.length);
    const colon = rest.indexOf(':');
    return { name: rest.slice(0, colon), value: rest.slice(colon + 1) };
  }
  pendingJobs(classId: string, id: string): string {
    return `${this.base}:qp:${classId}:${id}`;
  }
  jobResult(jobId: string): string {
    return `${this.base}:jr:${jobId}`;
  }
  /** marker of a delivery (delayed task, committed effect) whose change was committed */
  delivered(deliveryId: string): string {
    return `${this.base}:dl:${deliveryId}`;
  }
}

export interface StoredInstance {
  version: number;
  stateJson: string;
  lookups: Record<string, string>;
}

/** init: the instance must not exist; write: it must; upsert: a missing one starts empty */
export type LeaseMode = 'init' | 'write' | 'upsert';

export type AcquireResult =
  | { kind: 'acquired'; instance?: StoredInstance }
  | { kind: 'busy'; pttl: number }
  | { kind: 'exists' }
  | { kind: 'missing' };

export interface CommitRequest {
  classId: string;
  instanceId: string;
  token: string;
  expectedVersion: number;
  changed: boolean;
  stateJson: string;
  lookups: Record<string, string>;
  lookupAdds: string[];
  lookupRemoves: string[];
  tasks?: unknown[];
  events?: unknown[];
  job?: { id: string; resultJson: string; ttlSeconds: number };
  /** the delivery (task or committed effect) this commit applies: recorded, and refused when recorded before */
  deliveryId?: string;
  /** calls to other instances that belong to this change, applied after it (see runtime/actor/effects.ts) */
  effects?: unknown[];
  /** the effect-stream entry whose last effect this commit applies: deleted in the same step */
  finishesEffectEntry?: string;
  /** keep the lease (renewed to this ttl) for the next local writer instead of releasing it, unless another process waits for it */
  keepLeaseMs?: number;
  /** with keepLeaseMs: keep it even while another process waits (the holder's run of local turns is still short) */
  keepWhileOthersWait?: boolean;
}

export type CommitResult =
  /** nextJobId: for a job's commit, the job that heads the instance's queue after it */
  | { kind: 'committed'; version: number; taskEntryId?: string; effectEntryId?: string; nextJobId?: string; leaseKept: boolean }
  | { kind: 'lease_lost' }
  | { kind: 'version_moved'; version: number }
  /** the lookup key `name!value` belongs to another instance */
  | { kind: 'lookup_taken'; name: string; value: string }
  /** the delivery or job was applied before: nothing written */
  | { kind: 'already_applied' };

/** How long a delivery's marker is kept: longer than any retry or redelivery of a task, job or effect. */
export const DELIVERY_MARKER_TTL_S = 7 * 24 * 3600;

/**
 * How long a lease released to the waiting processes stays theirs to take (ms):
 * the woken waiter takes it within one round trip; this long only when the
 * waiter went away (its process died) between registering and being woken.
 */
export const HANDOFF_MS = 1000;

/** How the caller of acquire waits when the lease is busy. */
export interface AcquireOptions {
  /** woken by a hand-over: it may take a lease released to the waiters */
  handoff?: boolean;
  /** register as a waiter for this long (ms), so a release hands the lease over and wakes it; 0: no */
  waitMs?: number;
}

const SCRIPTS = ['acquireInstance', 'commitInstance', 'releaseLease', 'renewLease', 'enqueueJob', 'jobPlace', 'finishJob', 'readIfChanged'] as const;

const SCRIPT_KEYS: Record<(typeof SCRIPTS)[number], number | undefined> = {
  acquireInstance: 4,
  commitInstance: undefined, // variable: passed per call
  releaseLease: 3,
  renewLease: 1,
  enqueueJob: 3,
  jobPlace: 2,
  finishJob: 2,
  readIfChanged: 1,
};

/** Where a QUEUED_WRITE job stands in its instance's FIFO (jobPlace.lua). */
export type JobPlace = { kind: 'head' } | { kind: 'waiting'; head: string } | { kind: 'done'; resultJson?: string };

export type ScriptedRedis = Redis & {
  acquireInstance(lease: string, inst: string, waiters: string, wake: string, token: string, ttl: number, mode: string, handoff: string, waitMs: number, handoffMs: number): Promise<unknown[]>;
  commitInstance(n: number, ...args: (string | number)[]): Promise<unknown[]>;
  releaseLease(lease: string, waiters: string, wake: string, token: string, handoffMs: number): Promise<number>;
  renewLease(lease: string, token: string, ttl: number): Promise<number>;
  enqueueJob(inst: string, pending: string, result: string, jobId: string, upsert: string, refusal: string): Promise<number[]>;
  jobPlace(pending: string, result: string, jobId: string): Promise<string[]>;
  finishJob(pending: string, result: string, jobId: string, outcomeJson: string, ttlSeconds: number): Promise<[number, string]>;
  readIfChanged(inst: string, knownVersion: string): Promise<unknown[]>;
};

export type ReadResult = { kind: 'missing' } | { kind: 'unchanged' } | { kind: 'read'; instance: StoredInstance };
/** the answers that carry nothing, made once */
const READ_MISSING: ReadResult = Object.freeze({ kind: 'missing' });
const READ_UNCHANGED: ReadResult = Object.freeze({ kind: 'unchanged' });

function luaDir(): string {
  // sources live next to this file; compiled code reads them from the source tree
  const here = path.join(__dirname, 'lua');
  return fs.existsSync(here) ? here : path.resolve(__dirname, '../../../runtime/actor/lua');
}

export function emptyState(): InstanceState {
  return { public: {}, private: {}, user: {}, role: {} };
}

/** Partitions that are empty are not stored. */
export function serializeState(state: InstanceState): string {
  const compact: Partial<InstanceState> = {};
  for (const p of PARTITIONS) {
    const v = state[p];
    if (v && typeof v === 'object' && hasOwnKeys(v)) compact[p] = v;
  }
  return JSON.stringify(compact);
}

const PARTITIONS = ['public', 'private', 'user', 'role'] as const;

/** Object.keys(o).length > 0 without the array */
function hasOwnKeys(o: object): boolean {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) return true;
  return false;
}

export function parseState(json: string | null | undefined): InstanceState {
  const s = json ? (JSON.parse(json) as Partial<InstanceState>) : {};
  return { public: s.public ?? {}, private: s.private ?? {}, user: s.user ?? {}, role: s.role ?? {} };
}

/**
 * Defines the runtime's Lua scripts as commands of `redis` (once per connection):
 * the state store's connection, and the queue's, whose MULTI registers a job
 * together with BullMQ's add of it.
 */
export function defineActorScripts(redis: Redis): void {
  const dir = luaDir();
  for (const name of SCRIPTS) {
    if (typeof (redis as unknown as Record<string, unknown>)[name] === 'function') continue;
    redis.defineCommand(name, { lua: luaSource(dir, name), numberOfKeys: SCRIPT_KEYS[name] });
  }
}

/**
 * A script's source with each `-- @include <name>` line replaced by
 * `includes/<name>.lua` (a Redis script cannot load another: what several
 * scripts share is written once and copied in when they are defined).
 */
export function luaSource(dir: string, name: string): string {
  return fs.readFileSync(path.join(dir, `${name}.lua`), 'utf8').replace(/^-- @include ([A-Za-z]+)$/gm, (_, inc: string) =>
    fs.readFileSync(path.join(dir, 'includes', `${inc}.lua`), 'utf8'),
  );
}

/** Actor state, leases and lookup keys in Redis; every multi-key change is one Lua script. */
export class StateStore {
  readonly redis: ScriptedRedis;
  readonly keys: Keys;

  /** the connection's command time-out (0: none), read once: it bounds every commit's deadline */
  private readonly commandTimeoutMs: number;

  constructor(redis: Redis, projectId: string) {
    this.redis = redis as ScriptedRedis;
    this.keys = new Keys(projectId);
    const t = redis.options.commandTimeout;
    this.commandTimeoutMs = typeof t === 'number' && t > 0 ? t : 0;
    defineActorScripts(redis);
  }

  async read(classId: string, id: string): Promise<StoredInstance | undefined> {
    const [v, s, k] = await this.redis.hmget(this.keys.instance(classId, id), 'v', 's', 'k');
    if (v === null) return undefined;
    return { version: Number(v), stateJson: s ?? '{}', lookups: k ? JSON.parse(k) : {} };
  }

  /** The instance, unless its current version is `knownVersion` ('unchanged': nothing is transferred). */
  async readIfChanged(classId: string, id: string, knownVersion: number | undefined): Promise<ReadResult> {
    const r = await this.redis.readIfChanged(this.keys.instance(classId, id), knownVersion === undefined ? '' : String(knownVersion));
    switch (Number(r[0])) {
      case -1:
        return READ_MISSING;
      case 0:
        return READ_UNCHANGED;
      default:
        return { kind: 'read', instance: { version: Number(r[1]), stateJson: String(r[2]), lookups: r[3] ? JSON.parse(String(r[3])) : {} } };
    }
  }

  async exists(classId: string, id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.instance(classId, id))) === 1;
  }

  async acquire(classId: string, id: string, token: string, ttlMs: number, mode: LeaseMode, opts: AcquireOptions = {}): Promise<AcquireResult> {
    const k = this.keys;
    const r = await this.redis.acquireInstance(
      k.lease(classId, id),
      k.instance(classId, id),
      k.leaseWaiters(classId, id),
      k.leaseWake(classId, id),
      token,
      ttlMs,
      mode,
      opts.handoff ? '1' : '0',
      opts.waitMs ?? 0,
      HANDOFF_MS,
    );
    switch (Number(r[0])) {
      case 1:
        if (mode === 'init') return { kind: 'acquired' };
        return {
          kind: 'acquired',
          instance: { version: Number(r[1]), stateJson: String(r[2] ?? '{}'), lookups: r[3] ? JSON.parse(String(r[3])) : {} },
        };
      case 0:
        return { kind: 'busy', pttl: Number(r[1]) };
      case -2:
        return { kind: 'exists' };
      default:
        return { kind: 'missing' };
    }
  }

  async release(classId: string, id: string, token: string): Promise<void> {
    const k = this.keys;
    await this.redis.releaseLease(k.lease(classId, id), k.leaseWaiters(classId, id), k.leaseWake(classId, id), token, HANDOFF_MS);
  }

  /** A waiter that gives up (its budget ran out) leaves the waiters, so no release hands the lease to nobody. */
  async leaveWaiters(classId: string, id: string, token: string): Promise<void> {
    await this.redis.zrem(this.keys.leaseWaiters(classId, id), token);
  }

  /** false when the lease is no longer ours */
  async renew(classId: string, id: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.renewLease(this.keys.lease(classId, id), token, ttlMs)) === 1;
  }

  async commit(req: CommitRequest): Promise<CommitResult> {
    const k = this.keys;
    const keys = [
      k.instance(req.classId, req.instanceId),
      k.lease(req.classId, req.instanceId),
      k.outbox,
      k.tasks,
      k.events,
      k.pendingJobs(req.classId, req.instanceId),
      req.job ? k.jobResult(req.job.id) : k.noJobResult,
      req.deliveryId ? k.delivered(req.deliveryId) : k.noDelivery,
      k.effects,
      k.leaseWaiters(req.classId, req.instanceId),
      k.leaseWake(req.classId, req.instanceId),
      ...req.lookupAdds,
      ...req.lookupRemoves,
    ];
    const lookupJson = Object.keys(req.lookups).length ? JSON.stringify(req.lookups) : '';
    const args = [
      req.token,
      req.expectedVersion,
      req.changed ? '1' : '0',
      req.stateJson,
      lookupJson,
      req.classId,
      req.instanceId,
      req.lookupAdds.length,
      req.lookupRemoves.length,
      req.tasks?.length ? JSON.stringify(req.tasks) : '',
      req.events?.length ? JSON.stringify(req.events) : '',
      req.job?.id ?? '',
      req.job?.resultJson ?? '',
      req.job?.ttlSeconds ?? 0,
      req.keepLeaseMs ?? 0,
      req.deliveryId ?? '',
      DELIVERY_MARKER_TTL_S,
      req.effects?.length ? JSON.stringify(req.effects) : '',
      req.finishesEffectEntry ?? '',
      this.commitDeadline(),
      HANDOFF_MS,
      req.keepWhileOthersWait ? '1' : '0',
    ];
    const r = await this.redis.commitInstance(keys.length, ...keys, ...args);
    switch (Number(r[0])) {
      case 1:
        return {
          kind: 'committed',
          version: Number(r[1]),
          taskEntryId: r[2] ? String(r[2]) : undefined,
          effectEntryId: r[3] ? String(r[3]) : undefined,
          nextJobId: r[4] ? String(r[4]) : undefined,
          leaseKept: Number(r[5]) === 1,
        };
      case -1:
        return { kind: 'lease_lost' };
      case -2:
        return { kind: 'version_moved', version: Number(r[1]) };
      case -4:
        return { kind: 'already_applied' };
      case -5: {
        // its caller has given up (or is about to): nothing was written, the lease is released behind it
        const { status, code } = RuntimeCodes.REDIS_UNAVAILABLE;
        throw new ActorError(status, code, `The commit of ${req.classId} '${req.instanceId}' reached Redis after its deadline; nothing was written`, { retryable: true });
      }
      default:
        return { kind: 'lookup_taken', ...this.keys.parseLookup(req.classId, String(r[1])) };
    }
  }

  /**
   * The latest time (Redis's clock, ms) a commit sent now may apply: when the
   * command time-out fires the caller answers 503 "nothing committed", so a
   * commit still queued in a frozen Redis must not apply on resume. Assumes
   * the service's and Redis's clocks agree to within a few ms (NTP); '' when
   * commands have no time-out.
   */
  private commitDeadline(): string {
    const t = this.commandTimeoutMs;
    return t > 0 ? String(Date.now() + t) : '';
  }

  async resolveLookup(classId: string, name: string, value: string): Promise<string | undefined> {
    return (await this.redis.get(this.keys.lookup(classId, name, value))) ?? undefined;
  }

  /**
   * Register a job in the instance's FIFO without queueing it in BullMQ (the
   * queue registers and adds in one MULTI: runtime/queue/job-queue.ts): its
   * sequence number, 'missing' when the instance does not exist, 'done' when a
   * job of that id already ran to its end.
   */
  async enqueueJob(classId: string, id: string, jobId: string, upsert = false): Promise<number | 'missing' | 'done'> {
    const k = this.keys;
    const [seq] = await this.redis.enqueueJob(k.instance(classId, id), k.pendingJobs(classId, id), k.jobResult(jobId), jobId, upsert ? '1' : '0', '');
    return seq === -1 ? 'missing' : seq === -2 ? 'done' : seq;
  }

  /** Where job `jobId` stands in its instance's FIFO, and its stored outcome once it is no longer pending. */
  async jobPlace(classId: string, id: string, jobId: string): Promise<JobPlace> {
    const r = await this.redis.jobPlace(this.keys.pendingJobs(classId, id), this.keys.jobResult(jobId), jobId);
    if (r[0] === 'head') return { kind: 'head' };
    if (r[0] === 'waiting') return { kind: 'waiting', head: r[1] };
    return { kind: 'done', resultJson: r[1] || undefined };
  }

  /**
   * Ends a job that will not commit (failed for good, or lost) with `outcomeJson`
   * as its stored outcome, unless it committed meanwhile (`ended` false); and
   * the job that heads the instance's queue after it.
   */
  async finishJob(classId: string, id: string, jobId: string, outcomeJson: string, ttlSeconds: number): Promise<{ ended: boolean; next?: string }> {
    const [ended, next] = await this.redis.finishJob(this.keys.pendingJobs(classId, id), this.keys.jobResult(jobId), jobId, outcomeJson, ttlSeconds);
    return { ended: Number(ended) === 1, next: next || undefined };
  }

  /** Append events emitted outside a commit (STATIC handlers) to the project's event stream. */
  async appendEvents(classId: string, instanceId: string, version: number, events: unknown[]): Promise<void> {
    await this.redis.xadd(this.keys.events, '*', 'c', classId, 'i', instanceId, 'v', version, 'e', JSON.stringify(events));
  }

  /**
   * Every instance id of a class, each once (SCAN; used to rebuild projections
   * and count them). SCAN may return a key twice when Redis resizes its table
   * during the scan, so the ids already yielded are remembered (about 100 bytes
   * each: 10 MB for 100,000 instances) and not yielded again.
   */
  async *instanceIds(classId: string): AsyncGenerator<string[]> {
    const prefix = this.keys.instance(classId, '');
    const yielded = new Set<string>();
    let cursor = '0';
    do {
      const [next, batch] = await this.redis.scan(cursor, 'MATCH', this.keys.instancePattern(classId), 'COUNT', 1000);
      cursor = next;
      const ids = uniqueIds(batch, prefix.length, yielded);
      if (ids.length) yield ids;
    } while (cursor !== '0');
  }
}

/** The ids of `keys` (past `prefixLength`) not in `yielded`, each once, added to it. */
export function uniqueIds(keys: readonly string[], prefixLength: number, yielded: Set<string>): string[] {
  const ids: string[] = [];
  for (const key of keys) {
    const id = key.slice(prefixLength);
    if (yielded.has(id)) continue;
    yielded.add(id);
    ids.push(id);
  }
  return ids;
}
