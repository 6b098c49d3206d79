/**
 * The embedded store's entries, unique and equality indexes, and the planner
 * that picks an equality index's candidates (see embedded-document-store.ts).
 */
import type { Filter, StoredDocument } from '../document-store';
import type { Implied } from './matcher';
import type { SortedView } from './ordering';
import type { SubstringColumn } from './substring';
import type { Entry } from './entry';
import { allScalars, isScalar, mingoUtil, resolvePath, valueAt } from './values';

/**
 * A unique index: maps the serialized key values of each document to its `_id`.
 * As in MongoDB, a missing field indexes as null, so only one document may lack
 * it. Unlike MongoDB multikey indexes, an array value is compared as a whole.
 */
export interface UniqueIndex {
  name: string;
  fields: string[];
  owners: Map<string, string>;
}

/** One entry, or several: most keys of a selective index hold a single document. */
export type Bucket = Entry | Set<Entry>;

/** A non-unique, single-field equality index (see the module comment). */
export interface EqualityIndex {
  field: string;
  steps: string[];
  buckets: Map<IndexKey, Bucket>;
  /** documents whose value the index cannot key: candidates of every lookup */
  unkeyed: Set<Entry>;
  /** the field's sort order, made the first time the field is a sort key */
  view?: SortedView;
  /** the field's string values for substring search, made the first time a literal $regex searches the field */
  column?: SubstringColumn;
}

export function indexKey(index: UniqueIndex, doc: StoredDocument): string {
  return JSON.stringify(index.fields.map((field) => valueAt(doc, field) ?? null));
}

// ---------------------------------------------------------------- equality indexes

/** An equality index's key: a scalar itself (Map keys compare by SameValueZero). */
export type IndexKey = string | number | boolean | null;

/**
 * The index key of a scalar: the value itself, so the Map holds the
 * document's own string, not a copy. Map keys compare by SameValueZero, which
 * is mingo's equality on scalars: 0 and -0 share a key, as do NaN and NaN,
 * and values of different types never meet ('1' and 1). null and undefined
 * share null (mingo and MongoDB match both with `{ field: null }`).
 */
export function scalarKey(value: unknown): IndexKey | undefined {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'boolean':
      return value;
    default:
      return undefined;
  }
}

/**
 * The keys of `doc` in `index`: one per distinct element for an array of
 * scalars (none for an empty array, which no scalar equals), one for a scalar
 * or a missing value; null when the value cannot be keyed.
 */
export function equalityKeys(index: EqualityIndex, doc: StoredDocument): IndexKey[] | null {
  const value = resolvePath(doc, index.steps);
  if (Array.isArray(value)) {
    if (!allScalars(value)) return null;
    return [...new Set(value.map((element) => scalarKey(element) as IndexKey))];
  }
  const key = scalarKey(value);
  return key === undefined ? null : [key];
}

export function sameKeys(a: IndexKey[] | null, b: IndexKey[] | null): boolean {
  if (a === null || b === null) return a === b;
  // SameValueZero, as the Map compares keys
  return a.length === b.length && a.every((key, i) => key === b[i] || (key !== key && b[i] !== b[i]));
}

export function addToIndex(index: EqualityIndex, keys: IndexKey[] | null, entry: Entry): void {
  if (keys === null) {
    index.unkeyed.add(entry);
    return;
  }
  for (const key of keys) {
    const bucket = index.buckets.get(key);
    if (bucket === undefined) index.buckets.set(key, entry);
    else if (bucket instanceof Set) bucket.add(entry);
    else if (bucket !== entry) index.buckets.set(key, new Set([bucket, entry]));
  }
}

export function removeFromIndex(index: EqualityIndex, keys: IndexKey[] | null, entry: Entry): void {
  if (keys === null) {
    index.unkeyed.delete(entry);
    return;
  }
  for (const key of keys) {
    const bucket = index.buckets.get(key);
    if (bucket === entry) {
      index.buckets.delete(key);
    } else if (bucket instanceof Set) {
      bucket.delete(entry);
      if (bucket.size === 1) index.buckets.set(key, bucket.values().next().value as Entry);
    }
  }
}

