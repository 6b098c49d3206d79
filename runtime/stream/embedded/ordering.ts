/**
 * The embedded store's ordering: mingo's sort order, top-k selection and the
 * sorted views of indexed fields (see embedded-document-store.ts).
 */
import type { StoredDocument } from '../document-store';
import type { Entry } from './entry';
import { mingoUtil, resolvePath, type Doc } from './values';

// ---------------------------------------------------------------- ordering

/** Marks a sort value the comparator cannot order exactly as mingo does. */
export const UNSORTABLE: unique symbol = Symbol('unsortable');

/**
 * A sort value as mingo's $sort groups it (missing is null), or UNSORTABLE for
 * values whose mingo order the comparator does not reproduce: arrays, objects,
 * NaN (compares equal to every number), invalid dates, arrays along the path.
 */
export function sortValue(doc: Doc, steps: string[]): unknown {
  const value = steps.length === 1 ? doc[steps[0]] : resolvePath(doc, steps);
  if (value === undefined || value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isNaN(value) ? UNSORTABLE : value;
    default:
      return value instanceof Date && !Number.isNaN(value.getTime()) ? value : UNSORTABLE;
  }
}

/** mingo's `compare` for sort values (null, numbers, strings, booleans, valid dates). */
export function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  const type = typeof a;
  if (type === typeof b && (type === 'string' || type === 'number' || type === 'boolean')) {
    return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  }
  return mingoUtil.compare(a, b);
}

/** Indexes 0..n-1 (pushed: `new Array(n)` of a large n makes a slow dictionary-mode array) */
export function range(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(i);
  return out;
}

/**
 * Rearranges `items[lo..hi]` so that `items[k]` holds what a full sort would
 * put there, with smaller items before it and larger after (quickselect; the
 * comparator is a strict total order).
 */
