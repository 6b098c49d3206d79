/**
 * The embedded store's copy of a document (kept on upsert, handed out on get
 * and find), as `structuredClone` makes it but without its fixed cost per call
 * (a serialisation and a deserialisation) for what documents almost always
 * are: plain objects, arrays, dates and primitives. Anything else (a Map, a
 * typed array, a class instance) is handed to `structuredClone`, subtree by
 * subtree, and so is a value it refuses (a function, a symbol: DataCloneError
 * as before). A document nested deeper than MAX_DEPTH (or a cycle) is copied
 * whole by `structuredClone`, which handles cycles.
 *
 * Like `structuredClone`: own enumerable string keys only, getters read, a
 * null-prototype object comes back as a plain one, array holes stay holes, an
 * own `__proto__` key stays an own property.
 */
const MAX_DEPTH = 100;

class TooDeep extends Error {}

export function cloneDocument<T>(value: T): T {
  try {
    return copy(value, 0) as T;
  } catch (err) {
    if (err instanceof TooDeep) return structuredClone(value);
    throw err;
  }
}

function copy(value: unknown, depth: number): unknown {
  if (value === null) return null;
  const type = typeof value;
  if (type !== 'object') {
    if (type === 'function' || type === 'symbol') return structuredClone(value); // throws DataCloneError
    return value;
  }
  if (depth > MAX_DEPTH) throw new TooDeep();
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value);
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) if (i in value) out[i] = copy(value[i], depth + 1);
    return out;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Date.prototype) return new Date((value as Date).getTime());
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in source) {
    if (!Object.prototype.hasOwnProperty.call(source, key)) continue;
    const v = copy(source[key], depth + 1);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}
