/**
 * In-process DocumentStore: one Map of documents per collection, queried with
 * the semantics of mingo (MongoDB query language over plain objects). Each
 * process has its own copy, so `shared` is false.
 *
 * Documents are deep-copied on the way in and on the way out, so callers can
 * never mutate what is stored. Queries work on references to the stored
 * documents and only the page that `find` returns is copied.
 *
 * Answers are exactly mingo's (same documents, same order, same total), but a
 * query does not hand every document to mingo:
 *
 *  - Equality indexes. Every index spec given to `ensureIndexes` (unique or
 *    not, single or compound) gets an equality index on its first field: a Map
 *    from the value to the documents holding it. An array of
 *    scalars indexes each element (MongoDB multikey); null and a missing field
 *    share one key, as `{ field: null }` matches both. Values the index cannot
 *    key (objects, dates, arrays holding non-scalars, arrays along a dotted
 *    path) put the document in the index's `unkeyed` set, which is a candidate
 *    for every lookup. `_id` needs no index: the document Map is keyed by it.
 *
 *  - Planner. Among the top-level conditions (and those of a top-level
 *    `$and`), an indexed field with an equality (`value`, `$eq`) or `$in` of
 *    scalars yields the candidates; the smallest candidate set wins. An index
 *    bucket holds exactly the documents that meet that condition (as mingo's
 *    $eq and $in decide), so its documents are tested on the rest of the
 *    filter only, and not at all when nothing else remains; the unkeyed
 *    candidates are tested on the whole filter.
 *
 *  - Search columns. A literal `$regex` (no operators, flags within i, m, s)
 *    on an indexed field, alone or in an `$or` of such, is answered from the
 *    field's substring column (see embedded/substring.ts): the values packed
 *    into long strings, searched with indexOf, so the candidates are the
 *    documents containing the literal, not all of them. Preferred to a scan
 *    and to an equality index with many candidates.
 *
 *  - Compiled matcher. The filter is compiled once per query into a predicate
 *    mirroring mingo's operators for the common subset ($eq, $ne, $in, $nin,
 *    $gt, $gte, $lt, $lte, $regex, $exists, $not, $and, $or, $nor, dotted
 *    paths). Each leaf condition handles the values it knows (scalars, null,
 *    missing, dates, arrays of scalars) and hands anything else (an object
 *    value, an array along a dotted path, an unsupported operator or operand)
 *    to a mingo Query of that single condition, so the answer is mingo's in
 *    every case. The common cases are generated as JavaScript source (see
 *    PredicateSource). A filter the compiler does not accept at all ($where,
 *    $expr, stateful /g or /y regular expressions, malformed input) is
 *    evaluated by mingo over every document in order, as before.
 *
 *  - Ordering. Matches are ordered with mingo's sort semantics (stable, by
 *    insertion order on ties; mixed types ordered by mingo's own `compare`).
 *    With a limit, only the first skip+limit are selected (a threshold filter
 *    plus quickselect), not every match sorted. When the sort keys are indexed
 *    fields (or `_id` after the first), the comparison uses ranks from the
 *    first key's sorted view (see SortedView), so no match's document is read
 *    for it, and an empty filter reads its page straight off the view; so
 *    does one equality most documents meet (`status: 'active'`), stepping
 *    over the view's documents outside the index bucket. Sort
 *    values outside what the comparators reproduce exactly (arrays, objects,
 *    NaN) make that query sort with mingo as before.
 *
 * Document order: mingo's answers depend on the input order (the order of an
 * unsorted result, and ties in a sort), which is the order of the document Map
 * (insertion order; a replaced document keeps its place, a deleted one that is
 * written again goes to the end). Each document carries a sequence number in
 * that order, so candidates found through an index can be put back in it.
 *
 * Layout: this file holds the store (writes, the query paths); `embedded/`
 * holds the parts it is made of: `values.ts` (mingo's paths and scalars),
 * `matcher.ts` (the compiled matcher), `indexes.ts` (unique and equality
 * indexes, the planner), `ordering.ts` (sort order, top-k, sorted views) and
 * `substring.ts` (search columns), `clone.ts` (the copies it keeps and hands out).
 */
