import { createHash, randomBytes } from 'node:crypto';
import { luaSource } from './lua-source';
import { commandTimeoutOf, scanTargets, type RedisConnection } from '../redis/connection';
import type { InstanceState } from '../types/state';
import { ActorError, RuntimeCodes } from '../errors';

/**
 * Which bucket an instance is in: FNV-1a (32 bit) of `classId \0 id`, mod
 * `buckets`. Fixed for the life of a project's data: a key's bucket is part
 * of its name.
 */
export function bucketOf(classId: string, id: string, buckets: number): number {
  if (buckets <= 1) return 0;
  let h = 0x811c9dc5;
  const s = `${classId}\u0000${id}`;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % buckets;
}

/** The streams of one bucket: a commit writes only to its own bucket's. */
export interface BucketStreams {
  readonly bucket: number;
  /** the bucket's hash tag, `rt:{<project>:<b>}`: every key of its instances starts with it */
  readonly tag: string;
  readonly outbox: string;
  readonly tasks: string;
  readonly events: string;
  /** committed effects not yet applied (an entry per commit) */
  readonly effects: string;
  /** effects that could not be applied (refused by their target, or out of attempts), in their target's bucket */
  readonly effectsDead: string;
  /** attempts made per effect entry */
  readonly effectAttempts: string;
  /** the job-result and delivery-marker keys a commit names when it has no job or delivery */
  readonly noJobResult: string;
  readonly noDelivery: string;
  /** BullMQ's key prefix for the bucket's job queue (its keys share the bucket's slot, so a job's registration and its add are one MULTI) */
  readonly queuePrefix: string;
}

/**
 * Redis key layout of one project. Every key of an instance (state, lease,
 * waiters, queued jobs, job results, delivery markers) and its bucket's
 * streams carry the bucket's hash tag `rt:{<project>:<b>}`, so a commit's one
 * Lua script touches one slot of a Redis Cluster. Lookup keys and
 * project-wide keys (`rt:<project>:…`) have no tag: each lives in its own slot.
 */
export class Keys {
  /** the prefix of project-wide keys (API keys, roles, lookups, rate limits, sessions) */
  readonly base: string;
  readonly apiKeys: string;
  readonly roles: string;
  /** the layout the project's data was written with (buckets), checked at start */
  readonly layout: string;
  private readonly perBucket: BucketStreams[];

  constructor(
    readonly projectId: string,
    readonly buckets = 1,
  ) {
    if (!Number.isInteger(buckets) || buckets < 1)
      throw new Error(`buckets must be a positive integer, got ${buckets}`);
    const base = `rt:${projectId}`;
    this.base = base;
    this.apiKeys = `${base}:apikeys`;
    this.roles = `${base}:roles`;
    this.layout = `${base}:layout`;
    this.perBucket = Array.from({ length: buckets }, (_, b) => {
      const tag = `rt:{${projectId}:${b}}`;
      return {
        bucket: b,
        tag,
        outbox: `${tag}:outbox`,
        tasks: `${tag}:tasks`,
        events: `${tag}:events`,
        effects: `${tag}:effects`,
        effectsDead: `${tag}:effects:dead`,
        effectAttempts: `${tag}:effects:attempts`,
        noJobResult: `${tag}:jr:-`,
        noDelivery: `${tag}:dl:-`,
        queuePrefix: tag,
      };
    });
  }

  /** every bucket's streams, bucket 0 first */
  get all(): readonly BucketStreams[] {
    return this.perBucket;
  }

  bucketOf(classId: string, id: string): number {
    return bucketOf(classId, id, this.buckets);
  }

  /** the streams of instance `classId`/`id`'s bucket */
  of(classId: string, id: string): BucketStreams {
    return this.perBucket[this.bucketOf(classId, id)];
  }

  bucket(b: number): BucketStreams {
    const s = this.perBucket[b];
    if (!s) throw new Error(`no bucket ${b} (of ${this.buckets})`);
    return s;
  }

