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
 *    from the serialized value to the documents holding it. An array of
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
 *    for it, and an empty filter reads its page straight off the view. Sort
 *    values outside what the comparators reproduce exactly (arrays, objects,
 *    NaN) make that query sort with mingo as before.
 *
 * Document order: mingo's answers depend on the input order (the order of an
 * unsorted result, and ties in a sort), which is the order of the document Map
 * (insertion order; a replaced document keeps its place, a deleted one that is
 * written again goes to the end). Each document carries a sequence number in
 * that order, so candidates found through an index can be put back in it.
 */
import { Query, find as mingoFind } from 'mingo';
import type {
  DocumentStore,
  Filter,
  FindOptions,
  FindResult,
  IndexSpec,
  Sort,
  StoredDocument,
} from './document-store';

/**
 * The parts of 'mingo/util' used here. tsconfig's moduleResolution 'node' does
 * not read package "exports", so the module is required and typed locally.
 */
interface MingoUtil {
  /** mingo's total order over values, as used by its $sort and comparison operators */
  compare(a: unknown, b: unknown): number;
  isEqual(a: unknown, b: unknown): boolean;
  /** `typeOf(v) === 'object'`: a plain object (what mingo accepts as a query) */
  isObject(v: unknown): boolean;
  /** a field's condition as an operator expression: 'x' → { $eq: 'x' }, /x/ → { $regex: /x/ }, … */
  normalize(expr: unknown): Record<string, unknown>;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mingoUtil = require('mingo/util') as MingoUtil;

type Doc = Record<string, unknown>;

/** A stored document and its position in the collection's insertion order. */
interface Entry {
  doc: StoredDocument;
  seq: number;
  /** rank in each sorted view, by the view's slot (see SortedView) */
  ranks: number[];
  /** set when the document is deleted (views drop it at their next merge) */
  removed: boolean;
}

/**
 * A unique index: maps the serialized key values of each document to its `_id`.
 * As in MongoDB, a missing field indexes as null, so only one document may lack
 * it. Unlike MongoDB multikey indexes, an array value is compared as a whole.
 */
interface UniqueIndex {
  name: string;
  fields: string[];
  owners: Map<string, string>;
}

/** One entry, or several: most keys of a selective index hold a single document. */
type Bucket = Entry | Set<Entry>;

/** A non-unique, single-field equality index (see the module comment). */
interface EqualityIndex {
  field: string;
  steps: string[];
  buckets: Map<string, Bucket>;
  /** documents whose value the index cannot key: candidates of every lookup */
  unkeyed: Set<Entry>;
  /** the field's sort order, made the first time the field is a sort key */
  view?: SortedView;
}

interface CollectionState {
  docs: Map<string, Entry>;
  nextSeq: number;
  uniqueIndexes: UniqueIndex[];
  /** by field */
  equalityIndexes: Map<string, EqualityIndex>;
  /** `_instance` → ids of its documents, so deleteStale does not scan the collection */
  byInstance: Map<string, Set<string>>;
  /** documents whose `_id` is not a string; while there are any, `_id` lookups are not planned */
  nonStringIds: number;
  /** the next SortedView slot */
  nextSlot: number;
}

/**
 * What the last `find` or `count` did, for tests and diagnostics (see
 * `EmbeddedDocumentStore.lastQuery`).
 */
export interface QueryStats {
  /**
   * How candidates were found: 'all' (empty filter, nothing tested), 'scan'
   * (every document tested) or 'index' (an equality index, or `_id`).
   */
  plan: 'all' | 'scan' | 'index';
  /** the field whose index gave the candidates, when plan is 'index' */
  index?: string;
  /** number of documents the filter was tested on */
  tested: number;
  /** true when the whole filter was evaluated by a mingo Query (outside the compiled subset) */
  mingoFilter: boolean;
  /** number of matches (the total) */
  matched: number;
  /**
   * How the page was put in order (find only): 'none' (insertion order, no
   * sort), 'walk' (the first skip+limit read from a sorted view, for an empty
   * filter), 'top-k' (the first skip+limit of the matches selected), 'sort'
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

/** Value at a dotted path (`a.b.0.c`), or undefined when a step is missing. */
function valueAt(doc: unknown, path: string): unknown {
  let value = doc;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

function indexKey(index: UniqueIndex, doc: StoredDocument): string {
  return JSON.stringify(index.fields.map((field) => valueAt(doc, field) ?? null));
}

// ---------------------------------------------------------------- paths

/** Returned by `resolvePath` where mingo's path semantics need mingo (an array along the path). */
const COMPLEX: unique symbol = Symbol('complex');

/** Names mingo resolves specially (inherited Object.prototype members, `__proto__`). */
const PROTO_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * The steps of a field path this module resolves itself, or null when mingo
 * must: empty steps, array indexes (`a.0`), operator-like and prototype names.
 */
function pathSteps(path: string): string[] | null {
  if (path.length === 0 || path.startsWith('$')) return null;
  const steps = path.split('.');
  for (const step of steps) {
    if (step.length === 0 || PROTO_NAMES.has(step) || /^\d+$/.test(step)) return null;
  }
  return steps;
}

/**
 * The value at `steps` as mingo resolves it when no array lies along the path:
 * undefined past a missing, null or scalar step, the property of any other
 * object (mingo's getValue; the steps exclude prototype names). COMPLEX when
 * an intermediate value is an array.
 */
function resolvePath(doc: Doc, steps: string[]): unknown {
  let value: unknown = doc[steps[0]];
  for (let i = 1; i < steps.length; i++) {
    if (value === undefined || value === null || typeof value !== 'object') return undefined;
    if (Array.isArray(value)) return COMPLEX;
    value = (value as Doc)[steps[i]];
  }
  return value;
}

/** string, number, boolean or null */
function isScalar(value: unknown): boolean {
  if (value === null) return true;
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean';
}

function allScalars(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (!isScalar(values[i])) return false;
  return true;
}

// ---------------------------------------------------------------- equality indexes

/**
 * The index key of a scalar: its type and value. null and undefined share 'z'
 * (mingo and MongoDB match both with `{ field: null }`); numbers key by their
 * string form, so 0 and -0 share a key, as do NaN and NaN (mingo's equality).
 */
function scalarKey(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'z';
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return `n${String(value)}`;
    case 'boolean':
      return value ? 'T' : 'F';
    default:
      return undefined;
  }
}

/**
 * The keys of `doc` in `index`: one per distinct element for an array of
 * scalars (none for an empty array, which no scalar equals), one for a scalar
 * or a missing value; null when the value cannot be keyed.
 */
function equalityKeys(index: EqualityIndex, doc: StoredDocument): string[] | null {
  const value = resolvePath(doc, index.steps);
  if (Array.isArray(value)) {
    if (!allScalars(value)) return null;
    return [...new Set(value.map((element) => scalarKey(element) as string))];
  }
  const key = scalarKey(value);
  return key === undefined ? null : [key];
}

function sameKeys(a: string[] | null, b: string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((key, i) => key === b[i]);
}

function addToIndex(index: EqualityIndex, keys: string[] | null, entry: Entry): void {
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

function removeFromIndex(index: EqualityIndex, keys: string[] | null, entry: Entry): void {
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

function bucketSize(bucket: Bucket | undefined): number {
  return bucket === undefined ? 0 : bucket instanceof Set ? bucket.size : 1;
}

// ---------------------------------------------------------------- compiled matcher

type Predicate = (doc: Doc) => boolean;

/**
 * A leaf condition on a value: true or false, or undefined when the value is
 * outside what the leaf reproduces exactly (mingo then decides).
 */
type ValueTest = (value: unknown) => boolean | undefined;

/** Thrown while compiling a filter the compiler does not accept; mingo evaluates it whole. */
class NotCompiled extends Error {}

/** mingo's equality: `===`, or both NaN */
function same(a: unknown, b: unknown): boolean {
  return a === b || Object.is(a, b);
}

/** Some element of an array of scalars passes; undefined when the array holds anything else. */
function someScalar(values: unknown[], test: (element: unknown) => boolean): boolean | undefined {
  let found = false;
  for (let i = 0; i < values.length; i++) {
    const element = values[i];
    if (!isScalar(element)) return undefined;
    if (!found && test(element)) found = true;
  }
  return found;
}

/**
 * mingo's $eq. Against a scalar: the value itself, both null/missing, or an
 * array element. Against an array: the whole array. Against a date: a date
 * with the same time.
 */
function eqTest(operand: unknown): ValueTest | null {
  if (isScalar(operand)) {
    return (value) => {
      if (same(value, operand)) return true;
      if (value === undefined || value === null) return operand === null;
      if (isScalar(value)) return false;
      if (Array.isArray(value)) return someScalar(value, (element) => same(element, operand));
      if (value instanceof Date) return false;
      return undefined;
    };
  }
  if (Array.isArray(operand)) {
    return (value) => {
      if (value === undefined || isScalar(value) || value instanceof Date) return false;
      if (Array.isArray(value)) return allScalars(value) ? mingoUtil.isEqual(value, operand) : undefined;
      return undefined;
    };
  }
  if (operand instanceof Date) {
    const time = operand.getTime();
    return (value) => {
      if (value instanceof Date) return value.getTime() === time;
      if (value === undefined || isScalar(value)) return false;
      if (Array.isArray(value)) return allScalars(value) ? false : undefined;
      return undefined;
    };
  }
  return null;
}

/**
 * mingo's $in: a null/missing value matches a null operand element; otherwise
 * the value (or an element of an array value) equals an operand element
 * (SameValueZero) or, when a string, matches one of its regular expressions.
 */
function inTest(operand: unknown): ValueTest | null {
  if (!Array.isArray(operand)) return null;
  const values = new Set<unknown>();
  const patterns: RegExp[] = [];
  for (const element of operand) {
    if (element instanceof RegExp) patterns.push(element);
    else if (isScalar(element)) values.add(element);
    else return null;
  }
  const hasNull = values.has(null);
  const matches = (element: unknown): boolean =>
    values.has(element) || (typeof element === 'string' && patterns.some((re) => re.test(element)));
  return (value) => {
    if (value === undefined || value === null) return hasNull;
    if (isScalar(value)) return matches(value);
    if (Array.isArray(value)) return someScalar(value, matches);
    return undefined;
  };
}

type Comparison = (a: number | string | boolean, b: number | string | boolean) => boolean;

/**
 * The sign tests of mingo's `compare(a, b)` on values of one type
 * (`a < b ? -1 : a > b ? 1 : 0`), NaN comparing as equal exactly as there.
 */
const COMPARISONS: Record<string, Comparison> = {
  $gt: (a, b) => a > b,
  $gte: (a, b) => !(a < b),
  $lt: (a, b) => a < b,
  $lte: (a, b) => !(a > b),
};

/**
 * mingo's $gt/$gte/$lt/$lte: true when the value (or an element of an array
 * value) has the operand's type and compares accordingly; values of another
 * type never match.
 */
function compareTest(op: string, operand: unknown): ValueTest | null {
  const cmp = COMPARISONS[op];
  if (operand instanceof Date) {
    const time = operand.getTime();
    return (value) => {
      if (value instanceof Date) return cmp(value.getTime(), time);
      if (value === undefined || isScalar(value)) return false;
      if (Array.isArray(value)) return allScalars(value) ? false : undefined;
      return undefined;
    };
  }
  if (operand === null || !isScalar(operand)) return null;
  const type = typeof operand;
  const b = operand as number | string | boolean;
  return (value) => {
    if (typeof value === type) return cmp(value as number | string | boolean, b);
    if (value === undefined || isScalar(value) || value instanceof Date) return false;
    if (Array.isArray(value)) return someScalar(value, (element) => typeof element === type && cmp(element as typeof b, b));
    return undefined;
  };
}

/** mingo's $regex: a string value, or a string element of an array value, matches. */
function regexTest(operand: unknown): ValueTest | null {
  if (!(operand instanceof RegExp)) return null;
  return (value) => {
    if (typeof value === 'string') return operand.test(value);
    if (value === undefined || isScalar(value)) return false;
    if (Array.isArray(value)) return someScalar(value, (element) => typeof element === 'string' && operand.test(element));
    return undefined;
  };
}

/** mingo's $exists on a path without arrays: the value is not undefined (null exists). */
function existsTest(operand: unknown): ValueTest {
  const wanted = !!operand;
  return (value) => (value !== undefined) === wanted;
}

function valueTest(op: string, operand: unknown): ValueTest | null {
  switch (op) {
    case '$eq':
      return eqTest(operand);
    case '$ne': {
      const eq = eqTest(operand);
      return eq && ((value) => negate(eq(value)));
    }
    case '$in':
      return inTest(operand);
    case '$nin': {
      const test = inTest(operand);
      return test && ((value) => negate(test(value)));
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte':
      return compareTest(op, operand);
    case '$regex':
      return regexTest(operand);
    case '$exists':
      return existsTest(operand);
    default:
      return null;
  }
}

function negate(result: boolean | undefined): boolean | undefined {
  return result === undefined ? undefined : !result;
}

/** True when the filter holds a regular expression whose result depends on earlier calls (/g, /y). */
function hasStatefulRegex(value: unknown): boolean {
  if (value instanceof RegExp) return value.global || value.sticky;
  if (Array.isArray(value)) return value.some(hasStatefulRegex);
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$options' && typeof inner === 'string' && /[gy]/.test(inner)) return true;
      if (hasStatefulRegex(inner)) return true;
    }
  }
  return false;
}

/**
 * A compiled filter: the logical structure of mingo's evaluation, with one
 * leaf per (field, operator) condition. mingo ANDs the conditions of a query
 * object and the operators of a field's condition, so does this.
 */
type Node =
  | { kind: 'and' | 'or'; parts: Node[] }
  | { kind: 'not'; part: Node }
  | Leaf;

interface Leaf {
  kind: 'leaf';
  field: string;
  /** null when the path is left to mingo */
  steps: string[] | null;
  op: string;
  operand: unknown;
  /** null when the operator or operand is left to mingo */
  test: ValueTest | null;
  /** the mingo Query of this one condition, made at compile time when `test` is null */
  query?: Query;
}

/** A condition the planner answers from an index; the compiler leaves it out of the residual filter. */
interface Implied {
  /** the query object (the filter, or a conjunct of a top-level $and) holding the condition */
  container: Filter;
  field: string;
  op: '$eq' | '$in';
}

/**
 * Compiles a filter into a Node with mingo's answer on every document.
 * Throws NotCompiled (or mingo's own error) for filters left to mingo whole.
 * `implied` names one condition to leave out.
 */
function compileFilter(filter: unknown, implied?: Implied): Node {
  if (!mingoUtil.isObject(filter)) throw new NotCompiled('not a query object');
  const parts: Node[] = [];
  for (const [key, expr] of Object.entries(filter as Filter)) {
    switch (key) {
      case '$and':
      case '$or':
      case '$nor': {
        if (!Array.isArray(expr)) throw new NotCompiled(`${key} expects an array`);
        // as mingo: an empty $and matches everything, an empty $or nothing (and $nor of it everything).
        // The implied condition is one every match meets: only left out where it is ANDed.
        const inner = expr.map((part) => compileFilter(part, key === '$and' ? implied : undefined));
        if (key === '$and') parts.push({ kind: 'and', parts: inner });
        else if (key === '$or') parts.push({ kind: 'or', parts: inner });
        else parts.push({ kind: 'not', part: { kind: 'or', parts: inner } });
        break;
      }
      default: {
        if (key.startsWith('$')) throw new NotCompiled(`top-level ${key}`);
        const skip = implied && implied.container === filter && implied.field === key ? implied.op : undefined;
        parts.push(...compileField(key, expr, skip));
      }
    }
  }
  return parts.length === 1 ? parts[0] : { kind: 'and', parts };
}

/** One node per operator of a field's condition, `skip` left out. */
function compileField(field: string, expr: unknown, skip?: string): Node[] {
  const steps = pathSteps(field);
  const normalized = mingoUtil.normalize(expr);
  const nodes: Node[] = [];
  for (const [op, operand] of Object.entries(normalized)) {
    if (op === skip) continue;
    if (op === '$not') {
      // mingo: not (the query { field: normalize(operand) })
      const inner = compileField(field, mingoUtil.normalize(operand));
      nodes.push({ kind: 'not', part: inner.length === 1 ? inner[0] : { kind: 'and', parts: inner } });
      continue;
    }
    const test = steps && valueTest(op, operand);
    // for an unknown operator mingo throws here, and the whole filter goes to mingo
    const query = test ? undefined : new Query({ [field]: { [op]: operand } });
    nodes.push({ kind: 'leaf', field, steps, op, operand, test, query });
  }
  return nodes;
}

/** The compiled filter, or null when the filter must be evaluated by mingo whole. */
function tryCompile(filter: Filter, implied?: Implied): Node | null {
  if (hasStatefulRegex(filter)) return null;
  try {
    return compileFilter(filter, implied);
  } catch {
    // NotCompiled, or an error mingo raises too: the mingo Query reports it
    return null;
  }
}

function matchesAll(node: Node): boolean {
  return node.kind === 'and' && node.parts.every(matchesAll);
}

/**
 * The predicate of a leaf, for leaves not inlined by the code generator: the
 * leaf's own test when the value is in its subset, a mingo Query of that one
 * condition otherwise.
 */
function leafPredicate(leaf: Leaf): Predicate {
  const { field, steps, op, operand, test } = leaf;
  if (!steps || !test) {
    const query = leaf.query ?? new Query({ [field]: { [op]: operand } });
    return (doc) => query.test(doc);
  }
  let query: Query | undefined;
  const byMingo = (doc: Doc): boolean => (query ??= new Query({ [field]: { [op]: operand } })).test(doc);
  if (steps.length === 1) {
    const name = steps[0];
    return (doc) => test(doc[name]) ?? byMingo(doc);
  }
  return (doc) => {
    const value = resolvePath(doc, steps);
    return value === COMPLEX ? byMingo(doc) : (test(value) ?? byMingo(doc));
  };
}

/**
 * Generates the JavaScript of a predicate: boolean operators become && / || /
 * !, and leaves on a top-level field read `d["field"]` once and test the
 * common cases (a scalar value) inline, calling the leaf predicate for the
 * rest (arrays, objects, dates: `leafPredicate`). Operands are bound as
 * constants (k0, k1, …), never written into the source, and field names are
 * written as JSON string literals; so the source depends only on the filter's
 * shape and field names, and the compiled function is cached by it. A per-query
 * closure over one shared, generic function would make every property read a
 * megamorphic lookup; this keeps the scan of 100 000 documents fast.
 */
class PredicateSource {
  readonly constants: unknown[] = [];

  private constant(value: unknown): string {
    this.constants.push(value);
    return `k${this.constants.length - 1}`;
  }

  expression(node: Node): string {
    switch (node.kind) {
      case 'and':
        return node.parts.length === 0 ? 'true' : `(${node.parts.map((part) => this.expression(part)).join(' && ')})`;
      case 'or':
        return node.parts.length === 0 ? 'false' : `(${node.parts.map((part) => this.expression(part)).join(' || ')})`;
      case 'not':
        return `!${this.expression(node.part)}`;
      case 'leaf':
        return this.leaf(node);
    }
  }

  private leaf(leaf: Leaf): string {
    const inline = leaf.steps?.length === 1 && leaf.test ? this.inline(leaf) : null;
    if (inline === null) return `${this.constant(leafPredicate(leaf))}(d)`;
    return `(v = d[${JSON.stringify((leaf.steps as string[])[0])}], ${inline})`;
  }

  /** Inline code testing `v` (the field's value), or null when the leaf is not inlined. */
  private inline(leaf: Leaf): string | null {
    const { op, operand } = leaf;
    // $ne and $nin are written as the negation of $eq and $in (as mingo defines them)
    const positive = op === '$ne' ? '$eq' : op === '$nin' ? '$in' : op;
    const restLeaf: Leaf = positive === op ? leaf : { ...leaf, op: positive, test: valueTest(positive, operand) };
    // the leaf predicate reads the value again; it handles objects, arrays and dates
    const rest = (): string => `${this.constant(leafPredicate(restLeaf))}(d)`;
    const objectOr = (scalarCase: string): string => `(typeof v === "object" && v !== null ? ${rest()} : ${scalarCase})`;
    switch (op) {
      case '$eq':
      case '$ne': {
        if (!isScalar(operand) || Number.isNaN(operand)) return null;
        const k = this.constant(operand);
        const eq = `(v === ${k} || ${objectOr(operand === null ? 'v === undefined' : 'false')})`;
        return op === '$eq' ? eq : `!${eq}`;
      }
      case '$in':
      case '$nin': {
        if (!Array.isArray(operand) || !allScalars(operand)) return null;
        const set = this.constant(new Set(operand));
        const hasNull = operand.includes(null);
        const code = `(v === undefined || v === null ? ${hasNull} : typeof v === "object" ? ${rest()} : ${set}.has(v))`;
        return op === '$in' ? code : `!${code}`;
      }
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte': {
        const type = typeof operand;
        if (type !== 'string' && type !== 'number') return null;
        const k = this.constant(operand);
        const compare = { $gt: `v > ${k}`, $gte: `!(v < ${k})`, $lt: `v < ${k}`, $lte: `!(v > ${k})` }[op];
        return `(typeof v === "${type}" ? ${compare} : ${objectOr('false')})`;
      }
      case '$regex': {
        if (!(operand instanceof RegExp)) return null;
        const re = this.constant(operand);
        return `(typeof v === "string" ? ${re}.test(v) : ${objectOr('false')})`;
      }
      case '$exists':
        return `((v !== undefined) === ${!!operand})`;
      default:
        return null;
    }
  }
}

type PredicateFactory = (constants: unknown[]) => Predicate;

/** Generated predicate factories by source; cleared when it grows past a bound. */
const FACTORIES = new Map<string, PredicateFactory>();
const MAX_FACTORIES = 500;

function predicateOf(node: Node): Predicate {
  if (matchesAll(node)) return () => true;
  const source = new PredicateSource();
  const body = source.expression(node);
  const names = source.constants.map((_, i) => `k${i}`);
  const code = `${names.length > 0 ? `const [${names.join(', ')}] = constants;\n` : ''}return function match(d) {\n  let v;\n  return ${body};\n};`;
  let factory = FACTORIES.get(code);
  if (!factory) {
    try {
      factory = new Function('constants', code) as PredicateFactory;
    } catch {
      // code generation disallowed (node --disallow-code-generation-from-strings): same answers, slower
      return closurePredicate(node);
    }
    if (FACTORIES.size >= MAX_FACTORIES) FACTORIES.clear();
    FACTORIES.set(code, factory);
  }
  return factory(source.constants);
}

/** The predicate of a compiled filter as plain closures. */
function closurePredicate(node: Node): Predicate {
  switch (node.kind) {
    case 'and': {
      const parts = node.parts.map(closurePredicate);
      return (doc) => parts.every((part) => part(doc));
    }
    case 'or': {
      const parts = node.parts.map(closurePredicate);
      return (doc) => parts.some((part) => part(doc));
    }
    case 'not': {
      const part = closurePredicate(node.part);
      return (doc) => !part(doc);
    }
    case 'leaf':
      return leafPredicate(node);
  }
}

// ---------------------------------------------------------------- planner

interface Plan {
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
}

/**
 * The field conditions every match meets, with the query object holding them:
 * top-level ones and those of (nested) top-level $and.
 */
function* conjuncts(filter: Filter): Generator<[Filter, string, unknown]> {
  for (const [key, expr] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(expr)) {
      for (const part of expr) if (mingoUtil.isObject(part)) yield* conjuncts(part as Filter);
    } else if (!key.startsWith('$')) {
      yield [filter, key, expr];
    }
  }
}

/** The scalars a field's condition requires it to equal ($eq, or $in of scalars), or null. */
function equalityCondition(expr: unknown): { op: '$eq' | '$in'; values: unknown[] } | null {
  const normalized = mingoUtil.normalize(expr);
  let best: { op: '$eq' | '$in'; values: unknown[] } | null = null;
  if ('$eq' in normalized && isScalar(normalized.$eq)) best = { op: '$eq', values: [normalized.$eq] };
  const list = normalized.$in;
  if (Array.isArray(list) && allScalars(list) && (best === null || list.length < best.values.length)) {
    best = { op: '$in', values: list };
  }
  return best;
}

function planIndex(state: CollectionState, filter: Filter): Plan | null {
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
      const keys = [...new Set(condition.values.map((value) => scalarKey(value) as string))];
      const buckets = keys.map((key) => index.buckets.get(key)).filter((bucket): bucket is Bucket => bucket !== undefined);
      plan = {
        implied,
        estimate: buckets.reduce((sum, bucket) => sum + bucketSize(bucket), index.unkeyed.size),
        keyed: () => unionOf(buckets),
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
function unionOf(buckets: Bucket[]): Iterable<Entry> {
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

// ---------------------------------------------------------------- ordering

/** Marks a sort value the comparator cannot order exactly as mingo does. */
const UNSORTABLE: unique symbol = Symbol('unsortable');

/**
 * A sort value as mingo's $sort groups it (missing is null), or UNSORTABLE for
 * values whose mingo order the comparator does not reproduce: arrays, objects,
 * NaN (compares equal to every number), invalid dates, arrays along the path.
 */
function sortValue(doc: Doc, steps: string[]): unknown {
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
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  const type = typeof a;
  if (type === typeof b && (type === 'string' || type === 'number' || type === 'boolean')) {
    return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
  }
  return mingoUtil.compare(a, b);
}

/** Indexes 0..n-1 (pushed: `new Array(n)` of a large n makes a slow dictionary-mode array) */
function range(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(i);
  return out;
}

/**
 * Rearranges `items[lo..hi]` so that `items[k]` holds what a full sort would
 * put there, with smaller items before it and larger after (quickselect; the
 * comparator is a strict total order).
 */
function quickselect(items: Int32Array, lo: number, hi: number, k: number, cmp: (a: number, b: number) => number): void {
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
function firstK(n: number, k: number, cmp: (a: number, b: number) => number): number[] {
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

function isCount(value: number | undefined): boolean {
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
class SortedView {
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
    if (this.stale === 0 && (last === 0 || added.length === 0 || compareValues(added[0].value, this.values[last - 1]) >= 0)) {
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
interface RankedKey {
  direction: 1 | -1;
  /** null for `_id`, compared by value (it only breaks ties) */
  view: SortedView | null;
}

/**
 * Compares positions in `list` by the sort keys: the first key by rank
 * (no document read), the others only on ties, then the collection order.
 */
function rankComparator(list: Entry[], keys: RankedKey[]): (a: number, b: number) => number {
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

// ---------------------------------------------------------------- store

/** Below this many matches, a sort reads the values instead of building a field's first sorted view. */
const VIEW_WORTHWHILE = 1024;

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

    const copy = structuredClone(doc);
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
      this.unlistInstance(state, before);
      for (const index of state.equalityIndexes.values()) {
        const was = equalityKeys(index, before);
        const is = equalityKeys(index, copy);
        if (!sameKeys(was, is)) {
          removeFromIndex(index, was, current);
          addToIndex(index, is, current);
        }
        index.view?.changed(current, before);
      }
    } else {
      const entry: Entry = { doc: copy, seq: state.nextSeq++, ranks: [], removed: false };
      state.docs.set(copy._id, entry);
      if (typeof copy._id !== 'string') state.nonStringIds++;
      for (const index of state.equalityIndexes.values()) {
        addToIndex(index, equalityKeys(index, copy), entry);
        index.view?.added(entry);
      }
    }
    let ids = state.byInstance.get(copy._instance);
    if (!ids) state.byInstance.set(copy._instance, (ids = new Set()));
    ids.add(copy._id);
    return true;
  }

  async deleteStale(collection: string, instance: string, version: number): Promise<number> {
    const state = this.collections.get(collection);
    if (!state) return 0;
    let deleted = 0;
    for (const id of [...(state.byInstance.get(instance) ?? [])]) {
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
    return entry ? structuredClone(entry.doc) : null;
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
    const walked = state && sorting && paging && limit && everything ? this.walk(state, sort, from, to) : undefined;
    if (walked && state) {
      // everything matches: the page comes from the sort field's view, no document is tested
      page = walked;
      total = state.docs.size;
      stats = { plan: 'all', tested: 0, mingoFilter: false, matched: total, order: 'walk', ranked: true };
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
    return { items: items.map((doc) => structuredClone(doc) as T), total };
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
    state.nonStringIds = 0;
    for (const index of state.uniqueIndexes) index.owners.clear();
    for (const index of state.equalityIndexes.values()) {
      index.buckets.clear();
      index.unkeyed.clear();
      index.view?.clear();
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
        nonStringIds: 0,
        nextSlot: 0,
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
    const stats: QueryStats = { plan: 'index', index: plan.implied.field, tested, mingoFilter: false, matched: matches.length };
    return { matches, inOrder: false, stats };
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

  /** For an empty filter: the first `end` documents in `sort` order, read from the first key's view; undefined when not ranked. */
  /**
   * Documents [from, end) of the whole collection in `sort` order, read off the
   * first sort field's view. The view orders by that field; only groups of equal
   * values that overlap the page are ordered by the other keys, so a deep page
   * costs a walk, not a sort of everything before it.
   */
  private walk(state: CollectionState, sort: Sort, from: number, end: number): StoredDocument[] | undefined {
    const keys = this.rankedKeys(state, sort, false);
    if (!keys) return undefined;
    const [first] = keys;
    const view = first.view as SortedView;
    const all = view.sorted();
    const n = all.length;
    const at = (step: number) => all[first.direction === 1 ? step : n - 1 - step];
    const page: StoredDocument[] = [];
    let pos = 0;
    for (let step = 0; step < n && pos < end; ) {
      const rank = at(step).ranks[view.slot];
      let next = step + 1;
      while (next < n && at(next).ranks[view.slot] === rank) next++;
      const size = next - step;
      if (pos + size > from) {
        const group: Entry[] = [];
        for (let i = step; i < next; i++) group.push(at(i));
        const order = size > 1 ? range(size).sort(rankComparator(group, keys)) : [0];
        for (let i = 0; i < size; i++) if (pos + i >= from && pos + i < end) page.push(group[order[i]!]!.doc);
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
  private sorted(state: CollectionState, matches: Entry[], sort: Sort, end: number, stats: QueryStats): StoredDocument[] | undefined {
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
    }
    this.unlistInstance(state, doc);
    if (typeof doc._id !== 'string') state.nonStringIds--;
    state.docs.delete(doc._id);
  }

  private unlistInstance(state: CollectionState, doc: StoredDocument): void {
    const ids = state.byInstance.get(doc._instance);
    ids?.delete(doc._id);
    if (ids?.size === 0) state.byInstance.delete(doc._instance);
  }
}
