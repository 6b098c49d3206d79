/** What the Company tests share: a method schema's check of a GET query, as the runtime makes it. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAjv, lazyValidator, queryInput, toFieldErrors } from '../../runtime/actor/validation';

/**
 * A method's input as the runtime makes it from a GET query (`asQuery`; a
 * POST body is checked as sent) and the fields its schema refuses.
 */
export function schemaRefusal(
  classId: string,
  method: string,
  raw: Record<string, unknown>,
  asQuery = true,
): { input: Record<string, unknown>; fields: string[] } {
  const file = path.join(__dirname, '..', '..', 'schemas', classId, `${method}.json`);
  const schema = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  const validator = lazyValidator(createAjv(), schema, `${classId}.${method}`);
  const input = asQuery ? queryInput(raw, validator) : raw;
  const fields = validator(input) ? [] : toFieldErrors(validator.errors).map((e) => e.field);
  return { input: { ...input }, fields };
}
