/**
 * The embedded store's compiled matcher (see embedded-document-store.ts).
 */
import { Query } from 'mingo';
import type { Filter } from '../document-store';
import { COMPLEX, allScalars, isScalar, mingoUtil, pathSteps, resolvePath, type Doc } from './values';

// ---------------------------------------------------------------- compiled matcher

export type Predicate = (doc: Doc) => boolean;

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
    if (Array.isArray(value))
      return someScalar(value, (element) => typeof element === type && cmp(element as typeof b, b));
    return undefined;
  };
}

/** mingo's $regex: a string value, or a string element of an array value, matches. */
export function regexTest(operand: unknown): ValueTest | null {
  if (!(operand instanceof RegExp)) return null;
  return (value) => {
    if (typeof value === 'string') return operand.test(value);
    if (value === undefined || isScalar(value)) return false;
    if (Array.isArray(value))
      return someScalar(value, (element) => typeof element === 'string' && operand.test(element));
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
export type Node = { kind: 'and' | 'or'; parts: Node[] } | { kind: 'not'; part: Node } | Leaf;

export interface Leaf {
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
export interface Implied {
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
export function tryCompile(filter: Filter, implied?: Implied): Node | null {
  if (hasStatefulRegex(filter)) return null;
  try {
    return compileFilter(filter, implied);
  } catch {
    // NotCompiled, or an error mingo raises too: the mingo Query reports it
    return null;
  }
}

export function matchesAll(node: Node): boolean {
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
    const objectOr = (scalarCase: string): string =>
      `(typeof v === "object" && v !== null ? ${rest()} : ${scalarCase})`;
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

export function predicateOf(node: Node): Predicate {
  if (matchesAll(node)) return () => true;
  const source = new PredicateSource();
  const body = source.expression(node);
  const names = source.constants.map((_, i) => `k${i}`);
  const code = `${names.length > 0 ? `const [${names.join(', ')}] = constants;\n` : ''}return function match(d) {\n  let v;\n  return ${body};\n};`;
  let factory = FACTORIES.get(code);
  if (!factory) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the predicate is compiled on purpose (its code is generated here, its constants passed in, never spliced)
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