import { Query, find as mingoFind } from 'mingo';
import type { DocumentStore, Filter, FindOptions, FindResult, IndexSpec, Sort, StoredDocument } from './document-store';
import {
  addToIndex,
  equalityKeys,
  indexKey,
  planIndex,
  removeFromIndex,
  sameKeys,
  type EqualityIndex,
  type UniqueIndex,
} from './embedded/indexes';
import { cloneDocument } from './embedded/clone';
import type { Entry } from './embedded/entry';
import { matchesAll, predicateOf, tryCompile, type Node, type Predicate } from './embedded/matcher';
import {
  UNSORTABLE,
  compareValues,
  firstK,
  isCount,
  range,
  rankComparator,
  sortValue,
  SortedView,
  type RankedKey,
} from './embedded/ordering';
import { SubstringColumn, regexLiteral, type SearchStats } from './embedded/substring';
import { mingoUtil, pathSteps } from './embedded/values';
interface CollectionState {
  docs: Map<string, Entry>;
  nextSeq: number;
  uniqueIndexes: UniqueIndex[];
  /** by field */
  equalityIndexes: Map<string, EqualityIndex>;
  /** `_instance` → the id of its document, or the ids of its several, so deleteStale does not scan the collection */
  byInstance: Map<string, string | Set<string>>;
  /**
   * `_instance` → the version of its last deleteStale: its documents below it
   * are gone for good (a late write of an older version does not bring one back)
   */
  tombstones: Map<string, number>;
  /** documents whose `_id` is not a string; while there are any, `_id` lookups are not planned */
  nonStringIds: number;
  /** the next SortedView slot */
  nextSlot: number;
  /** the next SubstringColumn slot */
  nextCell: number;
}

/**
 * What the last `find` or `count` did, for tests and diagnostics (see
 * `EmbeddedDocumentStore.lastQuery`).
 */
export interface QueryStats {
  /**
   * How candidates were found: 'all' (empty filter, nothing tested), 'scan'
   * (every document tested), 'index' (an equality index, or `_id`) or
   * 'search' (substring columns, for a literal $regex).
   */
  plan: 'all' | 'scan' | 'index' | 'search';
  /** the field whose index gave the candidates (plan 'index'), or the searched fields, comma-separated (plan 'search') */
  index?: string;
  /** plan 'search': chunks of the columns rebuilt because documents changed since the last search */
  rebuilt?: number;
  /** number of documents the filter was tested on */
  tested: number;
  /** true when the whole filter was evaluated by a mingo Query (outside the compiled subset) */
  mingoFilter: boolean;
  /** number of matches (the total) */
  matched: number;
  /**
   * How the page was put in order (find only): 'none' (insertion order, no
   * sort), 'walk' (the first skip+limit read from a sorted view, for an empty
   * filter or one broad equality), 'top-k' (the first skip+limit of the matches selected), 'sort'
   * (every match sorted), 'mingo' (sorted, skipped and limited by a mingo
   * cursor).
   */
  order?: 'none' | 'walk' | 'top-k' | 'sort' | 'mingo';
  /** true when the sort used the ranks of sorted views instead of reading each match's sort values */
  ranked?: boolean;
}

function duplicateKeyError(message: string): Error & { code: 'DUPLICATE_KEY' } {
  return Object.assign(new Error(message), { code: 'DUPLICATE_KEY' as const });
}

// ---------------------------------------------------------------- store

/** Above this many candidates from an equality index, a literal search through a substring column is preferred. */
const SEARCH_BEATS_INDEX = 2048;

/** Below this many matches, a sort reads the values instead of building a field's first sorted view. */
const VIEW_WORTHWHILE = 1024;

