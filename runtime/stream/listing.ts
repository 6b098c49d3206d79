/**
 * Listings and the indexes that serve them.
 *
 * A class declares each listing of a collection once (`listings` beside the
 * collection's `indexes`): its order, and the sets of fields it restricts to a
 * value or a list of values (`status: 'active'`, `companyId: {$in: [...]}`).
 * The indexes are derived from that declaration, so a listing and the index it
 * needs cannot drift apart: each filter set gets an index of those fields
 * followed by the sort keys (MongoDB's equality-sort-range rule), so a page is
 * read off the index in the listing's order and never sorted in memory; a
 * range on the first sort key bounds the same walk; conditions outside the set
 * are tested on the documents met in that walk. The listing's code takes its
 * sort from the declaration.
 *
 * `[]` among the sets is the sort alone (a listing with no filter given). A
 * filter set costs an index, and every index costs every write to the
 * collection: declare the sets that are selective and asked for, not every
 * combination.
 */
import type { Filter, IndexSpec, Sort } from './document-store';

export interface ListingSpec {
  /** the listing's name (its method), in messages */
  name: string;
  /** the listing's order; its code passes exactly this sort */
  sort: Sort;
  /**
   * sets of fields the listing restricts by equality or `$in`, each leading an
   * index before the sort keys; `[]` for the sort alone. Default: `[[]]`.
   */
  filterSets?: readonly (readonly string[])[];
}

/** What a collection declares (the runtime's CollectionOptions, structurally). */
export interface CollectionIndexing {
  indexes?: IndexSpec[];
  listings?: readonly ListingSpec[];
  tenantField?: string;
}

/** filter sets one listing may declare: each is an index on every write to the collection */
export const MAX_FILTER_SETS = 6;
/** MongoDB refuses a 65th index on a collection (one is `_id`, one serves deleteStale) */
const MONGO_INDEX_ROOM = 62;

type Keys = IndexSpec['keys'];

function entries(keys: Keys): [string, 1 | -1 | 'text'][] {
  return Object.entries(keys);
}

/** The index keys of one filter set of a listing: the set's fields (ascending), then the sort keys. */
export function listingKeys(set: readonly string[], sort: Sort): Record<string, 1 | -1> {
  const keys: Record<string, 1 | -1> = {};
  for (const field of set) keys[field] = 1;
  for (const [field, direction] of Object.entries(sort)) {
    if (field in keys) throw new Error(`sort field '${field}' is also in the filter set [${set.join(', ')}]`);
    keys[field] = direction;
  }
  return keys;
}

/** true when `a`'s keys begin `b`'s, every direction the same or every one reversed (an index is walked both ways) */
function isPrefix(a: Keys, b: Keys): boolean {
  const ea = entries(a);
  const eb = entries(b);
  if (ea.length > eb.length) return false;
  let same = true;
  let reversed = true;
  for (let i = 0; i < ea.length; i++) {
    const [fa, da] = ea[i];
    const [fb, db] = eb[i];
    if (fa !== fb || da === 'text' || db === 'text') return false;
    if (da !== db) same = false;
    if (da === db) reversed = false;
  }
  return same || reversed;
}

/** a plain index (not unique, not text) whose keys another index begins with adds nothing for queries */
function plain(spec: IndexSpec): boolean {
  return !spec.unique && !entries(spec.keys).some(([, d]) => d === 'text');
}

/**
 * The indexes of a collection: those it declares and those its listings need
 * (each filter set, and the tenant field alone for a tenant-bound caller's
 * unfiltered listing), without a plain index that another one begins with.
 * Refuses a declaration that cannot be served (a sort field inside a filter
 * set, too many sets, more indexes than MongoDB keeps).
 */
