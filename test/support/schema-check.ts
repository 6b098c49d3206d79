/**
 * A method's input schema as the runtime applies it, for the rules tests that
 * check what a schema refuses: the validator from `schemas/<Class>/<method>.json`,
 * and a GET query's (or a body's) refused fields.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAjv, lazyValidator, queryInput, toFieldErrors, type Validator } from '../../runtime/actor/validation';

/** the validator of `schemas/<classId>/<method>.json` */
export function methodValidator(classId: string, method: string): Validator {
  const file = path.join(__dirname, '..', '..', 'schemas', classId, `${method}.json`);
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  return lazyValidator(createAjv(), schema, `${classId}.${method}`);
}

/**
 * A method's input as the runtime makes it from a GET query (`asQuery`; a
 * POST body is checked as sent), and the fields its schema refuses (each once).
 */
export function schemaRefusal(
  classId: string,
  method: string,
  raw: Record<string, unknown>,
  asQuery = true,
): { input: Record<string, unknown>; fields: string[] } {
  const validator = methodValidator(classId, method);
  const input = asQuery ? queryInput(raw, validator) : raw;
  const fields = validator(input) ? [] : [...new Set(toFieldErrors(validator.errors).map((e) => e.field))];
  return { input: { ...input }, fields };
}
