/**
 * Per-key FIFO turn-taking inside one process, so that concurrent calls on a
 * hot instance queue up here instead of all polling the Redis lease.
 */
export class KeyedFifo {
  private readonly tails = new Map<string, Promise<void>>();

  /** Resolves to a release function once every earlier caller for `key` has released. */
  async enter(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
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