/* eslint-disable @typescript-eslint/require-await -- the port is asynchronous (MongoDB answers over the
   network); this adapter answers at once, and its methods stay async so that its errors reach callers as
   rejections, as the other adapter's do */
export class EmbeddedDocumentStore implements DocumentStore {
  readonly shared: boolean = false;
  readonly kind = 'embedded';
  /** What the last find or count did (for tests and diagnostics); undefined before the first. */
  lastQuery: QueryStats | undefined;
  private readonly collections = new Map<string, CollectionState>();

  async ensureIndexes(collection: string, indexes: IndexSpec[]): Promise<void> {
    const state = this.state(collection);
    for (const spec of indexes) {
      // the first field of every index, unique or not, gets an equality index for the planner
      const [first, direction] = Object.entries(spec.keys)[0] ?? [];
      if (first !== undefined && direction !== 'text') this.ensureEqualityIndex(state, first);

      if (!spec.unique) continue;
      const fields = Object.keys(spec.keys);
      const signature = fields.join('\0');
      if (state.uniqueIndexes.some((ix) => ix.fields.join('\0') === signature)) continue;

      const index: UniqueIndex = {
        name: spec.name ?? Object.entries(spec.keys).flat().join('_'),
        fields,
        owners: new Map(),
      };
      for (const { doc } of state.docs.values()) {
        const key = indexKey(index, doc);
        if (index.owners.has(key)) {
          throw duplicateKeyError(`cannot create unique index ${index.name} on ${collection}: duplicate key ${key}`);
        }
        index.owners.set(key, doc._id);
      }
      state.uniqueIndexes.push(index);
    }
  }

  async upsertIfNewer(collection: string, doc: StoredDocument): Promise<boolean> {
    const state = this.state(collection);
    const current = state.docs.get(doc._id);
    if (current && current.doc._v >= doc._v) return false;
    if ((state.tombstones.get(doc._instance) ?? 0) > doc._v) return false;

    const copy = cloneDocument(doc);
    // Check every unique index before touching any, so a rejected write leaves no trace.
    const keys = state.uniqueIndexes.map((index) => indexKey(index, copy));
    for (const [i, index] of state.uniqueIndexes.entries()) {
      const owner = index.owners.get(keys[i]);
      if (owner !== undefined && owner !== doc._id) {
        throw duplicateKeyError(
          `duplicate key in ${collection} index ${index.name}: ${keys[i]} is already used by ${owner}`,
        );
      }
    }

    for (const [i, index] of state.uniqueIndexes.entries()) {
      if (current) index.owners.delete(indexKey(index, current.doc));
      index.owners.set(keys[i], doc._id);
    }
    if (current) {
      // replaced in place: the entry keeps its position in the collection order
      const before = current.doc;
      current.doc = copy;
      if (before._instance !== copy._instance) {
        this.unlistInstance(state, before);
        this.listInstance(state, copy);
      }
      for (const index of state.equalityIndexes.values()) {
        const was = equalityKeys(index, before);
        const is = equalityKeys(index, copy);
        if (!sameKeys(was, is)) {
          removeFromIndex(index, was, current);
          addToIndex(index, is, current);
        }
        index.view?.changed(current, before);
        index.column?.changed(current, before);
      }
    } else {
      const entry: Entry = { doc: copy, seq: state.nextSeq++, ranks: [], removed: false };
      state.docs.set(copy._id, entry);
      if (typeof copy._id !== 'string') state.nonStringIds++;
      for (const index of state.equalityIndexes.values()) {
        addToIndex(index, equalityKeys(index, copy), entry);
        index.view?.added(entry);
        index.column?.added(entry);
      }
      this.listInstance(state, copy);
    }
    return true;
  }

