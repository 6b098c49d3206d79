/**
 * Values and paths as mingo resolves them, shared by the embedded store's
 * indexes, matcher and ordering.
 */
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
export const mingoUtil = require('mingo/util') as MingoUtil;

export type Doc = Record<string, unknown>;

/** Value at a dotted path (`a.b.0.c`), or undefined when a step is missing. */
export function valueAt(doc: unknown, path: string): unknown {
  let value = doc;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

// ---------------------------------------------------------------- paths

/** Returned by `resolvePath` where mingo's path semantics need mingo (an array along the path). */
export const COMPLEX: unique symbol = Symbol('complex');

/** Names mingo resolves specially (inherited Object.prototype members, `__proto__`). */
const PROTO_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * The steps of a field path this module resolves itself, or null when mingo
 * must: empty steps, array indexes (`a.0`), operator-like and prototype names.
 */
export function pathSteps(path: string): string[] | null {
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
export function resolvePath(doc: Doc, steps: string[]): unknown {
  let value: unknown = doc[steps[0]];
  for (let i = 1; i < steps.length; i++) {
    if (value === undefined || value === null || typeof value !== 'object') return undefined;
    if (Array.isArray(value)) return COMPLEX;
    value = (value as Doc)[steps[i]];
  }
  return value;
}

/** string, number, boolean or null */
export function isScalar(value: unknown): boolean {
  if (value === null) return true;
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean';
}

export function allScalars(values: unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (!isScalar(values[i])) return false;
  return true;
}
