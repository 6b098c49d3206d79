/**
 * The runs that hold no lease: a READ, on the instance's committed state
 * (from the read cache when Redis says it has not moved), and a STATIC, on
 * no instance at all, whose tasks, events and effects go out once it has
 * answered since it commits nothing.
 */
import { unknownInstanceError } from '../errors';
import { assertOwnedBy } from '../auth/tenancy';
import { deepFreeze } from './local-queue';
import { ReadCache } from './read-cache';
import type { EffectApplier, Effect } from './effects';
import type { RegisteredClass, RegisteredMethod } from './registry';
import { type StateStore, type StoredInstance } from './state-store';
import { loadState } from './state-versions';
import { StaleLookup, type CachedLookup } from './instance-resolver';
import { EMPTY_STATE, NO_LOOKUPS, type ContextFactory } from './context';
import { invoke } from './invoke';
import type { CallRequest, JobSink, ScheduledTask } from './call-request';
import type { CallResult, EmittedEvent } from '../types/calls';
import type { InstanceState } from '../types/state';

export interface UnleasedRunDeps {
  projectId: string;
  store: StateStore;
  readCache: ReadCache;
  effects: EffectApplier;
  jobSink: () => JobSink;
  newContext: ContextFactory;
}

export class UnleasedRuns {
  constructor(private readonly deps: UnleasedRunDeps) {}

  async runStatic(cls: RegisteredClass, method: RegisteredMethod, req: CallRequest): Promise<CallResult> {
    const { store } = this.deps;
    const tasks: ScheduledTask[] = [];
    const events: EmittedEvent[] = [];
    const effects: Effect[] = [];
    const ctx = this.deps.newContext(cls, method, req, {
      instanceId: undefined,
      state: EMPTY_STATE,
      version: 0,
      lookups: NO_LOOKUPS,
      tasks,
      events,
      effects,
    });
    const out = await invoke(cls, method, ctx);
    if (tasks.length) await this.deps.jobSink().dispatchTasks(tasks);
    if (events.length) await store.appendEvents(cls.id, '', 0, events);
    // a STATIC commits nothing: its effects go to the outbox once it has answered (none when it threw) and are
    // applied from there, so one its target cannot take now is retried by the sweeper like a commit's
    if (effects.length) {
      // in the bucket of its first target (any bucket would do: every bucket's effects are swept)
      const bucket = store.keys.bucketOf(effects[0].classId, effects[0].instanceId);
      const entryId = await store.redis.xadd(store.keys.bucket(bucket).effects, '*', 'f', JSON.stringify(effects));
      if (entryId) await this.deps.effects.apply({ bucket, id: entryId }, effects);
    }
    return out;
  }

  async runRead(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    id: string,
    cachedLookup?: CachedLookup,
  ): Promise<CallResult> {
    const cache = this.deps.readCache;
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
        state: (cached.state ??= deepFreeze(loadState(cls.id, cls.options.state, cached.stateJson))),
        lookups: cached.lookups,
      };
    } else {
      const stored = (got as { instance: StoredInstance }).instance;
      cache.misses++;
      current = {
        version: stored.version,
        state: deepFreeze(loadState(cls.id, cls.options.state, stored.stateJson)),
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
    const ctx = this.deps.newContext(cls, method, req, {
      instanceId: id,
      state: current.state,
      version: current.version,
      lookups: current.lookups,
      tasks: null,
      events: null,
      effects: null,
    });
    const out = invoke(cls, method, ctx);
    return out instanceof Promise ? await out : out;
  }
}