  async deleteStale(collection: string, instance: string, version: number): Promise<number> {
    // the tombstone is kept even for an instance with nothing to delete: a write of an
    // older state that is still on its way (an inline projection, say) must not add one
    const state = this.state(collection);
    if ((state.tombstones.get(instance) ?? 0) < version) state.tombstones.set(instance, version);
    let deleted = 0;
    const listed = state.byInstance.get(instance);
    for (const id of listed instanceof Set ? [...listed] : listed === undefined ? [] : [listed]) {
      const entry = state.docs.get(id);
      if (entry && entry.doc._instance === instance && entry.doc._v < version) {
        this.remove(state, entry);
        deleted++;
      }
    }
    return deleted;
  }

  async get(collection: string, id: string): Promise<StoredDocument | null> {
    const entry = this.collections.get(collection)?.docs.get(id);
    return entry ? cloneDocument(entry.doc) : null;
  }

  async find<T = StoredDocument>(
    collection: string,
    filter: Filter,
    options: FindOptions = {},
  ): Promise<FindResult<T>> {
    const state = this.collections.get(collection);
    const { sort, skip, limit, projection } = options;
    const sorting = sort !== undefined && Object.keys(sort).length > 0;
    const paging = isCount(skip) && isCount(limit);
    // As in MongoDB, a limit of 0 means no limit.
    const from = skip ?? 0;
    const to = limit ? from + limit : Infinity;

    let page: StoredDocument[] | undefined;
    let total: number;
    let stats: QueryStats;
    const everything = mingoUtil.isObject(filter) && Object.keys(filter).length === 0;
    const walkable = state && sorting && paging && limit;
    const walked = walkable && everything ? this.walk(state, sort, from, to) : undefined;
    const broad = walkable && !everything ? this.broadBucket(state, filter, to) : undefined;
    const walkedBucket = broad ? this.walk(state as CollectionState, sort as Sort, from, to, broad.member) : undefined;
    if (walked && state) {
      // everything matches: the page comes from the sort field's view, no document is tested
      page = walked;
      total = state.docs.size;
      stats = { plan: 'all', tested: 0, mingoFilter: false, matched: total, order: 'walk', ranked: true };
    } else if (walkedBucket && broad) {
      // an equality most documents meet: the page comes from the view, members of the bucket only
      page = walkedBucket;
      total = broad.total;
      stats = {
        plan: 'index',
        index: broad.field,
        tested: broad.tested,
        mingoFilter: false,
        matched: total,
        order: 'walk',
        ranked: true,
      };
    } else {
      const found = this.matching(state, filter);
      const { matches, inOrder } = found;
      stats = found.stats;
      total = matches.length;
      if (paging && sorting && state) {
        const ordered = this.sorted(state, matches, sort, to, stats);
        if (ordered) page = ordered.slice(from, to);
      } else if (paging && !sorting) {
        page = this.inInsertionOrder(matches, inOrder, to, stats).slice(from, to);
      }
      page ??= this.mingoPage(matches, inOrder, options, stats);
    }

    // mingo applies the projection after sort, skip and limit, so only the page is projected
    const items = projection && Object.keys(projection).length > 0 ? mingoFind(page, {}, projection).all() : page;
    this.lastQuery = stats;
    return { items: items.map((doc) => cloneDocument(doc) as T), total };
  }

  async count(collection: string, filter: Filter): Promise<number> {
    const { matches, stats } = this.matching(this.collections.get(collection), filter);
    this.lastQuery = stats;
    return matches.length;
  }

  async drop(collection: string): Promise<void> {
    // Like the MongoDB adapter, drop removes the documents but keeps the indexes.
    const state = this.collections.get(collection);
    if (!state) return;
    for (const entry of state.docs.values()) entry.removed = true;
    state.docs.clear();
    state.byInstance.clear();
    state.tombstones.clear();
    state.nonStringIds = 0;
    for (const index of state.uniqueIndexes) index.owners.clear();
    for (const index of state.equalityIndexes.values()) {
      index.buckets.clear();
      index.unkeyed.clear();
      index.view?.clear();
      index.column?.clear();
    }
  }

