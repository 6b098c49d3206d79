/**
 * The dispatcher runs one call end to end: it admits the call, finds the
 * instance it addresses, and hands it to the run of its method's kind (a
 * READ or STATIC without a lease, an exclusive run that commits, or a queued
 * job); each of those lives in its own module.
 */
import type { Logger } from 'pino';
import type { Background } from '../background';
import type { Authorizer } from '../auth/types';
import { ActorError, runtimeError, unknownInstanceError } from '../errors';
import type { DocumentStore } from '../stream/document-store';
import type { RedisJournals } from './journal';
import { TurnManager, type InstanceWaitObserver } from './turns';
import { ReadCache } from './read-cache';
import type { ClassRegistry, RegisteredClass, RegisteredMethod } from './registry';
import type { StateStore } from './state-store';
import { EffectApplier } from './effects';
import { RedisRateLimits } from './rate-limit';
import { Admission } from './admission';
import { contextFactory, type ContextHost } from './context';
import { InstanceResolver, LookupCache, StaleLookup, type Resolved } from './instance-resolver';
import { UnleasedRuns } from './unleased-runs';
import { ExclusiveRuns } from './exclusive-runs';
import type { CallRequest, JobSink } from './call-request';
import type { CallResult } from '../types/calls';
import type { Identity } from '../types/identity';
import type { RateLimits } from '../types/limits';
import type { Ports } from '../types/ports';
import type { RoleDefinition } from '../types/roles';
import type { InstanceState } from '../types/state';
import type { TokenIssuer } from '../types/tokens';

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

export class Dispatcher implements ContextHost {
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
  readonly optimisticWrites: { answered: number; retried: number };

  private readonly resolver: InstanceResolver;
  private readonly admission: Admission;
  private readonly unleased: UnleasedRuns;
  private readonly exclusive: ExclusiveRuns;

  constructor(private readonly deps: DispatcherDeps) {
    this.readCache = new ReadCache(deps.readCacheBytes ?? 0);
    this.lookupCache = new LookupCache(deps.lookupCacheSize ?? 0);
    this.effects = new EffectApplier({ store: deps.store, logger: deps.logger, call: (req) => this.call(req) });
    this.turns = new TurnManager({ store: deps.store, logger: deps.logger, leaseTtlMs: deps.leaseTtlMs });
    this.limits = new RedisRateLimits(deps.store.redis, deps.store.keys.base);
    this.resolver = new InstanceResolver(deps.projectId, deps.store, this.lookupCache);
    this.admission = new Admission({ ...deps, resolver: this.resolver });
    const newContext = contextFactory(this, deps);
    const jobSink = (): JobSink => this.jobSink();
    this.unleased = new UnleasedRuns({
      ...deps,
      readCache: this.readCache,
      effects: this.effects,
      jobSink,
      newContext,
    });
    this.exclusive = new ExclusiveRuns({
      ...deps,
      readCache: this.readCache,
      turns: this.turns,
      effects: this.effects,
      jobSink,
      newContext,
    });
    this.optimisticWrites = this.exclusive.optimisticWrites;
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
      const admitted = this.admission.admit(req.identity, cls, method);
      if (admitted) await admitted;
      // before the instance is looked up: a caller refused here learns nothing of whether it exists
      method.options.guard?.({ identity: req.identity, instanceId: req.instanceId });
      const pending = this.resolver.resolve(cls, method, req, true);
      const resolved = pending instanceof Promise ? await pending : pending;
      try {
        this.admission.validate(cls, method, req.body);
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
          return await this.run(cls, method, req, await this.resolver.resolve(cls, method, req, false));
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

  private run(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    resolved: Resolved,
  ): Promise<CallResult> {
    const instanceId = resolved.id!;
    switch (method.kind) {
      case 'STATIC':
        return this.unleased.runStatic(cls, method, req);
      case 'READ':
        return this.unleased.runRead(cls, method, req, instanceId, resolved.cached);
      case 'QUEUED_WRITE':
        if (!req.job) return this.enqueue(method, req, instanceId);
        return this.exclusive.run(cls, method, req, instanceId, method.options.upsert ? 'upsert' : 'write');
      case 'INIT':
        return this.exclusive.run(cls, method, req, instanceId, 'init');
      default:
        return this.exclusive.run(
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

  /** Checks a committed effect up front (see Admission.checkEffect). */
  checkEffect(identity: Identity, classId: string, method: string, instanceId: string, body: unknown): Promise<void> {
    return this.admission.checkEffect(identity, classId, method, instanceId, body);
  }

  /** Checks a class's enqueue up front; answers the resolved instance id (see Admission.checkEnqueue). */
  checkEnqueue(identity: Identity, classId: string, method: string, instanceId: string): Promise<string> {
    return this.admission.checkEnqueue(identity, classId, method, instanceId);
  }

  /** May `identity` call `classId.method`? Throws the access error a call would get (401, 403). */
  authorize(identity: Identity, classId: string, method: string): Promise<void> {
    return this.admission.authorize(identity, classId, method);
  }

  rolesOf(identity: Identity): Promise<RoleDefinition[]> {
    return this.deps.authorizer.rolesOf(identity);
  }
}

/** READ, WRITE, QUEUED_WRITE and INTERNAL methods act on an instance that must exist (unless they upsert). */
function needsExistingInstance(method: RegisteredMethod): boolean {
  return (
    method.kind !== 'STATIC' && method.kind !== 'INIT' && !method.options.upsert && !method.options.emptyWhenMissing
  );
}