export function bucketSize(bucket: Bucket | undefined): number {
  return bucket === undefined ? 0 : bucket instanceof Set ? bucket.size : 1;
}

// ---------------------------------------------------------------- planner

export interface Plan {
  /** the condition the candidates come from */
  implied: Implied;
  /** upper bound of the candidate count */
  estimate: number;
  /**
   * Candidates that meet the implied condition (an index bucket holds exactly
   * the documents whose value equals its key, as mingo's $eq and $in decide),
   * each once.
   */
  keyed: () => Iterable<Entry>;
  /** candidates the index could not key: the whole filter must be tested on them */
  unkeyed: Iterable<Entry>;
  /**
   * the buckets the candidates come from, when each holds several documents (membership tests without
   * reading documents); an array value sits in each bucket of its elements
   */
  buckets?: Set<Entry>[];
}

/**
 * The field conditions every match meets, with the query object holding them:
 * top-level ones and those of (nested) top-level $and.
 */
export function* conjuncts(filter: Filter): Generator<[Filter, string, unknown]> {
  for (const [key, expr] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(expr)) {
      for (const part of expr) if (mingoUtil.isObject(part)) yield* conjuncts(part as Filter);
    } else if (!key.startsWith('$')) {
      yield [filter, key, expr];
    }
  }
}

/** The scalars a field's condition requires it to equal ($eq, or $in of scalars), or null. */
export function equalityCondition(expr: unknown): { op: '$eq' | '$in'; values: unknown[] } | null {
  const normalized = mingoUtil.normalize(expr);
  let best: { op: '$eq' | '$in'; values: unknown[] } | null = null;
  if ('$eq' in normalized && isScalar(normalized.$eq)) best = { op: '$eq', values: [normalized.$eq] };
  const list = normalized.$in;
  if (Array.isArray(list) && allScalars(list) && (best === null || list.length < best.values.length)) {
    best = { op: '$in', values: list };
  }
  return best;
}

/** What the planner reads of a collection. */
export interface Indexed {
  docs: Map<string, Entry>;
  equalityIndexes: Map<string, EqualityIndex>;
  /** documents whose `_id` is not a string; while there are any, `_id` lookups are not planned */
  nonStringIds: number;
}

export function planIndex(state: Indexed, filter: Filter): Plan | null {
  let best: Plan | null = null;
  for (const [container, field, expr] of conjuncts(filter)) {
    const index = state.equalityIndexes.get(field);
    const useIds = field === '_id' && state.nonStringIds === 0;
    if (!index && !useIds) continue;
    const condition = equalityCondition(expr);
    if (!condition) continue;
    const implied: Implied = { container, field, op: condition.op };
    let plan: Plan;
    if (index) {
      const keys = [...new Set(condition.values.map((value) => scalarKey(value) as IndexKey))];
      const buckets = keys
        .map((key) => index.buckets.get(key))
        .filter((bucket): bucket is Bucket => bucket !== undefined);
      plan = {
        implied,
        estimate: buckets.reduce((sum, bucket) => sum + bucketSize(bucket), index.unkeyed.size),
        keyed: () => unionOf(buckets),
        buckets: buckets.every((bucket) => bucket instanceof Set) ? buckets : undefined,
        unkeyed: index.unkeyed,
      };
    } else {
      // every _id is a string: a string operand matches the one document stored under it, nothing else matches
      const entries = [...new Set(condition.values)]
        .filter((value): value is string => typeof value === 'string')
        .map((id) => state.docs.get(id))
        .filter((entry): entry is Entry => entry !== undefined);
      plan = { implied, estimate: entries.length, keyed: () => entries, unkeyed: [] };
    }
    if (!best || plan.estimate < best.estimate) best = plan;
  }
  return best;
}

/** The entries of the buckets, each once (an array value may sit in several). */
export function unionOf(buckets: Bucket[]): Iterable<Entry> {
  if (buckets.length === 0) return [];
  if (buckets.length === 1) {
    const bucket = buckets[0];
    return bucket instanceof Set ? bucket : [bucket];
  }
  const union = new Set<Entry>();
  for (const bucket of buckets) {
    if (bucket instanceof Set) for (const entry of bucket) union.add(entry);
    else union.add(bucket);
  }
  return union;
}