  private tagOf(classId: string, id: string): string {
    return this.perBucket[this.bucketOf(classId, id)].tag;
  }

  instance(classId: string, id: string): string {
    return `${this.tagOf(classId, id)}:i:${classId}:${id}`;
  }
  /** SCAN pattern of a class's instance keys (every bucket) */
  instancePattern(classId: string): string {
    return `rt:{${this.projectId}:*}:i:${classId}:*`;
  }
  /** the instance id of an instance key of `classId` */
  idOfInstanceKey(classId: string, key: string): string {
    const marker = `}:i:${classId}:`;
    const at = key.indexOf(marker);
    return at < 0 ? '' : key.slice(at + marker.length);
  }
  lease(classId: string, id: string): string {
    return `${this.tagOf(classId, id)}:l:${classId}:${id}`;
  }
  /** processes waiting for an instance's lease: waiter token -> until when it waits (ms) */
  leaseWaiters(classId: string, id: string): string {
    return `${this.tagOf(classId, id)}:lw:${classId}:${id}`;
  }
  /** the list a released lease pushes a wake-up to; its waiters block on it (BLPOP wakes the longest waiter) */
  leaseWake(classId: string, id: string): string {
    return `${this.tagOf(classId, id)}:lq:${classId}:${id}`;
  }
  /** a lookup key: its own slot (reserved before the commit that claims it, confirmed after) */
  lookup(classId: string, name: string, value: string): string {
    return `${this.base}:k:${classId}:${name}:${value}`;
  }
  pendingJobs(classId: string, id: string): string {
    return `${this.tagOf(classId, id)}:qp:${classId}:${id}`;
  }
  /**
   * The id of a QUEUED_WRITE job `base` for instance `classId`/`id` in BullMQ:
   * with several buckets it starts with its bucket (`<b>.`), so a job named by
   * its id alone (its status URL) is found in its bucket's queue.
   */
  jobId(classId: string, id: string, base: string): string {
    return this.buckets > 1 ? `${this.bucketOf(classId, id)}.${base}` : base;
  }
  /** the bucket a job id names (0 with one bucket; undefined: no bucket of this project) */
  bucketOfJob(jobId: string): number | undefined {
    if (this.buckets === 1) return 0;
    const m = /^(\d{1,4})\./.exec(jobId);
    const b = m ? Number(m[1]) : NaN;
    return b < this.buckets ? b : undefined;
  }
  /** the stored outcome of job `jobId` of instance `classId`/`id`, in the instance's bucket */
  jobResult(classId: string, id: string, jobId: string): string {
    return `${this.tagOf(classId, id)}:jr:${jobId}`;
  }
  /** marker of a delivery (delayed task, committed effect) to `classId`/`id` whose change was committed */
  delivered(classId: string, id: string, deliveryId: string): string {
    return `${this.tagOf(classId, id)}:dl:${deliveryId}`;
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
  /** lookups this commit gives the instance (reserved before, confirmed after the commit) */
  lookupAdds: LookupPair[];
  /** lookups it takes away (their keys deleted after the commit) */
  lookupRemoves: LookupPair[];
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

/** An entry of one bucket's stream (tasks, effects). */
export interface StreamEntry {
  bucket: number;
  id: string;
}

export interface LookupPair {
  name: string;
  value: string;
}

export type CommitResult =
  /**
   * nextJobId: for a job's commit, the job that heads the instance's queue after it;
   * unconfirmed: no replica confirmed it in time (REDIS_WAIT_REPLICAS)
   */
  | {
      kind: 'committed';
      version: number;
      taskEntryId?: string;
      effectEntryId?: string;
      nextJobId?: string;
      leaseKept: boolean;
      unconfirmed?: boolean;
    }
  | { kind: 'lease_lost' }
  | { kind: 'version_moved'; version: number }
  /** the lookup key `name!value` belongs to another instance */
  | { kind: 'lookup_taken'; name: string; value: string }
  /** the delivery or job was applied before: nothing written */
  | { kind: 'already_applied' };

/**
 * How long a lookup reservation holds (ms): its commit must reach Redis this
 * long after it, less LOOKUP_CLOCK_MARGIN_MS, or it is refused. After it, a
 * reservation whose instance does not hold the lookup may be taken by another.
 */
export const LOOKUP_RESERVATION_MS = 10_000;
/** how far apart two Redis nodes' clocks may be (the reservation's node and the commit's) */
export const LOOKUP_CLOCK_MARGIN_MS = 1000;

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

const SCRIPTS = [
  'acquireInstance',
  'commitInstance',
  'commitSnapshot',
  'commitState',
  'releaseLease',
  'renewLease',
  'enqueueJob',
  'jobPlace',
  'finishJob',
  'readIfChanged',
  'claimLookup',
  'settleLookup',
] as const;

const SCRIPT_KEYS: Record<(typeof SCRIPTS)[number], number | undefined> = {
  acquireInstance: 4,
  commitInstance: 11,
  commitSnapshot: 6,
  commitState: 3,
  releaseLease: 3,
  renewLease: 1,
  enqueueJob: 3,
  jobPlace: 2,
  finishJob: 2,
  readIfChanged: 1,
  claimLookup: 1,
  settleLookup: 1,
};

/**
 * What the commit scripts answer (commitInstance.lua, commitSnapshot.lua, commitState.lua):
 * {1, version, task entry, effect entry, next job, lease kept} (commitSnapshot and commitState
 * stop after the effect entry; '' where nothing was added) | {-2, version} | {-1} | {-4} | {-5}.
 */
type CommitReply = [number, number?, string?, string?, string?, number?];

/** Where a QUEUED_WRITE job stands in its instance's FIFO (jobPlace.lua). */
export type JobPlace = { kind: 'head' } | { kind: 'waiting'; head: string } | { kind: 'done'; resultJson?: string };

export type ScriptedRedis = RedisConnection & {
  acquireInstance(
    lease: string,
    inst: string,
    waiters: string,
    wake: string,
    token: string,
    ttl: number,
    mode: string,
    handoff: string,
    waitMs: number,
    handoffMs: number,
  ): Promise<unknown[]>;
  commitInstance(...keysThenArgs: (string | number)[]): Promise<unknown[]>;
  commitSnapshot(...keysThenArgs: (string | number)[]): Promise<unknown[]>;
  commitState(...keysThenArgs: (string | number)[]): Promise<unknown[]>;
  claimLookup(
    key: string,
    owner: string,
    nonce: string,
    holdMs: number,
    notHolding: string,
  ): Promise<[number, string | number, number?]>;
  settleLookup(key: string, mode: 'confirm' | 'release' | 'drop', reservation: string, owner: string): Promise<number>;
  releaseLease(lease: string, waiters: string, wake: string, token: string, handoffMs: number): Promise<number>;
  renewLease(lease: string, token: string, ttl: number): Promise<number>;
  enqueueJob(
    inst: string,
    pending: string,
    result: string,
    jobId: string,
    upsert: string,
    refusal: string,
  ): Promise<number[]>;
  jobPlace(pending: string, result: string, jobId: string): Promise<string[]>;
  finishJob(
    pending: string,
    result: string,
    jobId: string,
    outcomeJson: string,
    ttlSeconds: number,
  ): Promise<[number, string]>;
  readIfChanged(inst: string, knownVersion: string): Promise<unknown[]>;
};

export type ReadResult = { kind: 'missing' } | { kind: 'unchanged' } | { kind: 'read'; instance: StoredInstance };
/** the answers that carry nothing, made once */
const READ_MISSING: ReadResult = Object.freeze({ kind: 'missing' });
const READ_UNCHANGED: ReadResult = Object.freeze({ kind: 'unchanged' });

export function emptyState(): InstanceState {
  return { public: {}, private: {}, user: {}, role: {} };
}

/** Partitions that are empty are not stored. */
/** `stateVersion`: the class's state version (ClassOptions.state), stored from 2 on so a version-1 state is as before */
export function serializeState(state: InstanceState, stateVersion = 1): string {
  const compact: Partial<InstanceState> & { v?: number } = {};
  for (const p of PARTITIONS) {
    const v = state[p];
    if (v && typeof v === 'object' && hasOwnKeys(v)) compact[p] = v;
  }
  if (stateVersion > 1) compact.v = stateVersion;
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
/** a script's source and SHA-1, read once per process (the hot paths send EVALSHA themselves: see StateStore.script) */
const scriptTexts = new Map<string, { lua: string; sha: string }>();
function scriptText(name: (typeof SCRIPTS)[number]): { lua: string; sha: string } {
  let t = scriptTexts.get(name);
  if (!t) {
    const lua = luaSource(name);
    scriptTexts.set(name, (t = { lua, sha: createHash('sha1').update(lua).digest('hex') }));
  }
  return t;
}

export function defineActorScripts(redis: RedisConnection): void {
  for (const name of SCRIPTS) {
    if (typeof (redis as unknown as Record<string, unknown>)[name] === 'function') continue;
    redis.defineCommand(name, { lua: luaSource(name), numberOfKeys: SCRIPT_KEYS[name] });
  }
}

/** Actor state, leases and lookup keys in Redis; every multi-key change is one Lua script. */
export class StateStore {
  readonly redis: ScriptedRedis;
  readonly keys: Keys;

  /** the connection's command time-out (0: none), read once: it bounds every commit's deadline */
  private readonly commandTimeoutMs: number;

  /**
   * Replicas each commit waits for (WAIT) before it is acknowledged, and how
   * long; 0: none. Set at start (runtime.ts) from REDIS_WAIT_REPLICAS.
   */
  waitReplicas = 0;
  waitTimeoutMs = 1000;

  constructor(redis: RedisConnection, projectId: string, buckets = 1) {
    this.redis = redis as ScriptedRedis;
    this.keys = new Keys(projectId, buckets);
    this.commandTimeoutMs = commandTimeoutOf(redis);
    defineActorScripts(redis);
  }

  /**
   * Runs script `name` with EVALSHA, and with EVAL when Redis does not know
   * it (a restarted or failed-over server, a SCRIPT FLUSH): what ioredis's
   * defined command does, without the command class, closures and promise
   * chain it makes per call (the READ's and the plain WRITE's one round trip).
   */
  private script(
    name: 'readIfChanged' | 'commitState' | 'commitSnapshot' | 'commitInstance',
    keys: string[],
    args: (string | number)[],
  ): Promise<unknown[]> {
    const { lua, sha } = scriptText(name);
    const redis = this.redis as unknown as {
      evalsha(sha: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown[]>;
      eval(lua: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown[]>;
    };
    return redis.evalsha(sha, keys.length, ...keys, ...args).catch((err: unknown) => {
      if (!(err instanceof Error) || !err.message.includes('NOSCRIPT')) throw err;
      return redis.eval(lua, keys.length, ...keys, ...args);
    });
  }

  async read(classId: string, id: string): Promise<StoredInstance | undefined> {
    const [v, s, k] = await this.redis.hmget(this.keys.instance(classId, id), 'v', 's', 'k');
    if (v === null) return undefined;
    return { version: Number(v), stateJson: s ?? '{}', lookups: k ? (JSON.parse(k) as Record<string, string>) : {} };
  }

  /** The instance, unless its current version is `knownVersion` ('unchanged': nothing is transferred). */
  async readIfChanged(classId: string, id: string, knownVersion: number | undefined): Promise<ReadResult> {
    // readIfChanged.lua: {-1} | {0} | {1, version, state, lookups}
    const r = (await this.script(
      'readIfChanged',
      [this.keys.instance(classId, id)],
      [knownVersion === undefined ? '' : String(knownVersion)],
    )) as [number, string?, string?, string?];
    switch (Number(r[0])) {
      case -1:
        return READ_MISSING;
      case 0:
        return READ_UNCHANGED;
      default:
        return {
          kind: 'read',
          instance: {
            version: Number(r[1]),
            stateJson: String(r[2]),
            lookups: r[3] ? (JSON.parse(r[3]) as Record<string, string>) : {},
          },
        };
    }
  }

  async exists(classId: string, id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.instance(classId, id))) === 1;
  }

  async acquire(
    classId: string,
    id: string,
    token: string,
    ttlMs: number,
    mode: LeaseMode,
    opts: AcquireOptions = {},
  ): Promise<AcquireResult> {
    const k = this.keys;
    // acquireInstance.lua: {1, version, state, lookups} (init: {1}) | {0, pttl} | {-2} | {-3}; a missing field is nil
    const r = (await this.redis.acquireInstance(
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
    )) as [number, (string | number | null)?, (string | null)?, (string | null)?];
    switch (Number(r[0])) {
      case 1:
        if (mode === 'init') return { kind: 'acquired' };
        return {
          kind: 'acquired',
          instance: {
            version: Number(r[1]),
            stateJson: String(r[2] ?? '{}'),
            lookups: r[3] ? (JSON.parse(r[3]) as Record<string, string>) : {},
          },
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
    await this.redis.releaseLease(
      k.lease(classId, id),
      k.leaseWaiters(classId, id),
      k.leaseWake(classId, id),
      token,
      HANDOFF_MS,
    );
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
    const b = k.of(req.classId, req.instanceId);
    let deadline = this.commitDeadline();
    const reserved: { key: string; reservation: string }[] = [];
    if (req.lookupAdds.length) {
      // each lookup key is in its own slot: reserved first, so the commit below may give the instance the lookup
      try {
        for (const add of req.lookupAdds) {
          const r = await this.claimLookup(req.classId, req.instanceId, add);
          if (r.kind === 'taken') {
            await this.settleReservations(reserved, 'release');
            return { kind: 'lookup_taken', name: add.name, value: add.value };
          }
          reserved.push({ key: r.key, reservation: r.reservation });
          const last = r.deadline - LOOKUP_CLOCK_MARGIN_MS;
          if (deadline === undefined || last < deadline) deadline = last;
        }
      } catch (err) {
        await this.settleReservations(reserved, 'release');
        throw err;
      }
    }
    // a write run on a snapshot without the lease, changing no lookup: the short commit
    const snapshot =
      req.token === '' &&
      req.expectedVersion > 0 &&
      !req.job &&
      !req.deliveryId &&
      !req.finishesEffectEntry &&
      !req.lookupAdds.length &&
      !req.lookupRemoves.length;
    if (snapshot && !req.tasks?.length && !req.events?.length && !req.effects?.length) {
      // nothing but the state: 3 keys and 3 arguments (the outbox entry's ids come from the instance key)
      const { r, acks } = await this.runCommit(
        'commitState',
        [k.instance(req.classId, req.instanceId), k.lease(req.classId, req.instanceId), b.outbox],
        [req.expectedVersion, req.changed ? req.stateJson : '', deadline === undefined ? '' : String(deadline)],
      );
      return this.commitOutcome(req, r, acks, reserved);
    }
    if (snapshot) {
      const { r, acks } = await this.runCommit(
        'commitSnapshot',
        [
          k.instance(req.classId, req.instanceId),
          k.lease(req.classId, req.instanceId),
          b.outbox,
          b.tasks,
          b.events,
          b.effects,
        ],
        [
          req.expectedVersion,
          req.changed ? req.stateJson : '',
          req.classId,
          req.instanceId,
          req.tasks?.length ? JSON.stringify(req.tasks) : '',
          req.events?.length ? JSON.stringify(req.events) : '',
          req.effects?.length ? JSON.stringify(req.effects) : '',
          deadline === undefined ? '' : String(deadline),
        ],
      );
      return this.commitOutcome(req, r, acks, reserved);
    }
    const keys = [
      k.instance(req.classId, req.instanceId),
      k.lease(req.classId, req.instanceId),
      b.outbox,
      b.tasks,
      b.events,
      k.pendingJobs(req.classId, req.instanceId),
      req.job ? k.jobResult(req.classId, req.instanceId, req.job.id) : b.noJobResult,
      req.deliveryId ? k.delivered(req.classId, req.instanceId, req.deliveryId) : b.noDelivery,
      b.effects,
      k.leaseWaiters(req.classId, req.instanceId),
      k.leaseWake(req.classId, req.instanceId),
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
      deadline === undefined ? '' : String(deadline),
      HANDOFF_MS,
      req.keepWhileOthersWait ? '1' : '0',
    ];
    // a commit whose outcome is unknown (the connection dropped) keeps its reservations: they lapse at their deadline
    const { r, acks } = await this.runCommit('commitInstance', keys, args);
    return this.commitOutcome(req, r, acks, reserved);
  }

  /** Sends a commit script; with waitReplicas, WAIT for the replicas in its pipeline. `acks`: replicas that confirmed it. */
  private async runCommit(
    script: 'commitInstance' | 'commitSnapshot' | 'commitState',
    keys: string[],
    args: (string | number)[],
  ): Promise<{ r: CommitReply; acks: number }> {
    if (this.waitReplicas > 0) {
      // WAIT has no key: sent in the commit's pipeline it goes to the node that took the commit
      const p = this.redis.pipeline() as unknown as ScriptedRedis & {
        exec(): Promise<[Error | null, unknown][] | null>;
      };
      // queued on the pipeline: its answer comes from exec
      void p[script](...keys, ...args);
      (p as unknown as { wait(n: number, ms: number): void }).wait(this.waitReplicas, this.waitTimeoutMs);
      const out = (await p.exec()) ?? [];
      if (out[0]?.[0]) throw out[0][0];
      return { r: out[0][1] as CommitReply, acks: out[1]?.[0] ? 0 : Number(out[1]?.[1] ?? 0) };
    }
    return { r: (await this.script(script, keys, args)) as CommitReply, acks: Infinity };
  }

  /** A commit script's answer as a CommitResult; lookup reservations are confirmed or released by it. */
  private async commitOutcome(
    req: CommitRequest,
    r: CommitReply,
    acks: number,
    reserved: { key: string; reservation: string }[],
  ): Promise<CommitResult> {
    const k = this.keys;
    const code = Number(r[0]);
    // most commits claim no lookup: no async step for nothing then
    if (code !== 1 && reserved.length) await this.settleReservations(reserved, 'release');
    switch (code) {
      case 1: {
        // the change is committed: a confirmation or a drop that fails now leaves a key the protocol already
        // reads right (a lapsed reservation whose owner holds the lookup is the owner's; a key whose owner
        // no longer holds it is free), so it does not turn the commit into an error
        if (reserved.length) await this.settleReservations(reserved, 'confirm').catch(() => undefined);
        for (const rm of req.lookupRemoves) {
          await this.redis
            .settleLookup(k.lookup(req.classId, rm.name, rm.value), 'drop', '', req.instanceId)
            .catch(() => undefined);
        }
        return {
          kind: 'committed',
          version: Number(r[1]),
          taskEntryId: r[2] ? String(r[2]) : undefined,
          effectEntryId: r[3] ? String(r[3]) : undefined,
          nextJobId: r[4] ? String(r[4]) : undefined,
          leaseKept: Number(r[5]) === 1,
          ...(acks < this.waitReplicas ? { unconfirmed: true } : {}),
        };
      }
      case -1:
        return { kind: 'lease_lost' };
      case -2:
        return { kind: 'version_moved', version: Number(r[1]) };
      case -4:
        return { kind: 'already_applied' };
      default: {
        // its caller has given up (or is about to), or a lookup reservation may have lapsed: nothing was written
        const { status, code: c } = RuntimeCodes.REDIS_UNAVAILABLE;
        throw new ActorError(
          status,
          c,
          `The commit of ${req.classId} '${req.instanceId}' reached Redis after its deadline; nothing was written`,
          { retryable: true },
        );
      }
    }
  }

  /**
   * Reserves lookup `name!value` for the instance (claimLookup.lua). Another
   * owner's key is free when its reservation lapsed and that owner's committed
   * lookups do not hold it (its commit never happened, or a later one removed
   * the lookup and the key was left behind).
   */
  private async claimLookup(
    classId: string,
    id: string,
    pair: LookupPair,
  ): Promise<{ kind: 'reserved'; key: string; reservation: string; deadline: number } | { kind: 'taken' }> {
    const key = this.keys.lookup(classId, pair.name, pair.value);
    const nonce = randomBytes(6).toString('base64url');
    let notHolding = '';
    for (let attempt = 0; attempt < 4; attempt++) {
      const r = await this.redis.claimLookup(key, id, nonce, LOOKUP_RESERVATION_MS, notHolding);
      if (Number(r[0]) === 1) {
        const deadline = Number(r[1]);
        return { kind: 'reserved', key, reservation: `${id} ${nonce} ${deadline}`, deadline };
      }
      const current = String(r[1]);
      if (Number(r[2]) === 1) return { kind: 'taken' };
      const owner = lookupOwner(current);
      if (await this.holdsLookup(classId, owner, pair)) return { kind: 'taken' };
      notHolding = current;
    }
    return { kind: 'taken' };
  }

  private async settleReservations(
    reserved: { key: string; reservation: string }[],
    mode: 'confirm' | 'release',
  ): Promise<void> {
    for (const r of reserved) await this.redis.settleLookup(r.key, mode, r.reservation, '');
  }

  /** Does instance `id`'s committed lookup map give it `name!value`? */
  private async holdsLookup(classId: string, id: string, pair: LookupPair): Promise<boolean> {
    const raw = await this.redis.hget(this.keys.instance(classId, id), 'k');
    if (!raw) return false;
    return (JSON.parse(raw) as Record<string, string>)[pair.name] === pair.value;
  }

  /**
   * The latest time (Redis's clock, ms) a commit sent now may apply: when the
   * command time-out fires the caller answers 503 "nothing committed", so a
   * commit still queued in a frozen Redis must not apply on resume. Assumes
   * the service's and Redis's clocks agree to within a few ms (NTP); '' when
   * commands have no time-out.
   */
  private commitDeadline(): number | undefined {
    const t = this.commandTimeoutMs;
    return t > 0 ? Date.now() + t : undefined;
  }

  /**
   * The instance lookup `name!value` names: the key's owner. A reservation
   * still in flight names its owner only once the owner's commit gave it the
   * lookup; callers that read the instance check that it holds the lookup.
   */
  async resolveLookup(classId: string, name: string, value: string): Promise<string | undefined> {
    const raw = await this.redis.get(this.keys.lookup(classId, name, value));
    if (raw === null) return undefined;
    const owner = lookupOwner(raw);
    if (!isReservation(raw)) return owner;
    return (await this.holdsLookup(classId, owner, { name, value })) ? owner : undefined;
  }

  /**
   * Register a job in the instance's FIFO without queueing it in BullMQ (the
   * queue registers and adds in one MULTI: runtime/queue/job-queue.ts): its
   * sequence number, 'missing' when the instance does not exist, 'done' when a
   * job of that id already ran to its end.
   */
  async enqueueJob(classId: string, id: string, jobId: string, upsert = false): Promise<number | 'missing' | 'done'> {
    const k = this.keys;
    const [seq] = await this.redis.enqueueJob(
      k.instance(classId, id),
      k.pendingJobs(classId, id),
      k.jobResult(classId, id, jobId),
      jobId,
      upsert ? '1' : '0',
      '',
    );
    return seq === -1 ? 'missing' : seq === -2 ? 'done' : seq;
  }

  /** Where job `jobId` stands in its instance's FIFO, and its stored outcome once it is no longer pending. */
  async jobPlace(classId: string, id: string, jobId: string): Promise<JobPlace> {
    const r = await this.redis.jobPlace(
      this.keys.pendingJobs(classId, id),
      this.keys.jobResult(classId, id, jobId),
      jobId,
    );
    if (r[0] === 'head') return { kind: 'head' };
    if (r[0] === 'waiting') return { kind: 'waiting', head: r[1] };
    return { kind: 'done', resultJson: r[1] || undefined };
  }

  /**
   * Ends a job that will not commit (failed for good, or lost) with `outcomeJson`
   * as its stored outcome, unless it committed meanwhile (`ended` false); and
   * the job that heads the instance's queue after it.
   */
  async finishJob(
    classId: string,
    id: string,
    jobId: string,
    outcomeJson: string,
    ttlSeconds: number,
  ): Promise<{ ended: boolean; next?: string }> {
    const [ended, next] = await this.redis.finishJob(
      this.keys.pendingJobs(classId, id),
      this.keys.jobResult(classId, id, jobId),
      jobId,
      outcomeJson,
      ttlSeconds,
    );
    return { ended: Number(ended) === 1, next: next || undefined };
  }

  /** Append events emitted outside a commit (STATIC handlers) to the event stream of the bucket of `classId`/`instanceId`. */
  async appendEvents(classId: string, instanceId: string, version: number, events: unknown[]): Promise<void> {
    await this.redis.xadd(
      this.keys.of(classId, instanceId).events,
      '*',
      'c',
      classId,
      'i',
      instanceId,
      'v',
      version,
      'e',
      JSON.stringify(events),
    );
  }

  /**
   * Every instance id of a class, each once (SCAN; used to rebuild projections
   * and count them). SCAN may return a key twice when Redis resizes its table
   * during the scan, so the ids already yielded are remembered (about 100 bytes
   * each: 10 MB for 100,000 instances) and not yielded again.
   */
  async *instanceIds(classId: string): AsyncGenerator<string[]> {
    const yielded = new Set<string>();
    // SCAN walks one server's keys: on a cluster, every master's
    for (const node of scanTargets(this.redis)) {
      let cursor = '0';
      do {
        const [next, batch] = await node.scan(cursor, 'MATCH', this.keys.instancePattern(classId), 'COUNT', 1000);
        cursor = next;
        const ids = uniqueIds(batch, (key) => this.keys.idOfInstanceKey(classId, key), yielded);
        if (ids.length) yield ids;
      } while (cursor !== '0');
    }
  }
}

/** The owner named by a lookup key's value ('<id>', '<id> <nonce>' or '<id> <nonce> <deadline>'). */
export function lookupOwner(value: string): string {
  const space = value.indexOf(' ');
  return space < 0 ? value : value.slice(0, space);
}

/** Is this lookup key's value a reservation (not confirmed yet)? */
export function isReservation(value: string): boolean {
  return value.split(' ').length === 3;
}

/** The ids of `keys` (as `idOf` reads them) not in `yielded`, each once, added to it. */
export function uniqueIds(keys: readonly string[], idOf: (key: string) => string, yielded: Set<string>): string[] {
  const ids: string[] = [];
  for (const key of keys) {
    const id = idOf(key);
    if (!id || yielded.has(id)) continue;
    yielded.add(id);
    ids.push(id);
  }
  return ids;
}
