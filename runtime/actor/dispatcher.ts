import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { LRUCache } from 'lru-cache';
import type { Background } from '../background';
import { REDACT_PATHS } from '../logger';
import type { Authorizer } from '../auth/types';
import { ActorError, runtimeError, RuntimeCodes, unknownInstanceError } from '../errors';
import type { DocumentStore } from '../stream/document-store';
import type { JournalReader, RedisJournals } from './journal';
import { deepFreeze } from './local-queue';
import { TurnManager, type InstanceWaitObserver, type Turn } from './turns';
import { ReadCache } from './read-cache';
import type { RegisteredClass, RegisteredMethod } from './registry';
import type { ClassRegistry } from './registry';
import {
  emptyState,
  parseState,
  serializeState,
  type LeaseMode,
  type LookupPair,
  type StateStore,
  type StoredInstance,
  type StreamEntry,
} from './state-store';
import type {
  CallResult,
  EmittedEvent,
  RequestInfo,
  ResponseInit,
  ScheduleRequest,
  EffectRequest,
} from '../types/calls';
import type { Ctx, LookupApi, TenancyApi } from '../types/context';
import type { DocumentReader } from '../types/documents';
import type { Identity } from '../types/identity';
import type { MethodKind } from '../types/kinds';
import type { RateLimits } from '../types/limits';
import type { MailMessage, MessageSender, SmsMessage } from '../types/mail';
import type { InitOptions } from '../types/methods';
import type { Ports } from '../types/ports';
import type { RoleDefinition } from '../types/roles';
import type { InstanceState } from '../types/state';
import type { TokenIssuer } from '../types/tokens';
import { toFieldErrors } from './validation';
import { EffectApplier, type Effect } from './effects';
import { assertOwnedBy, assertTenantMayCall, tenancyApi, tenantDocuments } from '../auth/tenancy';
import { outboundEffect } from '../mail/outbound';
import { RedisRateLimits } from './rate-limit';

export type CallOrigin = 'http' | 'class' | 'queue' | 'task' | 'system' | 'effect';

/** An instance held by a call further up the chain (for re-entrancy checks). */
interface Frame {
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

export interface DispatcherDeps {
  projectId: string;
  registry: ClassRegistry;
  store: StateStore;
  documents: DocumentStore;
  ports: Ports;
  authorizer: Authorizer;
  logger: Logger;
  maxCallDepth: number;
  /** lease time-to-live; renewed every third of it while the handler runs, so a crashed holder frees the instance soon */
  leaseTtlMs: number;
  /** bytes of state JSON the READ cache may hold (0: off); see read-cache.ts */
  readCacheBytes?: number;
  /** lookup keys remembered per process (0: off); see LookupCache */
  lookupCacheSize?: number;
  /** ctx.tokens: signs callers in (runtime/auth/sessions.ts); absent: handlers that ask get an error */
  tokens?: TokenIssuer;
  /** the call journals (ctx.journals); absent: handlers that read one get an error */
  journals?: RedisJournals;
  /** called after every commit that changed state (inline projection) */
  onCommit?: (classId: string, instanceId: string, version: number, stateJson: string, state: InstanceState) => void;
  /** work started after a commit without waiting for it (task hand-over), which a stop waits for */
  background?: Background;
}

const INSTANCE_ID = /^[A-Za-z0-9_.@+\-=]{1,200}$/;
const LOOKUP_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const JOB_RESULT_TTL_S = 7 * 24 * 3600;

/** an optimistic run that cannot stand: run the handler again under the lease */
const RETRY_WITH_LEASE = Symbol('retry with the lease');

/** An instance id taken from the lookup cache, to be confirmed by the instance's own lookups once read. */
interface CachedLookup {
  key: string;
  name: string;
  value: string;
}

interface Resolved {
  id?: string;
  cached?: CachedLookup;
}

const NO_INSTANCE: Resolved = Object.freeze({});

/** What a handler sees of the request (ctx.request, an INIT's instanceId hook) */
function requestInfoOf(projectId: string, req: CallRequest, instanceId: string | undefined): RequestInfo {
  return {
    body: req.body === undefined ? {} : req.body,
    headers: req.headers ?? {},
    query: req.query ?? {},
    path: { projectId, classId: req.classId, method: req.method, instanceId },
    ip: req.ip,
    requestId: req.requestId,
  };
}

/** The cached lookup no longer names that instance: resolve again from Redis. */
class StaleLookup extends Error {
  constructor(readonly key: string) {
    super('stale lookup cache entry');
  }
}

/**
 * Lookup keys (`name!value`) this process resolved lately → instance id, so a
 * call by lookup needs no GET first. An entry is only trusted once the
 * instance read or acquired for the call still holds that lookup in its own
 * committed lookups (they change in the same Lua step as the keys); otherwise
 * the call resolves again. Least recently used entries go first.
 */
class LookupCache {
  private readonly entries: LRUCache<string, string> | undefined;
  /** look-ups answered from here, and those that had to ask Redis (read by the runtime's metrics) */
  hits = 0;
  misses = 0;

  constructor(max: number) {
    this.entries = max > 0 ? new LRUCache({ max }) : undefined;
  }

  get(key: string): string | undefined {
    const id = this.entries?.get(key);
    if (id !== undefined) this.hits++;
    return id;
  }

  set(key: string, id: string): void {
    this.entries?.set(key, id);
  }

  delete(key: string): void {
    this.entries?.delete(key);
  }
}

export class Dispatcher {
  /** local turns and leases of the exclusive path (runtime/actor/turns.ts) */
  private readonly turns: TurnManager;
  private jobs?: JobSink;
  /** parsed, frozen states of recently read instances, checked against Redis's version on every READ */
  readonly readCache: ReadCache;

  /** recently resolved lookup keys (confirmed against the instance on every use) */
  readonly lookupCache: LookupCache;

  /** applies committed effects after their commit, and sweeps those left behind */
  readonly effects: EffectApplier;

