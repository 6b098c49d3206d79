/**
 * Field-level diff of an entity for the audit log (spec 2.8 Log.fieldUpdates).
 * Pure functions.
 *
 * Rules:
 *  - The fields are the top-level keys of the entity. `before` null (create)
 *    makes every field of `after` an `add`; `after` null (delete) makes every
 *    field of `before` a `remove`.
 *  - A key whose value is `undefined` counts as absent (as in JSON).
 *  - Values compare by JSON deep equality (object key order does not matter,
 *    array order does). A changed nested object or array is reported as one
 *    `replace` of the whole field.
 *  - A type change (object → string, number → null, ...) is a `replace` too:
 *    the field's value was replaced, exactly as RFC 6902 `replace` would say.
 *    The diff never produces `other`; the operation exists in the spec's Log
 *    record and stays accepted in the type for records written by others.
 *  - oldValue/newValue are JSON.stringify of the (masked) value. The side that
 *    does not exist is omitted: an `add` has no oldValue and a `remove` has no
 *    newValue, so a field that was `null` ("null") stays distinct from one that
 *    was absent.
 *  - Keys listed in `ignore` are left out. Order: the keys of `before` in their
 *    order, then the keys only in `after` in theirs.
 *  - Any depth: values come from other classes in-process, where no HTTP
 *    depth limit applies, so nothing here recurses. JSON text, JSON values and
 *    equality are computed with explicit stacks (a value nested 100 000 deep
 *    is diffed like any other; V8's own JSON.stringify overflows the stack
 *    long before that and is only the fast path). Equality stays here rather
 *    than in util.isDeepStrictEqual or rfc6902's createPatch: both recurse and
 *    overflow near 3 000 levels, and isDeepStrictEqual tells 0 from -0 and an
 *    object without a prototype from `{}`, which JSON does not.
 */

export type FieldOperation = 'add' | 'remove' | 'replace' | 'other';

export interface FieldUpdate {
  key: string;
  operation: FieldOperation;
  /** JSON-encoded old value; absent for `add` */
  oldValue?: string;
  /** JSON-encoded new value; absent for `remove` */
  newValue?: string;
  /** set when a value was too large to keep inline (see log-entry.ts) */
  isLarge?: boolean;
}

export type Entity = Record<string, unknown>;

export interface DiffOptions {
  /** top-level keys not to log */
  ignore?: readonly string[];
  /** turns a field's value into what may be logged (masking); identity by default */
  mask?: (key: string, value: unknown) => unknown;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * JSON.stringify(value), at any depth: V8's JSON.stringify recurses and
 * throws RangeError (stack) at a few thousand levels; then the value is
 * encoded again with an explicit stack, to the same text. Cycles and BigInt
 * throw TypeError, as with JSON.stringify.
 */
export function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
  }
  return stringifyIteratively(value);
}

/** What JSON.stringify encodes for a member: toJSON applied, boxed primitives unboxed. */
function jsonMember(value: unknown, key: string): unknown {
  if (value !== null && (typeof value === 'object' || typeof value === 'bigint')) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = toJSON.call(value, key);
  }
  if (value instanceof Number) return Number(value);
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  return value;
}

/** The JSON text of a scalar; null for an object or array; undefined for what JSON leaves out. */
function scalarText(value: unknown): string | null | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'object':
      return null;
    default:
      return undefined; // undefined, functions, symbols
  }
}

function stringifyIteratively(root: unknown): string | undefined {
  const top = jsonMember(root, '');
  const text = scalarText(top);
  if (text !== null) return text;
  const out: string[] = [];
  const onPath = new Set<object>();
  const frames: { value: Record<string, unknown> | unknown[]; keys: string[] | null; next: number; wrote: boolean }[] =
    [];
  const open = (value: object) => {
    if (onPath.has(value)) throw new TypeError('Converting circular structure to JSON');
    onPath.add(value);
    const isArray = Array.isArray(value);
    out.push(isArray ? '[' : '{');
    frames.push({
      value: value as Record<string, unknown>,
      keys: isArray ? null : Object.keys(value),
      next: 0,
      wrote: false,
    });
  };
  open(top as object);
  while (frames.length > 0) {
    const f = frames[frames.length - 1];
    const length = f.keys ? f.keys.length : (f.value as unknown[]).length;
    if (f.next >= length) {
      out.push(f.keys ? '}' : ']');
      onPath.delete(f.value);
      frames.pop();
      continue;
    }
    const i = f.next++;
    const key = f.keys ? f.keys[i] : String(i);
    const member = jsonMember(f.keys ? (f.value as Record<string, unknown>)[key] : (f.value as unknown[])[i], key);
    let memberText = scalarText(member);
    if (memberText === undefined) {
      if (f.keys) continue; // an object leaves the member out
      memberText = 'null'; // an array keeps its place
    }
    if (f.wrote) out.push(',');
    f.wrote = true;
    if (f.keys) out.push(JSON.stringify(key), ':');
    if (memberText === null) open(member as object);
    else out.push(memberText);
  }
  return out.join('');
}

/**
 * The JSON value of `value`: what JSON.stringify would keep (Dates become
 * ISO strings, undefined members vanish, toJSON is honoured). Any depth
 * (JSON.parse does not recurse in V8).
 */
export function toJsonValue(value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = jsonText(value);
  return text === undefined ? undefined : JSON.parse(text);
}

