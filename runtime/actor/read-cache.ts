/**
 * Per-process cache of the committed instances this process last read or
 * wrote: for READ calls, and as the snapshot an optimistic WRITE runs on.
 *
 * A READ still asks Redis for the instance's current version on every call
 * (one round trip, as before), so it never answers from a state older than the
 * committed one; only when the version is the one cached are the transfer,
 * the JSON parse and the deep freeze skipped. That is what makes singletons
 * that many calls read (settings, catalogues) cheap to read.
 *
 * A WRITE of an instance found here runs its handler on the cached state
 * without taking the lease, and commits only if the instance is still at the
 * cached version and nobody holds its lease (the dispatcher's optimistic
 * path): one round trip instead of two. Commits refresh their entry.
 *
 * Bounded by the summed length of the cached state JSON, least recently used
 * first out. A budget of 0 disables it (and the optimistic path).
 */
import type { InstanceState } from '../types/state';

export interface CachedInstance {
  version: number;
  /** the committed state as stored: a WRITE parses its own copy from it */
  stateJson: string;
  /** frozen, shared by every READ that hits it; parsed by the first READ that needs it */
  state?: Readonly<InstanceState>;
  /** frozen */
  lookups: Readonly<Record<string, string>>;
  bytes: number;
}

export class ReadCache {
  private readonly entries = new Map<string, CachedInstance>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  static key(classId: string, id: string): string {
    return `${classId}\u0000${id}`;
  }

  /** The cached entry (now the most recently used), or undefined. */
  get(key: string): CachedInstance | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: CachedInstance): void {
    if (!this.enabled || entry.bytes > this.maxBytes) {
      this.delete(key);
      return;
    }
    this.delete(key);
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