  /** ctx.limits: throttling counters in Redis, shared by every process */
  readonly limits: RateLimits;

  /** WRITEs run on a cached snapshot without the lease: answered so (committed, or refused on the current state), or run again under the lease (metrics) */
  readonly optimisticWrites = { answered: 0, retried: 0 };

  /** methods whose runs needed the lease (see runTurn): never tried optimistically again in this process */
  private readonly leasedMethods = new WeakSet<RegisteredMethod>();

  constructor(private readonly deps: DispatcherDeps) {
    this.readCache = new ReadCache(deps.readCacheBytes ?? 0);
    this.lookupCache = new LookupCache(deps.lookupCacheSize ?? 0);
    this.effects = new EffectApplier({ store: deps.store, logger: deps.logger, call: (req) => this.call(req) });
    this.turns = new TurnManager({ store: deps.store, logger: deps.logger, leaseTtlMs: deps.leaseTtlMs });
    this.limits = new RedisRateLimits(deps.store.redis, deps.store.keys.base);
  }

  setJobSink(jobs: JobSink): void {
    this.jobs = jobs;
  }

  /** Closes the connections of writers waiting for another process's lease (at stop, before the call connection). */
  close(): void {
    this.turns.close();
  }

  /** told how long each write that found its instance busy waited for it (the runtime's metrics) */
  observeInstanceWaits(observer: InstanceWaitObserver): void {
    this.turns.observer = observer;
  }

  get projectId(): string {
    return this.deps.projectId;
  }

  private jobSink(): JobSink {
    if (!this.jobs) throw runtimeError('INTERNAL', 'no job queue configured');
    return this.jobs;
  }

  /** Run one call end to end. Always resolves to a result or rejects with an ActorError. */
  async call(req: CallRequest): Promise<CallResult> {
    const cls = this.deps.registry.get(req.classId);
    if (!cls) throw runtimeError('UNKNOWN_CLASS', `Unknown class '${req.classId}'`);
    try {
      const method = cls.methodsByName.get(req.method);
      if (!method) throw runtimeError('UNKNOWN_METHOD', `Class '${req.classId}' has no method '${req.method}'`);
      if (method.kind === 'INTERNAL' && req.origin === 'http') {
        throw runtimeError(
          'METHOD_INTERNAL',
          `${req.classId}.${req.method} is internal and can only be called by classes`,
        );
      }
      const depth = req.chain?.length ?? 0;
      if (depth > this.deps.maxCallDepth) {
        throw runtimeError('CALL_DEPTH', `Call depth ${depth} exceeds the limit of ${this.deps.maxCallDepth}`);
      }
      // most calls need no role look-up: then access is decided without a promise
      const admitted = this.admit(req.identity, cls, method);
      if (admitted) await admitted;
      // before the instance is looked up: a caller refused here learns nothing of whether it exists
      method.options.guard?.({ identity: req.identity, instanceId: req.instanceId });
      const pending = this.resolveInstance(cls, method, req, true);
      const resolved = pending instanceof Promise ? await pending : pending;
      try {
        this.validate(cls, method, req.body);
      } catch (err) {
        // An unknown instance is answered before the input is judged (the platform answers
        // before the handler runs); checked only here, so a valid call pays no extra round trip.
        if (resolved.id && needsExistingInstance(method) && !(await this.deps.store.exists(cls.id, resolved.id))) {
          throw unknownInstanceError(this.deps.projectId, cls.id, req.instanceId ?? resolved.id);
        }
        throw err;
      }
      try {
        return await this.run(cls, method, req, resolved);
      } catch (err) {
        if (!(err instanceof StaleLookup)) throw err;
        this.lookupCache.delete(err.key);
        try {
          return await this.run(cls, method, req, await this.resolveInstance(cls, method, req, false));
        } catch (again) {
          // the key names an instance that does not hold the lookup (left behind by a commit that removed it)
          if (again instanceof StaleLookup)
            throw unknownInstanceError(this.deps.projectId, cls.id, req.instanceId ?? '');
          throw again;
        }
      }
    } catch (err) {
      if (err instanceof ActorError && !err.classId && !err.body) err.classId = cls.id;
      throw err;
    }
  }

  /** May `identity` call `method` of `cls`: access rules, roles, tenancy. Undefined when decided without a role look-up. */
  private admit(identity: Identity, cls: RegisteredClass, method: RegisteredMethod): Promise<void> | void {
    const roles = this.deps.authorizer.authorize(identity, cls, method);
    if (identity.tenant === undefined) return roles;
    if (!roles) return assertTenantMayCall(identity, cls.id, method.name, method.kind, cls.options.tenancy);
    return roles.then(() => assertTenantMayCall(identity, cls.id, method.name, method.kind, cls.options.tenancy));
  }

  /** The class and method a call, effect or enqueue names (404 UNKNOWN_CLASS, UNKNOWN_METHOD otherwise). */
  private target(classId: string, method: string): { cls: RegisteredClass; m: RegisteredMethod } {
    const cls = this.deps.registry.get(classId);
    if (!cls) throw runtimeError('UNKNOWN_CLASS', `Unknown class '${classId}'`);
    const m = cls.methodsByName.get(method);
    if (!m) throw runtimeError('UNKNOWN_METHOD', `Class '${classId}' has no method '${method}'`);
    return { cls, m };
  }

  private run(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    resolved: Resolved,
  ): Promise<CallResult> {
    const instanceId = resolved.id!;
    switch (method.kind) {
      case 'STATIC':
        return this.runStatic(cls, method, req);
      case 'READ':
        return this.runRead(cls, method, req, instanceId, resolved.cached);
      case 'QUEUED_WRITE':
        if (!req.job) return this.enqueue(method, req, instanceId);
        return this.runExclusive(cls, method, req, instanceId, method.options.upsert ? 'upsert' : 'write');
      case 'INIT':
        return this.runExclusive(cls, method, req, instanceId, 'init');
      default:
        return this.runExclusive(
          cls,
          method,
          req,
          instanceId,
          method.options.upsert ? 'upsert' : 'write',
          resolved.cached,
        );
    }
  }

