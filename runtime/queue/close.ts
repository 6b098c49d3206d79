/**
 * Closing BullMQ workers and queues without hanging a shutdown.
 *
 * `Worker.close()` waits for the jobs it is running, and then for its
 * blocking connection to end; a connection that is reconnecting (Redis went
 * away and came back, or is still away) may never emit the event it waits
 * for, so close() never settles (taskforcesh/bullmq#4656, #2430). A process
 * that stops must stop: each close gets `timeoutMs`, after which the worker
 * is closed by force and its connections dropped. A job it was still running
 * is then taken over by another worker once its lock expires, and the
 * runtime's commit refuses to apply it twice (a job no longer pending).
 */
import type { Logger } from 'pino';

/** How long a stopping process waits for a worker's running jobs and connections before it closes them by force. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 10_000;

interface Closable {
  close(force?: boolean): Promise<void>;
  disconnect?(): Promise<void>;
}

/** Settles when `promise` does or `ms` pass: true when it settled in time. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How a close ended: closed in time, closed by force, or left (the forced close did not settle either). */
export type CloseOutcome = 'closed' | 'forced' | 'left';

/** Closes a worker or queue, by force after `timeoutMs`; never throws, never waits much longer than twice `timeoutMs`. */
export async function closeWithin(
  what: string,
  target: Closable | undefined,
  timeoutMs: number,
  logger: Logger,
): Promise<CloseOutcome> {
  if (!target) return 'closed';
  if (await within(target.close(), timeoutMs)) return 'closed';
  logger.warn(
    { what, timeoutMs },
    'did not close in time: closing by force (a job it still runs is taken over by another worker)',
  );
  // BullMQ keeps a worker's first close() and answers every later one, close(true) included, with
  // it: a worker whose Redis is gone is left (its process exits anyway; main.ts ends with process.exit)
  const forced = Promise.all([target.close(true), target.disconnect?.()]);
  if (await within(forced, timeoutMs)) return 'forced';
  logger.warn({ what }, 'forced close did not settle either: leaving it');
  return 'left';
}
