/**
 * The runs that hold an instance exclusively (INIT, WRITE, INTERNAL and a
 * worker's QUEUED_WRITE): the instance's turn (a lease, or an optimistic run
 * on this process's cached snapshot), the handler, and the one atomic commit
 * of its state, lookups, tasks, events and effects; then what the commit
 * hands on (tasks to the queue, effects to their targets).
 */
import { ActorError, runtimeError, RuntimeCodes, unknownInstanceError } from '../errors';
import type { Background } from '../background';
import type { Logger } from 'pino';
import { assertOwnedBy } from '../auth/tenancy';
import { deepFreeze } from './local-queue';
import { ReadCache } from './read-cache';
import type { TurnManager, Turn } from './turns';
import type { EffectApplier, Effect } from './effects';
import type { RegisteredClass, RegisteredMethod } from './registry';
import {
  serializeState,
  type LeaseMode,
  type LookupPair,
  type StateStore,
  type StoredInstance,
  type StreamEntry,
} from './state-store';
import { StaleLookup, type CachedLookup } from './instance-resolver';
import { NO_LOOKUPS, type ContextFactory, type HandlerContext } from './context';
import { invoke } from './invoke';
import { currentVersion, loadState } from './state-versions';
import type { CallRequest, JobSink, ScheduledTask } from './call-request';
import type { CallResult, EmittedEvent } from '../types/calls';
import type { InitOptions } from '../types/methods';
import type { InstanceState } from '../types/state';

const JOB_RESULT_TTL_S = 7 * 24 * 3600;

/** an optimistic run that cannot stand: run the handler again under the lease */
const RETRY_WITH_LEASE = Symbol('retry with the lease');

export interface ExclusiveRunDeps {
  projectId: string;
  store: StateStore;
  logger: Logger;
  leaseTtlMs: number;
  readCache: ReadCache;
  turns: TurnManager;
  effects: EffectApplier;
  jobSink: () => JobSink;
  newContext: ContextFactory;
  onCommit?: (classId: string, instanceId: string, version: number, stateJson: string, state: InstanceState) => void;
  background?: Background;
}

export class ExclusiveRuns {
  /** WRITEs run on a cached snapshot without the lease: answered so (committed, or refused on the current state), or run again under the lease (metrics) */
  readonly optimisticWrites = { answered: 0, retried: 0 };

  /** methods whose runs needed the lease (see runTurn): never tried optimistically again in this process */
  private readonly leasedMethods = new WeakSet<RegisteredMethod>();

  constructor(private readonly deps: ExclusiveRunDeps) {}

  /**
   * INIT, WRITE, INTERNAL and a worker's QUEUED_WRITE: one holder per instance
   * across processes. The change's committed effects are applied once the
   * instance's turn is over, before the caller is answered (so it reads them
   * at once); one that cannot be applied now is left to the sweeper.
   */
  async run(
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
      const cached = this.deps.readCache.enabled ? this.deps.readCache.get(ReadCache.key(cls.id, id)) : undefined;
      const turn = cached && this.deps.turns.tryOptimistic(cls.id, id, cached);
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
    const start = await this.deps.turns.begin(cls.id, id, mode, leaseFree, deadline);
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
    let unconfirmed: boolean;
    let ctx: HandlerContext | undefined;
    let sent = false;
    try {
      if (cachedLookup && before?.lookups[cachedLookup.name] !== cachedLookup.value) {
        if (optimistic) return RETRY_WITH_LEASE;
        throw new StaleLookup(cachedLookup.key);
      }
      const originalJson = before?.stateJson ?? '';
      const state = loadState(cls.id, cls.options.state, before?.stateJson);
      const scoped = req.identity.tenant !== undefined;
      if (scoped && before && before.version > 0)
        assertOwnedBy(req.identity, cls.id, id, cls.options.tenancy, state, 'before');
      const beforeLookups = before?.lookups ?? NO_LOOKUPS;
      const lookups = { ...beforeLookups };
      const tasks: ScheduledTask[] = [];
      const events: EmittedEvent[] = [];
      const changeEffects: Effect[] = [];
      ctx = this.deps.newContext(cls, method, req, {
        instanceId: id,
        state,
        version: before?.version ?? 0,
        lookups,
        tasks,
        events,
        effects: changeEffects,
      });
      ctx.optimistic = optimistic;
      // an optimistic turn holds no lease to renew: the handler runs as it is
      result = optimistic
        ? await invoke(cls, method, ctx)
        : await turn.renewWhile(
            () => invoke(cls, method, ctx!),
            () => ctx!.abort(),
          );
      if (ctx.needsLease) {
        this.leasedMethods.add(method);
        return RETRY_WITH_LEASE;
      }
      const stateJson = serializeState(ctx.state, currentVersion(cls.options.state));
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
            this.deps.readCache.delete(ReadCache.key(cls.id, id));
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
      if (this.deps.readCache.enabled) {
        this.deps.readCache.set(ReadCache.key(cls.id, id), {
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
        const dispatch = this.deps
          .jobSink()
          .dispatchTasks(tasks, commit.taskEntryId ? { bucket, id: commit.taskEntryId } : undefined);
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
      await this.deps.effects.apply(effectEntry!, effects);
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
    ctx: HandlerContext | undefined,
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
    this.deps.readCache.delete(ReadCache.key(cls.id, id));
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
}