  /** A QUEUED_WRITE called from outside a worker: queued, answered 202 with its job. */
  private async enqueue(method: RegisteredMethod, req: CallRequest, instanceId: string): Promise<CallResult> {
    const { jobId } = await this.jobSink().enqueueCall(req, instanceId, method.options.upsert === true, req.jobId);
    return {
      status: 202,
      body: { jobId, status: 'queued', statusUrl: `/${this.deps.projectId}/JOBS/${jobId}` },
      headers: {},
    };
  }

  /**
   * The instance a call addresses. A lookup (`name!value`) is resolved from
   * Redis, or, when `useCache` and the method reads or writes an existing
   * instance (READ, WRITE, INTERNAL without upsert), from the lookup cache:
   * the caller then confirms it against the instance (StaleLookup otherwise).
   */
  private resolveInstance(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    useCache = false,
  ): Resolved | Promise<Resolved> {
    const raw = req.instanceId;
    if (method.kind === 'STATIC') return NO_INSTANCE;
    if (method.kind === 'INIT') {
      const hook = (method.options as InitOptions).instanceId;
      const id = hook?.(requestInfoOf(this.deps.projectId, req, raw)) ?? raw ?? randomUUID();
      if (!INSTANCE_ID.test(id)) throw runtimeError('BAD_INSTANCE_ID', `Invalid instance id '${id}'`);
      return { id };
    }
    if (!raw) throw runtimeError('INSTANCE_REQUIRED', `${cls.id}.${method.name} needs an instance id`);
    const bang = raw.indexOf('!');
    if (bang > 0) return this.resolveLookup(cls, method, raw, bang, useCache);
    if (!INSTANCE_ID.test(raw)) throw unknownInstanceError(this.deps.projectId, cls.id, raw);
    return { id: raw };
  }

  /** `name!value`: from the lookup cache (to be confirmed against the instance) or from Redis */
  private async resolveLookup(
    cls: RegisteredClass,
    method: RegisteredMethod,
    raw: string,
    bang: number,
    useCache: boolean,
  ): Promise<Resolved> {
    const name = raw.slice(0, bang);
    const value = raw.slice(bang + 1);
    if (!LOOKUP_NAME.test(name) || !value) throw runtimeError('BAD_INSTANCE_ID', `Invalid lookup '${raw}'`);
    const cacheable =
      (method.kind === 'READ' || method.kind === 'WRITE' || method.kind === 'INTERNAL') && !method.options.upsert;
    const key = `${cls.id}\u0000${name}\u0000${value}`;
    if (useCache && cacheable) {
      const hit = this.lookupCache.get(key);
      if (hit) return { id: hit, cached: { key, name, value } };
      this.lookupCache.misses++;
    }
    const id = await this.deps.store.resolveLookup(cls.id, name, value);
    if (!id) throw unknownInstanceError(this.deps.projectId, cls.id, raw);
    if (cacheable) this.lookupCache.set(key, id);
    // the key's owner is confirmed against the instance's own lookups once it is read, as a cached one is
    return cacheable ? { id, cached: { key, name, value } } : { id };
  }

  private validate(cls: RegisteredClass, method: RegisteredMethod, body: unknown): void {
    if (!method.validate) return;
    if (method.validate(body === undefined ? {} : body)) return;
    const errors = toFieldErrors(method.validate.errors);
    if (method.options.onValidationError) throw method.options.onValidationError(errors);
    const summary = errors.map((e) => `${e.field} ${e.reason}`).join('; ');
    const err = runtimeError('VALIDATION', `Invalid input: ${summary}`, { errors });
    err.classId = cls.id;
    throw err;
  }

  private async runStatic(cls: RegisteredClass, method: RegisteredMethod, req: CallRequest): Promise<CallResult> {
    const tasks: ScheduledTask[] = [];
    const events: EmittedEvent[] = [];
    const effects: Effect[] = [];
    const ctx = new CtxImpl(
      this,
      this.deps,
      cls,
      method,
      req,
      undefined,
      EMPTY_STATE,
      0,
      NO_LOOKUPS,
      tasks,
      events,
      effects,
    );
    const out = await this.invoke(cls, method, ctx);
    if (tasks.length) await this.jobSink().dispatchTasks(tasks);
    if (events.length) await this.deps.store.appendEvents(cls.id, '', 0, events);
    // a STATIC commits nothing: its effects go to the outbox once it has answered (none when it threw) and are
    // applied from there, so one its target cannot take now is retried by the sweeper like a commit's
    if (effects.length) {
      // in the bucket of its first target (any bucket would do: every bucket's effects are swept)
      const bucket = this.deps.store.keys.bucketOf(effects[0].classId, effects[0].instanceId);
      const entryId = await this.deps.store.redis.xadd(
        this.deps.store.keys.bucket(bucket).effects,
        '*',
        'f',
        JSON.stringify(effects),
      );
      if (entryId) await this.effects.apply({ bucket, id: entryId }, effects);
    }
    return out;
  }