  async close(): Promise<void> {
    this.collections.clear();
  }

  private state(collection: string): CollectionState {
    let state = this.collections.get(collection);
    if (!state) {
      state = {
        docs: new Map(),
        nextSeq: 0,
        uniqueIndexes: [],
        equalityIndexes: new Map(),
        byInstance: new Map(),
        tombstones: new Map(),
        nonStringIds: 0,
        nextSlot: 0,
        nextCell: 0,
      };
      this.collections.set(collection, state);
    }
    return state;
  }

  private ensureEqualityIndex(state: CollectionState, field: string): void {
    const steps = pathSteps(field);
    if (field === '_id' || !steps || state.equalityIndexes.has(field)) return;
    const index: EqualityIndex = { field, steps, buckets: new Map(), unkeyed: new Set() };
    for (const entry of state.docs.values()) addToIndex(index, equalityKeys(index, entry.doc), entry);
    state.equalityIndexes.set(field, index);
  }

  /**
   * The stored entries (not copies) matching `filter`. `inOrder` tells whether
   * they are in collection order (a scan) or not (index candidates).
   */
  private matching(
    state: CollectionState | undefined,
    filter: Filter,
  ): { matches: Entry[]; inOrder: boolean; stats: QueryStats } {
    if (!state || state.docs.size === 0) {
      return { matches: [], inOrder: true, stats: { plan: 'scan', tested: 0, mingoFilter: false, matched: 0 } };
    }
    const node = tryCompile(filter);
    if (!node) {
      // outside the compiled subset: mingo tests every document, in order
      const query = new Query(filter);
      const matches: Entry[] = [];
      for (const entry of state.docs.values()) if (query.test(entry.doc)) matches.push(entry);
      const stats: QueryStats = { plan: 'scan', tested: state.docs.size, mingoFilter: true, matched: matches.length };
      return { matches, inOrder: true, stats };
    }
    if (matchesAll(node)) {
      const matches = [...state.docs.values()];
      return { matches, inOrder: true, stats: { plan: 'all', tested: 0, mingoFilter: false, matched: matches.length } };
    }

    let plan = planIndex(state, filter);
    // the filter beyond the planned condition (null: not compiled alone)
    const rest = plan ? tryCompile(filter, plan.implied) : null;
    // an index that keeps every document only pays when it spares testing the rest of the filter
    if (plan && plan.estimate >= state.docs.size && !(rest && matchesAll(rest))) plan = null;
    // a literal search through a column beats a scan, and an index with many candidates
    if (!plan || plan.estimate > SEARCH_BEATS_INDEX) {
      const searched = this.searchCandidates(state, node);
      if (searched) {
        const predicate = predicateOf(node);
        const matches: Entry[] = [];
        for (const entry of searched.candidates) if (predicate(entry.doc)) matches.push(entry);
        const stats: QueryStats = {
          plan: 'search',
          index: searched.fields.join(','),
          tested: searched.candidates.length,
          mingoFilter: false,
          matched: matches.length,
          rebuilt: searched.rebuilt,
        };
        return { matches, inOrder: searched.inOrder, stats };
      }
    }
    const matches: Entry[] = [];
    let tested = 0;
    if (!plan) {
      const predicate = predicateOf(node);
      for (const entry of state.docs.values()) if (predicate(entry.doc)) matches.push(entry);
      const stats: QueryStats = { plan: 'scan', tested: state.docs.size, mingoFilter: false, matched: matches.length };
      return { matches, inOrder: true, stats };
    }

    // Keyed candidates meet the planned condition: only the rest of the filter is tested, if anything.
    if (rest && matchesAll(rest)) {
      for (const entry of plan.keyed()) matches.push(entry);
    } else {
      const predicate = predicateOf(rest ?? node);
      for (const entry of plan.keyed()) {
        tested++;
        if (predicate(entry.doc)) matches.push(entry);
      }
    }
    let whole: Predicate | undefined;
    for (const entry of plan.unkeyed) {
      tested++;
      if ((whole ??= predicateOf(node))(entry.doc)) matches.push(entry);
    }
    const stats: QueryStats = {
      plan: 'index',
      index: plan.implied.field,
      tested,
      mingoFilter: false,
      matched: matches.length,
    };
    return { matches, inOrder: false, stats };
  }

