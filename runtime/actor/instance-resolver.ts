/**
 * Which instance a call addresses: an id as given, an INIT's new id, or a
 * lookup key (`name!value`) resolved from Redis or from this process's
 * lookup cache. A cached answer is a guess the run confirms against the
 * instance's own committed lookups; StaleLookup says it did not hold.
 */
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { runtimeError, unknownInstanceError } from '../errors';
import type { RegisteredClass, RegisteredMethod } from './registry';
import type { StateStore } from './state-store';
import { INSTANCE_ID, LOOKUP_NAME, requestInfoOf, type CallRequest } from './call-request';
import type { InitOptions } from '../types/methods';

/** An instance id taken from the lookup cache, to be confirmed by the instance's own lookups once read. */
export interface CachedLookup {
  key: string;
  name: string;
  value: string;
}

export interface Resolved {
  id?: string;
  cached?: CachedLookup;
}

const NO_INSTANCE: Resolved = Object.freeze({});

/** The cached lookup no longer names that instance: resolve again from Redis. */
export class StaleLookup extends Error {
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
export class LookupCache {
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

export class InstanceResolver {
  constructor(
    private readonly projectId: string,
    private readonly store: StateStore,
    readonly lookupCache: LookupCache,
  ) {}

  /**
   * The instance a call addresses. A lookup (`name!value`) is resolved from
   * Redis, or, when `useCache` and the method reads or writes an existing
   * instance (READ, WRITE, INTERNAL without upsert), from the lookup cache:
   * the caller then confirms it against the instance (StaleLookup otherwise).
   */
  resolve(
    cls: RegisteredClass,
    method: RegisteredMethod,
    req: CallRequest,
    useCache = false,
  ): Resolved | Promise<Resolved> {
    const raw = req.instanceId;
    if (method.kind === 'STATIC') return NO_INSTANCE;
    if (method.kind === 'INIT') {
      const hook = (method.options as InitOptions).instanceId;
      const id = hook?.(requestInfoOf(this.projectId, req, raw)) ?? raw ?? randomUUID();
      if (!INSTANCE_ID.test(id)) throw runtimeError('BAD_INSTANCE_ID', `Invalid instance id '${id}'`);
      return { id };
    }
    if (!raw) throw runtimeError('INSTANCE_REQUIRED', `${cls.id}.${method.name} needs an instance id`);
    const bang = raw.indexOf('!');
    if (bang > 0) return this.resolveLookup(cls, method, raw, bang, useCache);
    if (!INSTANCE_ID.test(raw)) throw unknownInstanceError(this.projectId, cls.id, raw);
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
    const id = await this.store.resolveLookup(cls.id, name, value);
    if (!id) throw unknownInstanceError(this.projectId, cls.id, raw);
    if (cacheable) this.lookupCache.set(key, id);
    // the key's owner is confirmed against the instance's own lookups once it is read, as a cached one is
    return cacheable ? { id, cached: { key, name, value } } : { id };
  }
}