  private async runRead(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    id: string,
    cachedLookup?: CachedLookup,
  ): Promise<CallResult> {
    const cache = this.readCache;
    const key = ReadCache.key(cls.id, id);
    const cached = cache.enabled ? cache.get(key) : undefined;
    const got = await this.deps.store.readIfChanged(cls.id, id, cached?.version);
    let current: { version: number; state: InstanceState; lookups: Record<string, string> };
    if (got.kind === 'missing') {
      cache.delete(key);
      if (cachedLookup) throw new StaleLookup(cachedLookup.key);
      if (!method.options.emptyWhenMissing)
        throw unknownInstanceError(this.deps.projectId, cls.id, req.instanceId ?? id);
      current = { version: 0, state: EMPTY_STATE, lookups: NO_LOOKUPS };
    } else if (got.kind === 'unchanged' && cached) {
      cache.hits++;
      // an entry a commit left has its state parsed by the first READ of it
      current = {
        version: cached.version,
        state: (cached.state ??= deepFreeze(parseState(cached.stateJson))),
        lookups: cached.lookups,
      };
    } else {
      const stored = (got as { instance: StoredInstance }).instance;
      cache.misses++;
      current = {
        version: stored.version,
        state: deepFreeze(parseState(stored.stateJson)),
        lookups: deepFreeze({ ...stored.lookups }),
      };
      cache.set(key, { ...current, stateJson: stored.stateJson, bytes: stored.stateJson.length });
    }
    if (cachedLookup && current.lookups[cachedLookup.name] !== cachedLookup.value)
      throw new StaleLookup(cachedLookup.key);
    // an instance that does not exist yet (emptyWhenMissing) belongs to nobody's company
    if (req.identity.tenant !== undefined && current.version > 0)
      assertOwnedBy(req.identity, cls.id, id, cls.options.tenancy, current.state, 'before');
    // the lookups are frozen and only read: a READ's ctx.lookup refuses set and remove before touching them
    const ctx = new CtxImpl(
      this,
      this.deps,
      cls,
      method,
      req,
      id,
      current.state,
      current.version,
      current.lookups,
      null,
      null,
      null,
    );
    const out = this.invoke(cls, method, ctx);
    return out instanceof Promise ? await out : out;
  }

  /**
   * INIT, WRITE, INTERNAL and a worker's QUEUED_WRITE: one holder per instance
   * across processes. The change's committed effects are applied once the
   * instance's turn is over, before the caller is answered (so it reads them
   * at once); one that cannot be applied now is left to the sweeper.
   */
  private async runExclusive(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    id: string,
    mode: LeaseMode,
    cachedLookup?: CachedLookup,
  ): Promise<CallResult> {
    if (req.chain?.some((f) => f.exclusive && f.classId === cls.id && f.instanceId === id)) {
      throw runtimeError(
        'REENTRANT_WRITE',
        `${cls.id}.${method.name} would write instance '${id}' that this call chain already holds for writing; change the state directly instead`,
      );
    }
    const deadline = Date.now() + method.budgetMs;
    if (mode === 'write' && !req.job && method.options.optimistic !== false && !this.leasedMethods.has(method)) {
      const cached = this.readCache.enabled ? this.readCache.get(ReadCache.key(cls.id, id)) : undefined;
      const turn = cached && this.turns.tryOptimistic(cls.id, id, cached);
      if (turn) {
        let out: CallResult | typeof RETRY_WITH_LEASE;
        try {
          out = await this.runTurn(cls, method, req, id, mode, turn, true, cachedLookup);
        } catch (err) {
          this.optimisticWrites.answered++;
          throw err;
        }
        if (out !== RETRY_WITH_LEASE) {
          this.optimisticWrites.answered++;
          return out;
        }
        this.optimisticWrites.retried++;
      }
    }
    // INIT with lease: false creates at commit time, without taking the lease first
    const leaseFree = mode === 'init' && (method.options as InitOptions).lease === false;
    const start = await this.turns.begin(cls.id, id, mode, leaseFree, deadline);
    if (start.kind !== 'turn') {
      start.end();
      if (start.kind === 'exists') {
        // a redelivered INIT (task or effect) finds the instance its first delivery created
        if (
          req.delivery &&
          (await this.deps.store.redis.exists(this.deps.store.keys.delivered(cls.id, id, req.delivery.id))) === 1
        ) {
          throw runtimeError(
            'ALREADY_APPLIED',
            `${cls.id}.${method.name} on '${id}' was applied before (delivery ${req.delivery.id})`,
          );
        }
        throw runtimeError('INSTANCE_EXISTS', `Instance '${id}' of class '${cls.id}' already exists`);
      }
      if (cachedLookup) throw new StaleLookup(cachedLookup.key);
      throw unknownInstanceError(this.deps.projectId, cls.id, req.instanceId ?? id);
    }
    return (await this.runTurn(cls, method, req, id, mode, start.turn, false, cachedLookup, leaseFree)) as CallResult;
  }