  /**
   * Candidates for the filter from substring columns, or null: a conjunct of
   * the filter (top level, or in a top-level $and) that is a literal $regex on
   * an indexed field, or an $or of such conditions, yields the documents whose
   * value contains the literal (see SubstringColumn), each once. Every match
   * is among them; the whole filter is still tested on each.
   */
  private searchCandidates(
    state: CollectionState,
    node: Node,
  ): { candidates: Entry[]; fields: string[]; inOrder: boolean; rebuilt: number } | null {
    const conjuncts = (part: Node): Node[] => (part.kind === 'and' ? part.parts.flatMap(conjuncts) : [part]);
    for (const part of conjuncts(node)) {
      const alternatives = part.kind === 'or' ? part.parts : [part];
      if (alternatives.length === 0) continue;
      const searches: Array<{
        column: SubstringColumn;
        literal: NonNullable<ReturnType<typeof regexLiteral>>;
        field: string;
      }> = [];
      for (const alternative of alternatives) {
        const leaf = alternative.kind === 'and' && alternative.parts.length === 1 ? alternative.parts[0] : alternative;
        if (leaf.kind !== 'leaf' || leaf.op !== '$regex' || !leaf.steps || !(leaf.operand instanceof RegExp)) break;
        const literal = regexLiteral(leaf.operand);
        const index = state.equalityIndexes.get(leaf.field);
        if (!literal || !index) break;
        index.column ??= new SubstringColumn(state.nextCell++, index.steps, state.docs.values());
        searches.push({ column: index.column, literal, field: leaf.field });
      }
      if (searches.length !== alternatives.length) continue;
      const stats: SearchStats = { rebuilt: 0 };
      if (searches.length === 1) {
        const { column, literal, field } = searches[0];
        const candidates = column.search(literal, stats);
        return { candidates, fields: [field], inOrder: column.irregular.size === 0, rebuilt: stats.rebuilt };
      }
      const union = new Set<Entry>();
      for (const { column, literal } of searches) for (const entry of column.search(literal, stats)) union.add(entry);
      return { candidates: [...union], fields: searches.map((s) => s.field), inOrder: false, rebuilt: stats.rebuilt };
    }
    return null;
  }

  /**
   * The sort keys as ranked keys (see rankComparator), or null unless the first
   * is an indexed field and the others are indexed fields or `_id`, with every
   * value sortable. Makes the views it needs unless `onlyExisting`.
   */
  private rankedKeys(state: CollectionState, sort: Sort, onlyExisting: boolean): RankedKey[] | null {
    const keys: RankedKey[] = [];
    for (const [i, field] of Object.keys(sort).entries()) {
      // mingo sorts descending only on -1; any other direction sorts ascending
      const direction = sort[field] === -1 ? -1 : 1;
      if (field === '_id' && i > 0 && state.nonStringIds === 0) {
        keys.push({ direction, view: null });
        continue;
      }
      const index = state.equalityIndexes.get(field);
      if (!index || (onlyExisting && !index.view)) return null;
      const view = (index.view ??= new SortedView(state.nextSlot++, index.steps, state.docs.values()));
      view.sorted();
      if (view.unsortable.size > 0) return null;
      keys.push({ direction, view });
    }
    return keys;
  }

