/**
 * Bounded heap growth (runtime/heap.ts): the decision, and the bound switched
 * on by a real full collection of a heap above the threshold.
 */
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { boundHeapGrowth, heapGrowthDecision } from '../../runtime/heap';
import { waitFor } from '../support/harness';

const MB = 1024 * 1024;

describe('heapGrowthDecision', () => {
  it.each([
    // used MB, from MB, bounded now, decision
    [100, 256, false, undefined],
    [300, 256, false, true],
    [300, 256, true, undefined],
    [220, 256, true, undefined],
    [200, 256, true, false],
    [200, 256, false, undefined],
  ])('%i MB used, bound from %i MB, bounded %s: %s', (used, from, bounded, decision) => {
    expect(heapGrowthDecision(used * MB, from, bounded)).toBe(decision);
  });
});

describe('boundHeapGrowth', () => {
  // a full collection on demand, without starting node with --expose-gc
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;

  it('bounds the growth once a full collection keeps more than the threshold', async () => {
    const small = boundHeapGrowth(100, 1_000_000);
    const large = boundHeapGrowth(100, 1);
    try {
      gc();
      await waitFor(() => large.bounded(), { timeoutMs: 10_000, what: 'the bound after a full collection' });
      expect(small.bounded()).toBe(false);
    } finally {
      small.stop();
      large.stop();
    }
    expect(large.bounded()).toBe(false);
  });

  it('does nothing with 0 percent, and bounds at once from 0 MB', () => {
    const off = boundHeapGrowth(0, 1);
    const always = boundHeapGrowth(100, 0);
    expect(off.bounded()).toBe(false);
    expect(always.bounded()).toBe(true);
    always.stop();
    off.stop();
    expect(always.bounded()).toBe(false);
  });
});