  /**
   * Runs the handler in `turn` and commits. `optimistic`: the turn holds no
   * lease and its state is this process's cached snapshot; the handler may
   * then do nothing that outlives a discarded run (ctx.call of a writing
   * method, tokens, limits, ports: the context refuses them), and whenever the
   * run cannot stand (one of those, a lookup change, the instance moved since
   * the snapshot) nothing is committed and RETRY_WITH_LEASE is answered: the
   * caller runs the handler again under the lease.
   */
  private async runTurn(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    id: string,
    mode: LeaseMode,
    turn: Turn,
    optimistic: boolean,
    cachedLookup?: CachedLookup,
    leaseFree = false,
  ): Promise<CallResult | typeof RETRY_WITH_LEASE> {
    const before = turn.before;
    let result: CallResult;
    /** the committed effects, applied once the turn is over */
    let effects: Effect[] | undefined;
    let effectEntry: StreamEntry | undefined;
    /** committed, but no replica confirmed it in time: answered 503 once everything it caused is under way */
    let unconfirmed = false;
    let ctx: CtxImpl | undefined;
    let sent = false;
    try {
      if (cachedLookup && before?.lookups[cachedLookup.name] !== cachedLookup.value) {
        if (optimistic) return RETRY_WITH_LEASE;
        throw new StaleLookup(cachedLookup.key);
      }
      const originalJson = before?.stateJson ?? '';
      const state = parseState(before?.stateJson);
      const scoped = req.identity.tenant !== undefined;
      if (scoped && before && before.version > 0)
        assertOwnedBy(req.identity, cls.id, id, cls.options.tenancy, state, 'before');
      const beforeLookups = before?.lookups ?? NO_LOOKUPS;
      const lookups = { ...beforeLookups };
      const tasks: ScheduledTask[] = [];
      const events: EmittedEvent[] = [];
      const changeEffects: Effect[] = [];
      ctx = new CtxImpl(
        this,
        this.deps,
        cls,
        method,
        req,
        id,
        state,
        before?.version ?? 0,
        lookups,
        tasks,
        events,
        changeEffects,
      );
      ctx.optimistic = optimistic;
      // an optimistic turn holds no lease to renew: the handler runs as it is
      result = optimistic
        ? await this.invoke(cls, method, ctx)
        : await turn.renewWhile(
            () => this.invoke(cls, method, ctx!),
            () => ctx!.abort(),
          );
      if (ctx.needsLease) {
        this.leasedMethods.add(method);
        return RETRY_WITH_LEASE;
      }
      const stateJson = serializeState(ctx.state);
      const { adds, removes } = this.lookupDiff(beforeLookups, lookups);
      if (optimistic && (adds.length > 0 || removes.length > 0)) {
        // lookup keys are claimed in their own slots before the commit: under the lease only
        this.leasedMethods.add(method);
        return RETRY_WITH_LEASE;
      }
      const created = mode === 'init' || (mode === 'upsert' && (before?.version ?? 0) === 0);
      const changed = created || stateJson !== originalJson || adds.length > 0 || removes.length > 0;
      if (scoped && changed) assertOwnedBy(req.identity, cls.id, id, cls.options.tenancy, ctx.state, 'after');
      const keep = turn.keepAfterCommit();
      // from here an error may come from a commit that was applied: never run again
      sent = true;
      const commit = await this.deps.store.commit({
        classId: cls.id,
        instanceId: id,
        token: turn.token,
        expectedVersion: before?.version ?? 0,
        changed,
        stateJson,
        lookups,
        lookupAdds: adds,
        lookupRemoves: removes,
        tasks,
        events,
        job: req.job ? { id: req.job.id, resultJson: JSON.stringify(result), ttlSeconds: JOB_RESULT_TTL_S } : undefined,
        deliveryId: req.delivery?.id,
        finishesEffectEntry: req.delivery?.finishesEntry,
        effects: changeEffects,
        keepLeaseMs: keep ? this.deps.leaseTtlMs : undefined,
        keepWhileOthersWait: keep && turn.keepWhileOthersWait(),
      });
      switch (commit.kind) {
        case 'committed':
          break;
        case 'version_moved':
          if (optimistic) {
            // another writer committed since the snapshot, or holds the lease now
            this.readCache.delete(ReadCache.key(cls.id, id));
            return RETRY_WITH_LEASE;
          }
          if (leaseFree) throw runtimeError('INSTANCE_EXISTS', `Instance '${id}' of class '${cls.id}' already exists`);
          turn.lost();
          throw runtimeError(
            'LEASE_LOST',
            `The lease on ${cls.id} '${id}' was lost before commit; nothing was written`,
          );
        case 'lookup_taken':
          throw runtimeError(
            'LOOKUP_KEY_TAKEN',
            `Lookup key '${commit.name}!${commit.value}' already belongs to another ${cls.id} instance`,
          );
        case 'already_applied':
          // a redelivered task, job or effect: its change is in already; the lease is still ours
          throw runtimeError(
            'ALREADY_APPLIED',
            `${cls.id}.${method.name} on '${id}' was applied before (${req.job ? `job ${req.job.id}` : `delivery ${req.delivery?.id}`}); nothing was written again`,
          );
        default:
          turn.lost();
          throw runtimeError(
            'LEASE_LOST',
            `The lease on ${cls.id} '${id}' was lost before commit; nothing was written`,
          );
      }
      if (req.job) req.job.next = commit.nextJobId;
      unconfirmed = commit.unconfirmed === true;
      const committedJson = changed ? stateJson : originalJson;
      // the commit keeps the lease for the next local writer only while no other process waits for it
      turn.committed({ version: commit.version, stateJson: committedJson, lookups }, commit.leaseKept);
      // the next write of this instance here runs on it optimistically, and a READ of it reads no state from Redis
      if (this.readCache.enabled) {
        this.readCache.set(ReadCache.key(cls.id, id), {
          version: commit.version,
          stateJson: committedJson,
          lookups: deepFreeze({ ...lookups }),
          bytes: committedJson.length,
        });
      }
      if (changed) this.deps.onCommit?.(cls.id, id, commit.version, stateJson, ctx.state);
      if (tasks.length) {
        // the tasks are safe in the task outbox; hand them to the queue now (a sweeper retries on failure)
        const bucket = this.deps.store.keys.bucketOf(cls.id, id);
        const dispatch = this.jobSink().dispatchTasks(
          tasks,
          commit.taskEntryId ? { bucket, id: commit.taskEntryId } : undefined,
        );
        (this.deps.background?.track(dispatch) ?? dispatch).catch((err) =>
          this.deps.logger.warn({ err }, 'task dispatch deferred to the sweeper'),
        );
      }
      if (changeEffects.length && commit.effectEntryId) {
        effects = changeEffects;
        effectEntry = { bucket: this.deps.store.keys.bucketOf(cls.id, id), id: commit.effectEntryId };
      }
    } catch (err) {
      // nothing committed: hand the (unchanged) lease on, or give it back
      await turn.abandon();
      if (optimistic && !sent && (await this.optimisticRunFailed(cls, id, before!, ctx, method, err)))
        return RETRY_WITH_LEASE;
      throw err;
    } finally {
      turn.end();
    }
    // an effect on an instance this call chain holds would wait for it to the end of its budget: the sweeper applies those
    if (
      effects &&
      !effects.some((e) =>
        req.chain?.some((f) => f.exclusive && f.classId === e.classId && f.instanceId === e.instanceId),
      )
    ) {
      await this.effects.apply(effectEntry!, effects);
    }
    if (unconfirmed) {
      throw runtimeError(
        'REPLICA_UNCONFIRMED',
        `${cls.id}.${method.name} on '${id}' committed, but no Redis replica confirmed it in time: it stands unless its master fails first; do not retry blindly`,
      );
    }
    return result;
  }

