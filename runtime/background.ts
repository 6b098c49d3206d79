/**
 * Work a process starts after it has answered, without waiting for it: handing
 * committed tasks to the queue, projecting a commit into the document store,
 * regenerating the role snapshot. A stop waits for it (bounded) before it
 * closes the connections the work needs; otherwise a short-lived process (the
 * CLI) would cut it off: a task left to the sweeper of another process, and a
 * "Connection is closed" warning in the log.
 *
 *   background.track(queue.add(...));            // never rejects through here
 *   await background.settled(5_000);             // at stop: true when all ended in time
 */
export class Background {
  private readonly running = new Set<Promise<void>>();

  /** Keeps `work` until it settles; its own rejection is the caller's to handle (returned as given). */
  track<T>(work: Promise<T>): Promise<T> {
    const done: Promise<void> = work.then(
      () => undefined,
      () => undefined,
    );
    this.running.add(done);
    void done.then(() => this.running.delete(done));
    return work;
  }

  /** how many are running now */
  get size(): number {
    return this.running.size;
  }

  /**
   * Waits until the work running now, and any it starts meanwhile, has
   * settled, for at most `timeoutMs`; false when some was still running then.
   */
  async settled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.running.size) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        Promise.all([...this.running]).then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), left))),
      ]);
      clearTimeout(timer);
      if (timedOut) return false;
    }
    return true;
  }
}