function quickselect(
  items: Int32Array,
  lo: number,
  hi: number,
  k: number,
  cmp: (a: number, b: number) => number,
): void {
  while (hi > lo) {
    const mid = (lo + hi) >>> 1;
    // median of three as pivot, left at items[mid]
    if (cmp(items[mid], items[lo]) < 0) swap(items, mid, lo);
    if (cmp(items[hi], items[lo]) < 0) swap(items, hi, lo);
    if (cmp(items[hi], items[mid]) < 0) swap(items, hi, mid);
    const pivot = items[mid];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (cmp(items[i], pivot) < 0) i++;
      while (cmp(items[j], pivot) > 0) j--;
      if (i <= j) {
        swap(items, i, j);
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

function swap(items: Int32Array, i: number, j: number): void {
  const t = items[i];
  items[i] = items[j];
  items[j] = t;
}

/**
 * The positions (0..n-1) of the first `k` items in `cmp` order, in order,
 * without sorting all n: candidates better than the current k-th best are
 * buffered, and when the buffer fills, quickselect keeps its k best and the
 * k-th becomes the bar the next candidates must beat. O(n) comparisons for
 * random input, O(n + n/k·k) when every candidate beats the bar.
 */
export function firstK(n: number, k: number, cmp: (a: number, b: number) => number): number[] {
  if (k >= n) return range(n).sort(cmp);
  const buffer = new Int32Array(Math.min(n, Math.max(2 * k, k + 1024)));
  let size = 0;
  let bar = -1;
  // Sort keys often follow the insertion order (createdAt) or its reverse: take
  // the items from the end that looks better, so that the bar is soon met.
  const backwards = cmp(n - 1, 0) < 0;
  for (let step = 0; step < n; step++) {
    const i = backwards ? n - 1 - step : step;
    if (bar >= 0 && cmp(i, bar) >= 0) continue;
    buffer[size++] = i;
    if (size === buffer.length && step < n - 1) {
      quickselect(buffer, 0, size - 1, k - 1, cmp);
      size = k;
      bar = buffer[k - 1];
    }
  }
  if (size > k) quickselect(buffer, 0, size - 1, k - 1, cmp);
  return Array.from(buffer.subarray(0, Math.min(size, k))).sort(cmp);
}

export function isCount(value: number | undefined): boolean {
  return value === undefined || (Number.isSafeInteger(value) && value >= 0);
}

// ---------------------------------------------------------------- sorted views

/**
 * The documents of an indexed field in ascending mingo order of their values,
 * built the first time the field is a sort key, then kept up to date lazily:
 * writes only note the entries that changed, and the next sort merges them in
 * (appends them, in the common case of values after the last one, such as a
 * creation time). Each entry's rank, the position where its group of equal
 * values starts, is kept in `entry.ranks[slot]`, so matches are ordered by the
 * field without reading their documents.
 */
export class SortedView {
  private entries: Entry[] = [];
  private values: unknown[] = [];
  private lastRank = 0;
  /** entries added, or whose value changed, since the last merge */
  private readonly pending = new Set<Entry>();
  /** entries whose value the comparator cannot order like mingo; while there are any, the view is not used */
  readonly unsortable = new Set<Entry>();
  /** `entries` holds entries removed or changed since: how many (at most) */
  private stale = 0;

  constructor(
    readonly slot: number,
    private readonly steps: string[],
    all: Iterable<Entry>,
  ) {
    for (const entry of all) this.added(entry);
  }

  added(entry: Entry): void {
    if (sortValue(entry.doc, this.steps) === UNSORTABLE) this.unsortable.add(entry);
    else this.pending.add(entry);
  }

  /** `entry.doc` replaced `before` */
  changed(entry: Entry, before: StoredDocument): void {
    const was = sortValue(before, this.steps);
    const is = sortValue(entry.doc, this.steps);
    if (was !== UNSORTABLE && is !== UNSORTABLE && compareValues(was, is) === 0) return;
    if (was === UNSORTABLE) this.unsortable.delete(entry);
    if (is === UNSORTABLE) {
      this.pending.delete(entry);
      this.unsortable.add(entry);
    } else {
      this.pending.add(entry);
    }
    // its place in `entries`, if it has one, is out of date (last: this may merge)
    if (was !== UNSORTABLE) this.outdated();
  }

  removed(entry: Entry): void {
    this.pending.delete(entry);
    this.unsortable.delete(entry);
    this.outdated();
  }

  clear(): void {
    this.entries = [];
    this.values = [];
    this.pending.clear();
    this.unsortable.clear();
    this.stale = 0;
  }

  /**
   * Counts a place in `entries` gone out of date; when they make up half of it,
   * merges at once, so that deleted documents are not kept alive by a view no
   * query sorts with for a long time.
   */
  private outdated(): void {
    if (++this.stale > Math.max(1024, this.entries.length / 2)) this.sorted();
  }

  /** The sortable entries in ascending order, their ranks up to date. */
  sorted(): Entry[] {
    if (this.pending.size === 0 && this.stale === 0) return this.entries;
    const added = [...this.pending].map((entry) => ({ entry, value: sortValue(entry.doc, this.steps) }));
    added.sort((a, b) => compareValues(a.value, b.value));
    const moved = new Set(this.pending);
    this.pending.clear();
    const last = this.values.length;
    if (
      this.stale === 0 &&
      (last === 0 || added.length === 0 || compareValues(added[0].value, this.values[last - 1]) >= 0)
    ) {
      for (const { entry, value } of added) this.push(entry, value);
      return this.entries;
    }
    // merge the entries still in place with the added ones
    const entries = this.entries;
    const values = this.values;
    this.entries = [];
    this.values = [];
    this.stale = 0;
    let i = 0;
    let j = 0;
    while (i < entries.length || j < added.length) {
      if (i < entries.length) {
        const entry = entries[i];
        if (entry.removed || moved.has(entry) || this.unsortable.has(entry)) {
          i++;
          continue;
        }
        if (j >= added.length || compareValues(values[i], added[j].value) <= 0) {
          this.push(entry, values[i]);
          i++;
          continue;
        }
      }
      this.push(added[j].entry, added[j].value);
      j++;
    }
    return this.entries;
  }

  private push(entry: Entry, value: unknown): void {
    const position = this.entries.length;
    if (position === 0 || compareValues(this.values[position - 1], value) !== 0) this.lastRank = position;
    entry.ranks[this.slot] = this.lastRank;
    this.entries.push(entry);
    this.values.push(value);
  }
}

/** A sort field ordered through ranks: an indexed field's view, or `_id` (a string on every document). */
export interface RankedKey {
  direction: 1 | -1;
  /** null for `_id`, compared by value (it only breaks ties) */
  view: SortedView | null;
}

/**
 * Compares positions in `list` by the sort keys: the first key by rank
 * (no document read), the others only on ties, then the collection order.
 */
export function rankComparator(list: Entry[], keys: RankedKey[]): (a: number, b: number) => number {
  const [first, ...rest] = keys;
  const slot = (first.view as SortedView).slot;
  const direction = first.direction;
  const ranks = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) ranks[i] = list[i].ranks[slot];
  return (a, b) => {
    const byFirst = ranks[a] - ranks[b];
    if (byFirst !== 0) return byFirst * direction;
    const x = list[a];
    const y = list[b];
    for (const key of rest) {
      const c = key.view ? x.ranks[key.view.slot] - y.ranks[key.view.slot] : compareValues(x.doc._id, y.doc._id);
      if (c !== 0) return c * key.direction;
    }
    return x.seq - y.seq;
  };
}