  /**
   * An optimistic run ended in an error before its commit: should it run
   * again under the lease? Yes when the context refused something only a
   * leased run may do, or when the handler's own error was judged on a
   * snapshot the instance has moved past. An error judged on the current
   * state stands, as if the handler had run just then; so do time-outs and
   * errors of the runtime.
   */
  private async optimisticRunFailed(
    cls: RegisteredClass,
    id: string,
    snapshot: StoredInstance,
    ctx: CtxImpl | undefined,
    method: RegisteredMethod,
    err: unknown,
  ): Promise<boolean> {
    if (ctx?.needsLease) {
      this.leasedMethods.add(method);
      return true;
    }
    if (err instanceof StaleLookup) return false;
    if (
      err instanceof ActorError &&
      (err.code === RuntimeCodes.TIMEOUT.code || err.code === RuntimeCodes.REDIS_UNAVAILABLE.code)
    )
      return false;
    const now = await this.deps.store.readIfChanged(cls.id, id, snapshot.version);
    if (now.kind === 'unchanged') return false;
    this.readCache.delete(ReadCache.key(cls.id, id));
    return true;
  }

  private lookupDiff(
    before: Readonly<Record<string, string>>,
    after: Record<string, string>,
  ): { adds: LookupPair[]; removes: LookupPair[] } {
    const adds: LookupPair[] = [];
    const removes: LookupPair[] = [];
    for (const name in after) {
      const value = after[name];
      if (before[name] !== value) adds.push({ name, value });
    }
    for (const name in before) {
      const value = before[name];
      if (after[name] !== value) removes.push({ name, value });
    }
    return { adds, removes };
  }

  /**
   * Runs the handler. A handler that returns without a promise (most READs) is
   * answered at once, without a timer: nothing can time it out. One that
   * returns a promise races its budget.
   */
  private invoke(cls: RegisteredClass, method: RegisteredMethod, ctx: CtxImpl): CallResult | Promise<CallResult> {
    let returned: unknown;
    try {
      returned = method.handler.call(cls.instance, ctx);
    } catch (err) {
      throw handlerError(cls, method, ctx, err);
    }
    if (isThenable(returned)) return this.settle(cls, method, ctx, returned);
    return resultOf(ctx, returned);
  }

  /**
   * A handler's promise against its budget. The budget's timer is set only
   * when the promise has not settled by the next microtask: an async handler
   * that never waits (most) has, and a timer set and cleared per call cost a
   * WRITE about 1 % of its CPU. The budget still runs from the handler's start.
   */
  private settle(
    cls: RegisteredClass,
    method: RegisteredMethod,
    ctx: CtxImpl,
    pending: PromiseLike<unknown>,
  ): Promise<CallResult> {
    const budgetMs = method.budgetMs;
    return new Promise<CallResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const fail = (err: unknown): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        reject(handlerError(cls, method, ctx, err));
      };
      pending.then((returned) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        try {
          resolve(resultOf(ctx, returned));
        } catch (err) {
          reject(handlerError(cls, method, ctx, err));
        }
      }, fail);
      queueMicrotask(() => {
        if (done) return;
        timer = setTimeout(() => {
          if (done) return;
          ctx.abort();
          fail(
            runtimeError(
              'TIMEOUT',
              `${cls.id}.${method.name} ran past its ${budgetMs / 1000} s budget; nothing was committed`,
            ),
          );
        }, budgetMs);
      });
    });
  }

  /**
   * Checks a committed effect up front: the target method exists, writes
   * (INIT, WRITE or INTERNAL: its commit records the effect's id), admits the
   * calling class, and names a plain instance id (not a lookup: the target
   * must not change between commit and apply).
   */
  async checkEffect(
    identity: Identity,
    classId: string,
    method: string,
    instanceId: string,
    body: unknown,
  ): Promise<void> {
    const { cls, m } = this.target(classId, method);
    if (m.kind !== 'INIT' && m.kind !== 'WRITE' && m.kind !== 'INTERNAL') {
      throw runtimeError(
        'METHOD_NOT_ALLOWED',
        `${classId}.${method} is ${m.kind}: an effect is an INIT, WRITE or INTERNAL (use ctx.enqueue for a QUEUED_WRITE)`,
      );
    }
    if (typeof instanceId !== 'string' || !INSTANCE_ID.test(instanceId))
      throw runtimeError('BAD_INSTANCE_ID', `An effect names its instance by id; got '${instanceId}'`);
    if (identity.classId === classId && identity.instanceId === instanceId) {
      throw runtimeError(
        'REENTRANT_WRITE',
        `${classId}.${method} would write the instance '${instanceId}' whose change it belongs to; change the state directly instead`,
      );
    }
    await this.admit(identity, cls, m);
    // the body is judged now, while the change can still be refused, not when the effect is applied
    this.validate(cls, m, body);
  }

  /** Checks a class's enqueue up front: method kind, access, instance. Returns the resolved instance id. */
  async checkEnqueue(identity: Identity, classId: string, method: string, instanceId: string): Promise<string> {
    const { cls, m } = this.target(classId, method);
    if (m.kind !== 'QUEUED_WRITE')
      throw runtimeError('METHOD_NOT_ALLOWED', `${classId}.${method} is ${m.kind}, not QUEUED_WRITE`);
    await this.admit(identity, cls, m);
    const { id } = await this.resolveInstance(cls, m, { classId, method, instanceId, identity, origin: 'class' });
    if (!m.options.upsert && !(await this.deps.store.exists(classId, id!))) {
      throw unknownInstanceError(this.deps.projectId, classId, instanceId);
    }
    return id!;
  }

  /** May `identity` call `classId.method`? Throws the access error a call would get (401, 403). */
  async authorize(identity: Identity, classId: string, method: string): Promise<void> {
    const { cls, m } = this.target(classId, method);
    await this.deps.authorizer.authorize(identity, cls, m);
  }

  rolesOf(identity: Identity): Promise<RoleDefinition[]> {
    return this.deps.authorizer.rolesOf(identity);
  }
}

