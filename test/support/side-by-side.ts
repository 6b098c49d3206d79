/**
 * Calls made side by side with a bounded number in flight, for tests whose
 * calls each hash a password: scrypt runs on the thread pool, at most
 * SCRYPT_CONCURRENCY hashes at once and the rest queued behind them, so calls
 * made one after another keep one of those busy, and calls all made at once
 * queue so long behind each other that the last ones pass their method's time
 * budget. Twice the hashes that run at once keeps them all busy while no call
 * waits for more than one hash before its own.
 */
import { SCRYPT_CONCURRENCY } from '../../classes/_platform/passwords';

export const HASHING_WIDTH = 2 * SCRYPT_CONCURRENCY;

/** `n` calls of `fn(i)`, at most `width` at once; answers their results in call order (i = 0..n-1). */
export async function sideBySide<T>(n: number, fn: (i: number) => Promise<T>, width = HASHING_WIDTH): Promise<T[]> {
  const out = new Array<T>(n);
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, n)) }, lane));
  return out;
}
