import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FieldError } from './types';

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

export type Validator = ValidateFunction;
