/**
 * Per-key FIFO turn-taking inside one process, so that concurrent calls on a
 * hot instance queue up here instead of all polling the Redis lease.
 */
export class KeyedFifo {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly waiters = new Map<string, number>();

  /** callers queued for `key` that do not have their turn yet */
  waiting(key: string): number {
    return this.waiters.get(key) ?? 0;
  }

  /**
   * The release function at once when nobody holds or waits for `key`
   * (no promise to wait on); undefined otherwise: then `enter` queues.
   */
  tryEnter(key: string): (() => void) | undefined {
    if (this.tails.has(key)) return undefined;
    let release!: () => void;
    const tail = new Promise<void>((resolve) => (release = resolve));
    this.tails.set(key, tail);
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }

  /** Resolves to a release function once every earlier caller for `key` has released. */
  async enter(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    this.waiters.set(key, this.waiting(key) + 1);
    await previous;
    const left = this.waiting(key) - 1;
    if (left > 0) this.waiters.set(key, left);
    else this.waiters.delete(key);
    return () => {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    };
  }

  get size(): number {
    return this.tails.size;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