/** the state of a STATIC call: empty, frozen, shared */
const EMPTY_STATE: InstanceState = deepFreeze(emptyState());
/** no lookups (a STATIC's, a new instance's), frozen, shared */
const NO_LOOKUPS: Readonly<Record<string, string>> = Object.freeze({});
/** the headers of an answer that set none (never written to: the HTTP layer only reads them) */
const NO_HEADERS: Record<string, string> = Object.freeze({});

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function')
  );
}

/** The answer: the handler's return value unless it set ctx.response's body. */
function resultOf(ctx: CtxImpl, returned: unknown): CallResult {
  const r = ctx.responseIfSet;
  if (!r) return { status: 200, body: returned === undefined ? null : returned, headers: NO_HEADERS };
  return {
    status: r.status ?? 200,
    body: r.body !== undefined ? r.body : returned === undefined ? null : returned,
    headers: r.headers ?? NO_HEADERS,
  };
}

/** A READ handler that tried to change its frozen state is answered READ_ONLY. */
function handlerError(cls: RegisteredClass, method: RegisteredMethod, ctx: CtxImpl, err: unknown): unknown {
  if (
    err instanceof TypeError &&
    ctx.kind === 'READ' &&
    /read.only|not extensible|Cannot (assign|add|delete)/i.test(err.message)
  ) {
    return runtimeError('READ_ONLY', `${cls.id}.${method.name} is a READ method and cannot change state`);
  }
  return err;
}

const KIND_CAN_WRITE: Record<MethodKind, boolean> = {
  INIT: true,
  WRITE: true,
  QUEUED_WRITE: true,
  INTERNAL: true,
  READ: false,
  STATIC: false,
};

/** ctx.lookup: one object per call with its methods on the prototype (no closures per call) */
class CtxLookup implements LookupApi {
  constructor(
    private readonly lookups: Record<string, string>,
    private readonly store: StateStore,
    private readonly classId: string,
    private readonly method: RegisteredMethod,
  ) {}

  get(name: string): string | undefined {
    return this.lookups[name];
  }

  resolve(name: string, value: string, classId = this.classId): Promise<string | undefined> {
    return this.store.resolveLookup(classId, name, value);
  }

  set(name: string, value: string): void {
    if (!KIND_CAN_WRITE[this.method.kind])
      throw runtimeError(
        'READ_ONLY',
        `${this.classId}.${this.method.name} (${this.method.kind}) cannot set lookup keys`,
      );
    if (!LOOKUP_NAME.test(name)) throw new Error(`invalid lookup name '${name}'`);
    if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
      throw new Error(`lookup '${name}' needs a value of 1-256 characters`);
    }
    this.lookups[name] = value;
  }

  remove(name: string): void {
    if (!KIND_CAN_WRITE[this.method.kind])
      throw runtimeError(
        'READ_ONLY',
        `${this.classId}.${this.method.name} (${this.method.kind}) cannot remove lookup keys`,
      );
    delete this.lookups[name];
  }
}

/** each class's logger: the runtime's, also masking the class's `sensitiveFields` (top level and one level down) */
const classLoggers = new WeakMap<RegisteredClass, Logger>();
function classLogger(base: Logger, cls: RegisteredClass): Logger {
  let logger = classLoggers.get(cls);
  if (!logger) {
    const fields = cls.options.sensitiveFields ?? [];
    logger = fields.length
      ? base.child(
          {},
          { redact: { paths: [...REDACT_PATHS, ...fields.flatMap((f) => [f, `*.${f}`])], censor: '[masked]' } },
        )
      : base;
    classLoggers.set(cls, logger);
  }
  return logger;
}
class CtxImpl implements Ctx {
  readonly projectId: string;
  readonly classId: string;
  readonly method: string;
  readonly kind: MethodKind;
  readonly identity: Identity;
  private logger?: Logger;
  private abortController?: AbortController;
  private aborted = false;
  /** a run on a cached snapshot without the lease (Dispatcher.runTurn): what would outlive a discarded run is refused */
  optimistic = false;
  /** this optimistic run asked for something only a leased run may do: it is discarded and run again */
  needsLease = false;
  private lookupApi?: LookupApi;
  private requestInfo?: RequestInfo;
  private responseInit?: ResponseInit;

  constructor(
    private readonly dispatcher: Dispatcher,
    private readonly deps: DispatcherDeps,
    private readonly cls: RegisteredClass,
    private readonly registered: RegisteredMethod,
    private readonly req: CallRequest,
    readonly instanceId: string | undefined,
    readonly state: InstanceState,
    readonly version: number,
    private readonly lookups: Record<string, string>,
    private readonly tasks: ScheduledTask[] | null,
    private readonly events: EmittedEvent[] | null,
    private readonly effectList: Effect[] | null,
  ) {
    this.projectId = deps.projectId;
    this.classId = cls.id;
    this.method = registered.name;
    this.kind = registered.kind;
    this.identity = req.identity;
  }

  /** made on first use, like request and response: a handler that does not look pays nothing */
  get lookup(): LookupApi {
    return (this.lookupApi ??= new CtxLookup(this.lookups, this.deps.store, this.cls.id, this.registered));
  }

  get request(): RequestInfo {
    return (this.requestInfo ??= requestInfoOf(this.deps.projectId, this.req, this.instanceId));
  }

  get response(): ResponseInit {
    return (this.responseInit ??= {});
  }

  set response(value: ResponseInit) {
    this.responseInit = value;
  }

  /** the response as the handler set it; undefined when it never looked */
  get responseIfSet(): ResponseInit | undefined {
    return this.responseInit;
  }

  /** child logger, made on first use (most handlers never log) */
  get log(): Logger {
    this.logger ??= classLogger(this.deps.logger, this.cls).child({
      classId: this.classId,
      method: this.method,
      instanceId: this.instanceId,
      requestId: this.req.requestId,
    });
    return this.logger;
  }