/** Deep equality of two JSON values (iterative: any depth). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  while (pending.length > 0) {
    const [x, y] = pending.pop()!;
    if (x === y) continue;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) pending.push([x[i], y[i]]);
      continue;
    }
    if (isPlainObject(x) && isPlainObject(y)) {
      const keys = Object.keys(x);
      if (keys.length !== Object.keys(y).length) return false;
      for (const k of keys) {
        if (!Object.prototype.hasOwnProperty.call(y, k)) return false;
        pending.push([x[k], y[k]]);
      }
      continue;
    }
    return false;
  }
  return true;
}

/**
 * A copy of the JSON value `value` in which every object or array nested
 * deeper than `maxDepth` levels is replaced by its JSON text (a string), so
 * that what is stored as structure stays shallow enough for any JSON tool
 * (the audit entry's additionalData). Iterative.
 */
export function limitDepth(value: unknown, maxDepth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (maxDepth < 1) return jsonText(value);
  const copyOf = (v: object): Record<string, unknown> | unknown[] => (Array.isArray(v) ? [] : {});
  const root = copyOf(value);
  const work: [object, Record<string, unknown> | unknown[], number][] = [[value, root, 1]];
  while (work.length > 0) {
    const [src, dst, depth] = work.pop()!;
    const entries: [string, unknown][] = Array.isArray(src) ? src.map((v, i) => [String(i), v]) : Object.entries(src);
    for (const [k, v] of entries) {
      let out: unknown = v;
      if (v !== null && typeof v === 'object') {
        if (depth + 1 > maxDepth) out = jsonText(v);
        else {
          out = copyOf(v);
          work.push([v, out as object as Record<string, unknown>, depth + 1]);
        }
      }
      if (Array.isArray(dst)) dst[Number(k)] = out;
      else Object.defineProperty(dst, k, { value: out, writable: true, enumerable: true, configurable: true });
    }
  }
  return root;
}

/** isJsonValue looks at no more nodes than this (a cycle never ends: it is left to toJsonValue, which refuses it) */
const JSON_VALUE_MAX_NODES = 100_000;

/**
 * Is `value` a JSON value already, one that toJsonValue would copy to an equal
 * one: null, strings, booleans, finite numbers, arrays without holes or
 * undefined elements, and objects whose prototype is Object.prototype or null
 * without toJSON, down to the leaves (an entity parsed from JSON, as actor
 * state is). Iterative, no copy; false for anything else (then the value is
 * converted as JSON.stringify sees it).
 */
function isJsonValue(root: unknown): boolean {
  const stack: unknown[] = [root];
  let nodes = 0;
  while (stack.length > 0) {
    if (++nodes > JSON_VALUE_MAX_NODES) return false;
    const v = stack.pop();
    if (v === null) continue;
    switch (typeof v) {
      case 'string':
      case 'boolean':
        continue;
      case 'number':
        if (!Number.isFinite(v)) return false;
        continue;
      case 'object':
        break;
      default:
        return false; // undefined, functions, symbols, BigInt
    }
    const o = v as Record<string, unknown>;
    if (typeof o.toJSON === 'function') return false;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) stack.push(o[i]);
      continue;
    }
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) return false;
    for (const k of Object.keys(o)) stack.push(o[k]);
  }
  return true;
}

function asEntity(value: unknown, side: 'before' | 'after'): Entity {
  if (value === null || value === undefined) return {};
  // a JSON value already (actor state): read as it is; only read here, never changed
  const json = isJsonValue(value) ? value : toJsonValue(value);
  if (!isPlainObject(json)) throw new TypeError(`${side} must be an object or null`);
  return json;
}

/** The changed fields of `before` → `after`, in diffFields' order, with both entities as JSON values. */
function changedFields(
  before: unknown,
  after: unknown,
  ignoreKeys: readonly string[] | undefined,
): { b: Entity; a: Entity; changes: [string, Exclude<FieldOperation, 'other'>][] } {
  const b = asEntity(before, 'before');
  const a = asEntity(after, 'after');
  const ignore = new Set(ignoreKeys ?? []);
  const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !Object.prototype.hasOwnProperty.call(b, k))];
  const changes: [string, Exclude<FieldOperation, 'other'>][] = [];
  for (const key of keys) {
    if (ignore.has(key)) continue;
    const inBefore = Object.prototype.hasOwnProperty.call(b, key);
    const inAfter = Object.prototype.hasOwnProperty.call(a, key);
    if (inBefore && !inAfter) changes.push([key, 'remove']);
    else if (!inBefore && inAfter) changes.push([key, 'add']);
    else if (!jsonEqual(b[key], a[key])) changes.push([key, 'replace']);
  }
  return { b, a, changes };
}

/** The field updates that turn `before` into `after`. */
export function diffFields(before: unknown, after: unknown, options: DiffOptions = {}): FieldUpdate[] {
  const { b, a, changes } = changedFields(before, after, options.ignore);
  const mask = options.mask ?? ((_key: string, value: unknown) => value);
  const encode = (key: string, value: unknown) => jsonText(mask(key, value));
  return changes.map(([key, operation]): FieldUpdate => {
    if (operation === 'remove') return { key, operation, oldValue: encode(key, b[key]) };
    if (operation === 'add') return { key, operation, newValue: encode(key, a[key]) };
    return { key, operation, oldValue: encode(key, b[key]), newValue: encode(key, a[key]) };
  });
}

/** How many field updates diffFields gives (its length), without encoding their values. */
export function countFieldUpdates(before: unknown, after: unknown, options: Pick<DiffOptions, 'ignore'> = {}): number {
  return changedFields(before, after, options.ignore).changes.length;
}
