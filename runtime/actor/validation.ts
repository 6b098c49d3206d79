import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from '../types/methods';

/** One ajv instance for every method schema; all errors reported, no coercion. */
export function createAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false });
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
}

/**
 * A validator compiled on its first call. Compiling a schema is ajv's
 * expensive step (code generation): a process that compiled all of a few
 * hundred methods' schemas at start paid about a second for methods it may
 * never be asked for. The schema itself is checked against JSON Schema's
 * meta-schema at once, so a malformed schema still stops the start.
 */
export function lazyValidator(ajv: Ajv, schema: Record<string, unknown>, name: string): Validator {
  if (!ajv.validateSchema(schema)) throw new Error(`${name}: invalid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
  let compiled: ValidateFunction | undefined;
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
  return validator;
}