  /** the abort signal is made on first use (most handlers never look at it) */
  get signal(): AbortSignal {
    this.abortController ??= new AbortController();
    if (this.aborted) this.abortController.abort();
    return this.abortController.signal;
  }

  abort(): void {
    this.aborted = true;
    this.abortController?.abort();
  }

  /** Refuses, in an optimistic run, what would outlive it when it is discarded. */
  private underLease(what: string): void {
    if (!this.optimistic) return;
    this.needsLease = true;
    throw runtimeError(
      'INTERNAL',
      `${this.classId}.${this.method}: ${what} needs the instance's lease; the run is discarded and run again with it`,
    );
  }

  get ports(): Ports {
    this.underLease('ctx.ports');
    return this.deps.ports;
  }

  get documents(): DocumentReader {
    const d = this.deps.documents;
    const tenant = this.identity.tenant;
    if (tenant !== undefined) return tenantDocuments(d, tenant, (c) => this.deps.registry.collectionScope(c));
    return { find: d.find.bind(d), get: d.get.bind(d), count: d.count.bind(d) };
  }

  get journals(): JournalReader {
    const journals = this.deps.journals;
    if (!journals) throw new Error('call journals are not available in this runtime');
    return journals.reader(this.identity, (name) => this.deps.registry.journal(name));
  }

  get tenancy(): TenancyApi {
    return tenancyApi(this.identity, this.cls.options.tenancy, () => this.state);
  }

  get limits(): RateLimits {
    this.underLease('ctx.limits');
    return this.dispatcher.limits;
  }

  /** issuing a token is a side effect: not for READ handlers */
  get tokens(): TokenIssuer {
    if (this.kind === 'READ')
      throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot issue tokens`);
    if (!this.deps.tokens) throw runtimeError('INTERNAL', 'no token issuer configured');
    this.underLease('ctx.tokens');
    return this.deps.tokens;
  }

  /** this class as the caller of another method; a tenant-bound call's tenant goes along */
  private asClass(): Identity {
    const tenant = this.identity.tenant;
    return tenant === undefined
      ? { type: 'class', classId: this.classId, instanceId: this.instanceId }
      : { type: 'class', classId: this.classId, instanceId: this.instanceId, tenant };
  }

  roles(): Promise<RoleDefinition[]> {
    return this.dispatcher.rolesOf(this.identity);
  }

  async enqueue(classId: string, method: string, instanceId: string, body?: unknown): Promise<{ jobId: string }> {
    if (!this.tasks) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot queue writes`);
    const identity = this.asClass();
    const target = await this.dispatcher.checkEnqueue(identity, classId, method, instanceId);
    const id = randomUUID();
    this.tasks.push({ id, classId, method, instanceId: target, body, delayMs: 0, identity, enqueue: true });
    // the id the job will have in BullMQ (it names its bucket when there are several)
    return { jobId: this.deps.store.keys.jobId(classId, target, id) };
  }

  async effect(call: EffectRequest): Promise<string> {
    if (!this.effectList) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot cause effects`);
    const identity = this.asClass();
    await this.dispatcher.checkEffect(identity, call.classId, call.method, call.instanceId, call.body ?? {});
    const id = randomUUID();
    this.effectList.push({
      id,
      classId: call.classId,
      method: call.method,
      instanceId: call.instanceId,
      body: call.body ?? {},
      identity,
    });
    return id;
  }

  /** a mail or SMS is a committed effect of this change, handed to its delivery queue after the commit */
  get mail(): MessageSender<MailMessage> {
    return { send: async (message) => this.outbound('mail', message) };
  }

  get sms(): MessageSender<SmsMessage> {
    return { send: async (message) => this.outbound('sms', message) };
  }

  private outbound(port: 'mail' | 'sms', message: unknown): string {
    if (!this.effectList) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot send messages`);
    const effect = outboundEffect(port, message, this.asClass());
    this.effectList.push(effect);
    return effect.id;
  }

  async call(classId: string, method: string, instanceId?: string, body?: unknown): Promise<CallResult> {
    if (this.aborted) throw runtimeError('TIMEOUT', `${this.classId}.${this.method} has run out of time`);
    // a READ changes nothing: called as often as the run is
    if (this.optimistic && this.deps.registry.get(classId)?.methodsByName.get(method)?.kind !== 'READ')
      this.underLease(`ctx.call of ${classId}.${method}`);
    const frame = { classId: this.classId, instanceId: this.instanceId, exclusive: KIND_CAN_WRITE[this.kind] };
    return this.dispatcher.call({
      classId,
      method,
      instanceId,
      body,
      identity: this.asClass(),
      origin: 'class',
      requestId: this.req.requestId,
      chain: [...(this.req.chain ?? []), frame],
    });
  }

  schedule(task: ScheduleRequest): void {
    if (!this.tasks) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot schedule tasks`);
    if (!Number.isFinite(task.delaySeconds) || task.delaySeconds < 0) throw new Error('delaySeconds must be >= 0');
    const classId = task.classId ?? this.classId;
    const instanceId = task.instanceId ?? (classId === this.classId ? this.instanceId : undefined);
    this.tasks.push({
      id: randomUUID(),
      classId,
      method: task.method,
      instanceId,
      body: task.body,
      delayMs: Math.round(task.delaySeconds * 1000),
      identity: this.asClass(),
    });
  }

  emit(name: string, payload?: unknown): void {
    if (!this.events) throw runtimeError('READ_ONLY', `${this.classId}.${this.method} (READ) cannot emit events`);
    this.events.push({ name, payload });
  }
}

/** READ, WRITE, QUEUED_WRITE and INTERNAL methods act on an instance that must exist (unless they upsert). */
function needsExistingInstance(method: RegisteredMethod): boolean {
  return (
    method.kind !== 'STATIC' && method.kind !== 'INIT' && !method.options.upsert && !method.options.emptyWhenMissing
  );
}