  /**
   * The index buckets holding exactly the matches of `filter`, when the filter
   * is one equality or `$in` on an indexed field whose buckets hold so many
   * documents that walking the sort's view, testing each step for membership,
   * reaches `end` matches sooner than selecting them from the buckets: the
   * expected steps, end / (share of documents in the buckets), are under a
   * quarter of their size. Documents the index could not key are tested on the
   * filter first (they are few, if any).
   */
  private broadBucket(
    state: CollectionState,
    filter: Filter,
    end: number,
  ): { member: (entry: Entry) => boolean; total: number; tested: number; field: string } | undefined {
    const plan = planIndex(state, filter);
    const buckets = plan?.buckets;
    // the estimate counts a document once per bucket: an upper bound of the matches, enough to rule out
    if (!plan || !buckets?.length || plan.estimate * plan.estimate <= 4 * end * state.docs.size) return undefined;
    const rest = tryCompile(filter, plan.implied);
    if (!rest || !matchesAll(rest)) return undefined;
    // the matches, each once: an array value sits in the bucket of each of its elements
    const bySize = [...buckets].sort((a, b) => b.size - a.size);
    let keyed = bySize[0].size;
    for (let i = 1; i < bySize.length; i++) {
      for (const entry of bySize[i]) {
        let seen = false;
        for (let j = 0; j < i && !seen; j++) seen = bySize[j].has(entry);
        if (!seen) keyed++;
      }
    }
    if (keyed * keyed <= 4 * end * state.docs.size) return undefined;
    const unkeyed = new Set<Entry>();
    let tested = 0;
    let predicate: Predicate | undefined;
    for (const entry of plan.unkeyed) {
      tested++;
      if ((predicate ??= predicateOf(tryCompile(filter) as Node))(entry.doc)) unkeyed.add(entry);
    }
    const inBuckets = (entry: Entry) => bySize.some((bucket) => bucket.has(entry));
    const member = unkeyed.size === 0 ? inBuckets : (entry: Entry) => inBuckets(entry) || unkeyed.has(entry);
    return { member, total: keyed + unkeyed.size, tested, field: plan.implied.field };
  }

  /**
   * Documents [from, end) of the whole collection, or of `only`, in `sort`
   * order, read off the first sort field's view; undefined when the sort is not
   * ranked. The view orders by that field; only groups of equal values that
   * overlap the page are ordered by the other keys, so a deep page costs a
   * walk, not a sort of everything before it.
   */
  private walk(
    state: CollectionState,
    sort: Sort,
    from: number,
    end: number,
    only?: (entry: Entry) => boolean,
  ): StoredDocument[] | undefined {
    const keys = this.rankedKeys(state, sort, false);
    if (!keys) return undefined;
    const [first] = keys;
    const view = first.view as SortedView;
    const all = view.sorted();
    const n = all.length;
    const at = (step: number) => all[first.direction === 1 ? step : n - 1 - step];
    const page: StoredDocument[] = [];
    let pos = 0;
    for (let step = 0; step < n && pos < end;) {
      const rank = at(step).ranks[view.slot];
      let next = step + 1;
      while (next < n && at(next).ranks[view.slot] === rank) next++;
      let size = next - step;
      if (only) {
        size = 0;
        for (let i = step; i < next; i++) if (only(at(i))) size++;
      }
      if (pos + size > from) {
        const group: Entry[] = [];
        for (let i = step; i < next; i++) if (!only || only(at(i))) group.push(at(i));
        const order = size > 1 ? range(size).sort(rankComparator(group, keys)) : [0];
        for (let i = 0; i < size; i++) if (pos + i >= from && pos + i < end) page.push(group[order[i]].doc);
      }
      pos += size;
      step = next;
    }
    return page;
  }