export function collectionIndexes(collection: string, def: CollectionIndexing): IndexSpec[] {
  const derived: IndexSpec[] = [];
  for (const listing of def.listings ?? []) {
    const sets = listing.filterSets ?? [[]];
    if (sets.length > MAX_FILTER_SETS) {
      throw new Error(
        `${collection}: listing ${listing.name} declares ${sets.length} filter sets, at most ${MAX_FILTER_SETS}`,
      );
    }
    if (Object.keys(listing.sort).length === 0)
      throw new Error(`${collection}: listing ${listing.name} declares no sort`);
    const all = def.tenantField && !(def.tenantField in listing.sort) ? [...sets, [def.tenantField]] : sets;
    for (const set of all) {
      try {
        derived.push({ keys: listingKeys(set, listing.sort) });
      } catch (err) {
        throw new Error(`${collection}: listing ${listing.name}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
  const candidates = [...derived, ...(def.indexes ?? [])];
  const kept: IndexSpec[] = [];
  for (const [i, spec] of candidates.entries()) {
    if (plain(spec)) {
      // covered by a longer index, or the same keys met earlier
      const covered = candidates.some(
        (other, j) =>
          j !== i &&
          isPrefix(spec.keys, other.keys) &&
          (entries(other.keys).length > entries(spec.keys).length || !plain(other) || j < i),
      );
      if (covered) continue;
    }
    kept.push(spec);
  }
  if (kept.length > MONGO_INDEX_ROOM)
    throw new Error(`${collection}: ${kept.length} indexes, MongoDB keeps at most ${MONGO_INDEX_ROOM} besides its own`);
  return kept;
}

function isScalar(v: unknown): boolean {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

/** true when a field's condition is an equality or an `$in` of scalars (what an index's equality prefix serves) */
function isEquality(condition: unknown): boolean {
  if (isScalar(condition)) return true;
  if (
    !condition ||
    typeof condition !== 'object' ||
    Array.isArray(condition) ||
    condition instanceof RegExp ||
    condition instanceof Date
  )
    return false;
  const ops = Object.entries(condition as Record<string, unknown>);
  if (ops.length === 0 || !ops.every(([op]) => op.startsWith('$'))) return false;
  return ops.every(
    ([op, v]) =>
      (op === '$eq' && isScalar(v)) || (op === '$in' && Array.isArray(v) && v.length > 0 && v.every(isScalar)),
  );
}

/** The fields a filter restricts by equality or `$in`, at its top level and in its top-level `$and` (as MongoDB plans them). */
export function equalityFields(filter: Filter): Set<string> {
  const fields = new Set<string>();
  const visit = (f: Filter): void => {
    for (const [key, condition] of Object.entries(f)) {
      if (key === '$and' && Array.isArray(condition)) {
        for (const part of condition) if (part && typeof part === 'object') visit(part as Filter);
      } else if (!key.startsWith('$') && isEquality(condition)) {
        fields.add(key);
      }
    }
  };
  visit(filter);
  return fields;
}

/**
 * The number of leading equality fields of `index` when it gives `sort`'s
 * order to the documents matching those equalities (its keys: some of the
 * `equality` fields, then the sort keys, all in their direction or all
 * reversed), or -1 when it cannot (the page would be sorted in memory).
 */
export function servesSort(index: Keys, equality: ReadonlySet<string>, sort: Sort): number {
  const keys = entries(index);
  let prefix = 0;
  while (prefix < keys.length && equality.has(keys[prefix][0]) && !(keys[prefix][0] in sort)) prefix++;
  const wanted = Object.entries(sort);
  if (keys.length - prefix < wanted.length) return -1;
  let same = true;
  let reversed = true;
  for (let i = 0; i < wanted.length; i++) {
    const [field, direction] = keys[prefix + i];
    if (field !== wanted[i][0] || direction === 'text') return -1;
    if (direction !== wanted[i][1]) same = false;
    else reversed = false;
  }
  return same || reversed ? prefix : -1;
}

/**
 * The index that serves a listing query best: it gives the sort's order and
 * leads with the most of the filter's equality fields; undefined when none
 * gives the order.
 */
export function servingIndex(
  indexes: readonly IndexSpec[],
  filter: Filter,
  sort: Sort,
): { index: IndexSpec; equalityPrefix: number } | undefined {
  const equality = equalityFields(filter);
  let best: { index: IndexSpec; equalityPrefix: number } | undefined;
  for (const index of indexes) {
    const prefix = servesSort(index.keys, equality, sort);
    if (prefix >= 0 && (!best || prefix > best.equalityPrefix)) best = { index, equalityPrefix: prefix };
  }
  return best;
}
