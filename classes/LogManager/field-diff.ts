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
 * The JSON value of `value`: what JSON.stringify would keep (Dates become
 * ISO strings, undefined members vanish, toJSON is honoured).
 */
export function toJsonValue(value: unknown): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

/** Deep equality of two JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => jsonEqual(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

function asEntity(value: unknown, side: 'before' | 'after'): Entity {
  if (value === null || value === undefined) return {};
  const json = toJsonValue(value);
  if (!isPlainObject(json)) throw new TypeError(`${side} must be an object or null`);
  return json;
}

/** The field updates that turn `before` into `after`. */
export function diffFields(before: unknown, after: unknown, options: DiffOptions = {}): FieldUpdate[] {
  const b = asEntity(before, 'before');
  const a = asEntity(after, 'after');
  const ignore = new Set(options.ignore ?? []);
  const mask = options.mask ?? ((_key: string, value: unknown) => value);
  const encode = (key: string, value: unknown) => JSON.stringify(mask(key, value));

  const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !Object.prototype.hasOwnProperty.call(b, k))];
  const out: FieldUpdate[] = [];
  for (const key of keys) {
    if (ignore.has(key)) continue;
    const inBefore = Object.prototype.hasOwnProperty.call(b, key);
    const inAfter = Object.prototype.hasOwnProperty.call(a, key);
    if (inBefore && !inAfter) {
      out.push({ key, operation: 'remove', oldValue: encode(key, b[key]) });
    } else if (!inBefore && inAfter) {
      out.push({ key, operation: 'add', newValue: encode(key, a[key]) });
    } else if (!jsonEqual(b[key], a[key])) {
      out.push({ key, operation: 'replace', oldValue: encode(key, b[key]), newValue: encode(key, a[key]) });
    }
  }
  return out;
}