  /**
   * The first `end` matches (all when end is Infinity) in `sort` order, or
   * undefined when a sort value is outside what the comparators order exactly
   * as mingo (the caller then sorts with mingo).
   */
  private sorted(
    state: CollectionState,
    matches: Entry[],
    sort: Sort,
    end: number,
    stats: QueryStats,
  ): StoredDocument[] | undefined {
    const n = matches.length;
    const k = Math.min(end, n);
    stats.order = end < n ? 'top-k' : 'sort';
    const keys = this.rankedKeys(state, sort, n < VIEW_WORTHWHILE);
    if (keys) {
      stats.ranked = true;
      return firstK(n, k, rankComparator(matches, keys)).map((i) => matches[i].doc);
    }

    const fields = Object.keys(sort);
    const paths = fields.map(pathSteps);
    if (paths.some((steps) => steps === null)) return undefined;
    const directions = fields.map((field) => (sort[field] === -1 ? -1 : 1));
    const width = fields.length;
    // every sort value of every match, flat: values[i * width + f]
    const values: unknown[] = [];
    for (let i = 0; i < n; i++) {
      const doc = matches[i].doc;
      for (let f = 0; f < width; f++) {
        const value = sortValue(doc, paths[f] as string[]);
        if (value === UNSORTABLE) return undefined;
        values.push(value);
      }
    }
    const cmp = (a: number, b: number): number => {
      for (let f = 0; f < width; f++) {
        const c = compareValues(values[a * width + f], values[b * width + f]);
        if (c !== 0) return c * directions[f];
      }
      // mingo's sort is stable: ties keep the collection order
      return matches[a].seq - matches[b].seq;
    };
    return firstK(n, k, cmp).map((i) => matches[i].doc);
  }

  /** The first `end` matches in collection order. */
  private inInsertionOrder(matches: Entry[], inOrder: boolean, end: number, stats: QueryStats): StoredDocument[] {
    stats.order = 'none';
    if (inOrder) return matches.slice(0, Math.min(end, matches.length)).map((entry) => entry.doc);
    const n = matches.length;
    return firstK(n, Math.min(end, n), (a, b) => matches[a].seq - matches[b].seq).map((i) => matches[i].doc);
  }

  /** Sort, skip and limit by a mingo cursor over the matches in collection order (the general path). */
  private mingoPage(matches: Entry[], inOrder: boolean, options: FindOptions, stats: QueryStats): StoredDocument[] {
    stats.order = 'mingo';
    stats.ranked = false;
    const ordered = inOrder ? matches : [...matches].sort((a, b) => a.seq - b.seq);
    const cursor = mingoFind(
      ordered.map((entry) => entry.doc),
      {},
    );
    const { sort, skip, limit } = options;
    if (sort && Object.keys(sort).length > 0) cursor.sort(sort);
    if (skip) cursor.skip(skip);
    if (limit) cursor.limit(limit);
    return cursor.all() as StoredDocument[];
  }

  private remove(state: CollectionState, entry: Entry): void {
    const { doc } = entry;
    entry.removed = true;
    for (const index of state.uniqueIndexes) index.owners.delete(indexKey(index, doc));
    for (const index of state.equalityIndexes.values()) {
      removeFromIndex(index, equalityKeys(index, doc), entry);
      index.view?.removed(entry);
      index.column?.removed(entry);
    }
    this.unlistInstance(state, doc);
    if (typeof doc._id !== 'string') state.nonStringIds--;
    state.docs.delete(doc._id);
  }

  /** Most instances project one document: its id is kept alone, a Set only for several (a Set per document weighs ~100 bytes). */
  private listInstance(state: CollectionState, doc: StoredDocument): void {
    const ids = state.byInstance.get(doc._instance);
    if (ids === undefined) state.byInstance.set(doc._instance, doc._id);
    else if (ids instanceof Set) ids.add(doc._id);
    else if (ids !== doc._id) state.byInstance.set(doc._instance, new Set([ids, doc._id]));
  }

  private unlistInstance(state: CollectionState, doc: StoredDocument): void {
    const ids = state.byInstance.get(doc._instance);
    if (ids === undefined) return;
    if (!(ids instanceof Set)) {
      if (ids === doc._id) state.byInstance.delete(doc._instance);
      return;
    }
    ids.delete(doc._id);
    if (ids.size === 1) state.byInstance.set(doc._instance, ids.values().next().value as string);
  }
}
