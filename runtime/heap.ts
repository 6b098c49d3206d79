/**
 * Bounded heap growth for a large heap (HEAP_GROWING_PERCENT, HEAP_GROWING_FROM_MB).
 *
 * After each full collection V8 sets the heap's next limit to what survived
 * times a factor it picks itself, up to 4× for a busy process. For a small
 * heap that is cheap and keeps collections rare. For a service holding 400 MB
 * of listings it means sitting on 1 GB and more of garbage. The default
 * threshold (128 MB) sits between the service with 10 000 members (~90 MB
 * live) and with 100 000 (~380 MB live); below it a bound would only make
 * collections more frequent. Above it the bound must start before the heap
 * has grown: pages V8 once took are not all given back. So the factor is
 * left to V8 until a full collection keeps more than `fromMb`, and bounded to
 * 1 + percent/100 from then on (back to V8's own below 80% of `fromMb`).
 * V8 reads the flag each time it sets a limit, so it can change while running.
 */
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import * as v8 from 'node:v8';

export interface HeapGrowth {
  /** whether the bound is on now */
  bounded(): boolean;
  /** stops watching and gives V8 its own policy back */
  stop(): void;
}

/** The setting for a heap of `usedBytes` after a full collection: true to bound, false to leave V8's, undefined to keep. */
export function heapGrowthDecision(usedBytes: number, fromMb: number, bounded: boolean): boolean | undefined {
  const mb = usedBytes / (1024 * 1024);
  if (!bounded && mb > fromMb) return true;
  if (bounded && mb < fromMb * 0.8) return false;
  return undefined;
}

export function boundHeapGrowth(percent: number, fromMb: number): HeapGrowth {
  let bounded = false;
  const apply = (on: boolean) => {
    bounded = on;
    // 0 is V8's "no override"
    v8.setFlagsFromString(`--heap-growing-percent=${on ? percent : 0}`);
  };
  const check = () => {
    const decision = heapGrowthDecision(v8.getHeapStatistics().used_heap_size, fromMb, bounded);
    if (decision !== undefined) apply(decision);
  };
  if (percent <= 0) return { bounded: () => false, stop: () => undefined };
  const release = () => {
    if (bounded) apply(false);
  };
  if (fromMb <= 0) {
    apply(true);
    return { bounded: () => bounded, stop: release };
  }
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as unknown as { detail?: { kind?: number } }).detail?.kind;
      if (kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) check();
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    bounded: () => bounded,
    stop: () => {
      observer.disconnect();
      release();
    },
  };
}
