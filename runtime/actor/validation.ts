import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '../types/methods';

/**
 * One ajv instance for every method schema; all errors reported, no coercion.
 * `coerce`: the instance that turns a GET query's strings into the types its
 * schema names (a scalar where a list is expected becomes a one-item list).
 */
export function createAjv(coerce = false): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: coerce ? 'array' : false, useDefaults: false });
  addFormats(ajv);
  return ajv;
}

function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function join(base: string, leaf: string): string {
  return base ? `${base}.${leaf}` : leaf;
}

/** ajv errors as field-level `{field, reason}` pairs (field is a dotted path; '' is the body itself). */
export function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    const base = pointerToPath(e.instancePath);
    let field = base;
    let reason = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = join(base, String((e.params as { missingProperty: string }).missingProperty));
      reason = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      field = join(base, String((e.params as { additionalProperty: string }).additionalProperty));
      reason = 'is not allowed';
    } else if (e.keyword === 'enum') {
      reason = `must be one of: ${(e.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
    }
    const key = `${field}\u0000${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field: field || '(body)', reason });
  }
  return out;
}

/** A method's input check: called with the body, its `errors` set by the last call; `schema` is the JSON Schema. */
export interface Validator {
  (data: unknown): boolean;
  errors: ErrorObject[] | null | undefined;
  readonly schema: Record<string, unknown>;
  /** compiles the schema now (a process compiles it on first use otherwise) */
  compile(): void;
  /**
   * Turns a GET query's strings, in place, into the types the schema names
   * where they read as such ("2" for an integer, "true" for a boolean); what
   * does not read as its type is left for the check to refuse.
   */
  coerce(data: Record<string, unknown>): void;
}

/**
 * A validator compiled on its first call. Compiling a schema is ajv's
 * expensive step (code generation): a process that compiled all of a few
 * hundred methods' schemas at start paid about a second for methods it may
 * never be asked for. The schema itself is checked against JSON Schema's
 * meta-schema at once, so a malformed schema still stops the start.
 */
export function lazyValidator(
  ajv: Ajv,
  schema: Record<string, unknown>,
  name: string,
  coercing: () => Ajv = () => createAjv(true),
): Validator {
  if (!ajv.validateSchema(schema)) throw new Error(`${name}: invalid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  let compiled: ValidateFunction | undefined;
  let coercer: ValidateFunction | undefined;
  const validator = ((data: unknown): boolean => {
    compiled ??= ajv.compile(schema);
    const ok = compiled(data);
    validator.errors = compiled.errors;
    return ok;
  }) as Validator;
  validator.errors = null;
  Object.defineProperty(validator, 'schema', { value: schema, enumerable: true });
  validator.compile = () => {
    compiled ??= ajv.compile(schema);
  };
  validator.coerce = (data) => {
    // only GET-able methods ever compile this second copy, on their first GET
    coercer ??= coercing().compile(schema);
    coercer(data);
  };
  return validator;
}

/**
 * A GET's input: its query, as a POST body of the same names would be. An
 * empty value counts as not given (a form's blank field, `?status=`); the rest
 * is coerced to the method's schema types. Without a schema the query's
 * strings are the input as they are. Keys land on an object without a
 * prototype, so `__proto__` in a query is a key like any other.
 */
export function queryInput(query: Record<string, unknown>, validator: Validator | undefined): Record<string, unknown> {
  const input = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(query)) {
    if (v === '' || v === undefined) continue;
    input[k] = Array.isArray(v) ? v.filter((x) => x !== '') : v;
  }
  validator?.coerce(input);
  return input;
}
